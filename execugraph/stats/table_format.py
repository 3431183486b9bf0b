"""Writing `tables.Table`s as LaTeX (booktabs), CSV or Markdown, to text or to a folder.

LaTeX and Markdown show the rounded numbers the dashboard shows; CSV keeps the
raw values (percentages and points unrounded, CIs as two columns) for anyone who
re-plots them. `write_tables` also writes `tables.tex`, a standalone document
that `\\input`s every table, so the LaTeX compiles as it is. Every data-derived
string (titles, names, categories) goes through `execugraph.safety.inert_text` for
its format, so nothing a published study calls itself is live in the output.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Sequence
from pathlib import Path

from execugraph.safety.inert_text import csv_cell, latex_text, md_text, one_line
from execugraph.stats.tables import CI_PCT, CI_PP, MISSING, PCT, TEXT, Column, Table, is_missing

FORMATS = {"latex": "tex", "csv": "csv", "markdown": "md"}
STANDALONE_NAME = "tables.tex"
latex_escape = latex_text  # text safe anywhere in LaTeX, comments included (execugraph.safety.inert_text)
_SAFE_KEY = re.compile(r"[A-Za-z0-9_.-]+")


def _file_key(table: Table) -> str:
    """The table's file stem, refused unless it is plain (it is written into \\input and \\label as is)."""
    if not _SAFE_KEY.fullmatch(table.key):
        raise ValueError(f"table key {table.key!r} is not a plain file name")
    return table.key


def _row(cells: list[str]) -> str:
    """One tabular row; a first cell starting with [ or * gets `{}` so the previous row's `\\\\` cannot read it
    as its optional argument or star."""
    if cells and cells[0].startswith(("[", "*")):
        cells = ["{}" + cells[0], *cells[1:]]
    return " & ".join(cells) + r" \\"


def to_latex(table: Table) -> str:
    """One `table` environment with a booktabs `tabular` (needs \\usepackage{booktabs})."""
    spec = "".join("r" if c.numeric else "l" for c in table.columns)
    lines = [
        f"% {latex_text(table.title)} (written by python -m execugraph report)",
        r"\begin{table}[t]",
        r"\centering",
        r"\small",
        rf"\caption{{{latex_escape(table.title)}}}",
        rf"\label{{tab:execugraph-{_file_key(table).replace('_', '-')}}}",
        rf"\begin{{tabular}}{{{spec}}}",
        r"\toprule",
        _row([latex_escape(c.title) for c in table.columns]),
        r"\midrule",
    ]
    for row in table.display_rows():
        lines.append(_row([latex_escape(row[c.title]) for c in table.columns]))
    lines += [r"\bottomrule", r"\end{tabular}"]
    if table.notes:
        lines.append(r"\par\smallskip\footnotesize " + " ".join(latex_escape(n) for n in table.notes))
    lines.append(r"\end{table}")
    return "\n".join(lines) + "\n"


def _csv_header(column: Column) -> list[str]:
    if column.kind in (CI_PCT, CI_PP):
        unit = column.title.rpartition("(")[2].rstrip(")") or "value"
        return [csv_cell(f"95% CI low ({unit})"), csv_cell(f"95% CI high ({unit})")]
    return [csv_cell(column.title)]


def _csv_value(value: object, column: Column) -> list[str]:
    """Raw numbers: rates as percentages, CIs as two cells, missing as empty; text cells neutralised
    (`csv_cell`: a leading = + - @ tab or CR gets a `'`), numbers never (a plain -0.25 stays a number)."""
    if column.kind in (CI_PCT, CI_PP):
        lo, hi = value if isinstance(value, tuple) else (None, None)
        scale = 100.0 if column.kind == CI_PCT else 1.0
        return ["" if v is None else _number(v * scale) for v in (lo, hi)]
    if isinstance(value, tuple):  # a p-value with its method mark
        value = value[0]
    if value is None:
        return [""]
    if column.kind == PCT:
        return [_number(100.0 * value)]
    if isinstance(value, float):
        return [_number(value)]
    if column.kind == TEXT or not isinstance(value, int):
        return [csv_cell(value)]
    return [str(value)]


def _number(value: float) -> str:
    return repr(round(float(value), 10))


