"""Writing `tables.Table`s as LaTeX (booktabs), CSV or Markdown, to text or to a folder.

LaTeX and Markdown show the rounded numbers the dashboard shows; CSV keeps the
raw values (percentages and points unrounded, CIs as two columns) for anyone who
re-plots them. `write_tables` also writes `tables.tex`, a standalone document
that `\\input`s every table, so the LaTeX compiles as it is.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from pathlib import Path

from execugraph.stats.tables import CI_PCT, CI_PP, MISSING, PCT, Column, Table

FORMATS = {"latex": "tex", "csv": "csv", "markdown": "md"}
_LATEX_ESCAPES = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "·": r"$\cdot$",
    "–": "--",
    "†": r"$^\dagger$",
    "<": r"$<$",
    ">": r"$>$",
}
STANDALONE_NAME = "tables.tex"


def latex_escape(text: str) -> str:
    """Text safe inside a LaTeX table cell or caption."""
    return "".join(_LATEX_ESCAPES.get(ch, ch) for ch in text)


def to_latex(table: Table) -> str:
    """One `table` environment with a booktabs `tabular` (needs \\usepackage{booktabs})."""
    spec = "".join("r" if c.numeric else "l" for c in table.columns)
    lines = [
        f"% {table.title} (written by python -m execugraph report)",
        r"\begin{table}[t]",
        r"\centering",
        r"\small",
        rf"\caption{{{latex_escape(table.title)}}}",
        rf"\label{{tab:execugraph-{table.key.replace('_', '-')}}}",
        rf"\begin{{tabular}}{{{spec}}}",
        r"\toprule",
        " & ".join(latex_escape(c.title) for c in table.columns) + r" \\",
        r"\midrule",
    ]
    for row in table.display_rows():
        lines.append(" & ".join(latex_escape(row[c.title]) for c in table.columns) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    if table.notes:
        lines.append(r"\par\smallskip\footnotesize " + " ".join(latex_escape(n) for n in table.notes))
    lines.append(r"\end{table}")
    return "\n".join(lines) + "\n"


def _csv_header(column: Column) -> list[str]:
    if column.kind in (CI_PCT, CI_PP):
        unit = column.title.rpartition("(")[2].rstrip(")") or "value"
        return [f"95% CI low ({unit})", f"95% CI high ({unit})"]
    return [column.title]


def _csv_value(value: object, column: Column) -> list[str]:
    """Raw numbers: rates as percentages, CIs as two cells, missing as empty."""
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


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|")


def to_markdown(table: Table) -> str:
    """A pipe table under a bold title, numeric columns right-aligned, notes below."""
    lines = [f"**{table.title}**", ""]
    lines.append("| " + " | ".join(_md_cell(c.title) for c in table.columns) + " |")
    lines.append("|" + "|".join("---:" if c.numeric else ":---" for c in table.columns) + "|")
    for row in table.display_rows():
        lines.append("| " + " | ".join(_md_cell(row[c.title]) for c in table.columns) + " |")
    if not table.rows:
        lines.append("| " + " | ".join(MISSING for _ in table.columns) + " |")
    lines += ["", *(f"{n}" for n in table.notes)]
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
        parts.append(f"# {table.key}: {table.title}\n{body}" if fmt == "csv" else body)
    return "\n".join(parts)


def standalone_latex(tables: Sequence[Table]) -> str:
    """A minimal document that inputs every table file (compile it next to them)."""
    inputs = "\n".join(rf"\input{{{t.key}.tex}}" for t in tables)
    return (
        "\\documentclass{article}\n\\usepackage[T1]{fontenc}\n\\usepackage{booktabs}\n"
        "\\usepackage[margin=2cm,landscape]{geometry}\n\\begin{document}\n" + inputs + "\n\\end{document}\n"
    )


def write_tables(tables: Sequence[Table], fmt: str, out_dir: Path) -> list[Path]:
    """One file per table (`<key>.<ext>`), plus `tables.tex` for LaTeX; returns the paths written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for table in tables:
        path = out_dir / f"{table.key}.{FORMATS[fmt]}"
        path.write_text(render(table, fmt), encoding="utf-8")
        written.append(path)
    if fmt == "latex":
        path = out_dir / STANDALONE_NAME
        path.write_text(standalone_latex(tables), encoding="utf-8")
        written.append(path)
    return written


def table_files(tables: Sequence[Table], fmt: str) -> dict[str, str]:
    """The files `write_tables` would write, as name -> text (for a zip download)."""
    files = {f"{t.key}.{FORMATS[fmt]}": render(t, fmt) for t in tables}
    if fmt == "latex":
        files[STANDALONE_NAME] = standalone_latex(tables)
    return files