def to_csv(table: Table) -> str:
    """A header row and one row per table row (no notes: CSV has no place for them)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([h for c in table.columns for h in _csv_header(c)])
    for row in table.rows:
        writer.writerow([v for c in table.columns for v in _csv_value(row.get(c.key), c)])
    return out.getvalue()


def _md_cell(text: str, column: Column) -> str:
    """Text cells escaped as literal Markdown; numeric cells are written by `display` from numbers, never data."""
    return md_text(text) if column.kind == TEXT else text.replace("|", "\\|")


def to_markdown(table: Table) -> str:
    """A pipe table under a bold title, numeric columns right-aligned, notes below; every text literal."""
    lines = [f"**{md_text(table.title)}**", ""]
    lines.append("| " + " | ".join(md_text(c.title) for c in table.columns) + " |")
    lines.append("|" + "|".join("---:" if c.numeric else ":---" for c in table.columns) + "|")
    for row in table.display_rows():
        lines.append("| " + " | ".join(_md_cell(row[c.title], c) for c in table.columns) + " |")
    if not table.rows:
        lines.append("| " + " | ".join(MISSING for _ in table.columns) + " |")
    lines += ["", *(f"{md_text(n)}" for n in table.notes)]
    return "\n".join(lines).rstrip() + "\n"


RENDERERS = {"latex": to_latex, "csv": to_csv, "markdown": to_markdown}


def render(table: Table, fmt: str) -> str:
    """The table in `fmt` (latex, csv or markdown); ValueError names the formats for anything else."""
    if fmt not in RENDERERS:
        raise ValueError(f"unknown table format {fmt!r}; use one of {', '.join(RENDERERS)}")
    return RENDERERS[fmt](table)


def render_all(tables: Sequence[Table], fmt: str) -> str:
    """Every table in one text (CSV tables are each preceded by a `# key: title` line)."""
    parts = []
    for table in tables:
        body = render(table, fmt)
        parts.append(f"# {table.key}: {one_line(table.title)}\n{body}" if fmt == "csv" else body)
    return "\n".join(parts)


def standalone_latex(tables: Sequence[Table]) -> str:
    """A minimal document that inputs every table file (compile it next to them)."""
    inputs = "\n".join(rf"\input{{{_file_key(t)}.tex}}" for t in tables)
    return (
        "\\documentclass{article}\n\\usepackage[T1]{fontenc}\n\\usepackage{booktabs}\n"
        "\\usepackage[margin=2cm,landscape]{geometry}\n\\begin{document}\n" + inputs + "\n\\end{document}\n"
    )


def write_tables(tables: Sequence[Table], fmt: str, out_dir: Path) -> list[Path]:
    """One file per table (`<key>.<ext>`), plus `tables.tex` for LaTeX; returns the paths written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for table in tables:
        path = out_dir / f"{_file_key(table)}.{FORMATS[fmt]}"
        path.write_text(render(table, fmt), encoding="utf-8")
        written.append(path)
    if fmt == "latex":
        path = out_dir / STANDALONE_NAME
        path.write_text(standalone_latex(tables), encoding="utf-8")
        written.append(path)
    return written


def table_files(tables: Sequence[Table], fmt: str) -> dict[str, str]:
    """The files `write_tables` would write, as name -> text (for a zip download)."""
    files = {f"{_file_key(t)}.{FORMATS[fmt]}": render(t, fmt) for t in tables}
    if fmt == "latex":
        files[STANDALONE_NAME] = standalone_latex(tables)
    return files



def number(value: object, spec: str = ".1f", *, scale: float = 1.0, suffix: str = "") -> str:
    """A possibly missing number as text for any surface: `MISSING` (an em dash) for None, NaN or an infinity,
    else `format(value * scale, spec) + suffix` (the one helper pages, the CLI and reports share)."""
    if is_missing(value) or not isinstance(value, int | float):
        return MISSING
    return format(value * scale, spec) + suffix


def interval(
    lo: object, hi: object, spec: str = "+.1f", *, scale: float = 1.0, suffix: str = "", sep: str = " .. "
) -> str:
    """`lo .. hi` through `number`; one MISSING when either end is missing."""
    if is_missing(lo) or is_missing(hi):
        return MISSING
    return number(lo, spec, scale=scale, suffix=suffix) + sep + number(hi, spec, scale=scale, suffix=suffix)
