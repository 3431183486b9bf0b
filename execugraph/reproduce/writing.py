"""Write a reproduction to a folder: report.md, report.html, tables/, figures/ and reproduce.json.

Figures are rendered to SVG by kaleido in the Debian chromium (`figures.static`);
without it every other file is still written, the report says the figures are
missing at the top, and `write_study` returns the reason.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from execugraph.domain.json_types import JsonObject
from execugraph.grading.rules import PROTOCOLS
from execugraph.reproduce.document import Bullets, Document, Figure, Heading, Paragraph, TableBlock
from execugraph.reproduce.progress import Progress
from execugraph.reproduce.report_tables import table_json
from execugraph.reproduce.study import Study
from execugraph.stats.power import power_sentence
from execugraph.stats.table_format import number, render, standalone_latex
from execugraph.verdicts.flip_reasons import CAUSE_LABELS
from execugraph.verdicts.verdict_sets import PUBLISHED

REPORT_MD, REPORT_HTML, DATA_JSON = "report.md", "report.html", "reproduce.json"


def _pct(rate: float | None) -> str:
    return number(rate, ".1f", scale=100.0, suffix="%")


def _run_lines(study: Study) -> list[str]:
    lines = []
    for run in study.data["runs"]:
        parts = [f"**{run['name']}** ({run['benchmark'] or 'unknown benchmark'}, {run['trials']} trials): "
                 f"published {_pct(run[PUBLISHED]['pass_rate'])}"]
        for protocol in PROTOCOLS:
            section = run[protocol]
            causes = ", ".join(f"{n} {CAUSE_LABELS.get(c, c)}" for c, n in section["flips_by_cause"].items())
            flips = f"{section['flips']} flipped" + (f": {causes}" if causes else "")
            parts.append(f"{protocol} {_pct(section['pass_rate'])} ({flips})")
        lines.append("; ".join(parts) + ".")
    return lines


def _summary(study: Study) -> str:
    data = study.data
    runs = data["runs"]
    trials = sum(r["trials"] for r in runs)
    dataset = data["input"]["dataset"]
    with_file = f" with the benchmark file {dataset['file']} ({dataset['problems']} problems)" if dataset else ""
    comparisons = [c for f in data["families"] for c in f["comparisons"]]
    hold = {p: sum(1 for c in comparisons if c["survives"][p]) for p in PROTOCOLS}
    held = "; ".join(f"{hold[p]} of {len(comparisons)} hold under {p}" for p in PROTOCOLS)
    return (
        f"{len(runs)} run(s), {trials} trials, imported from {data['input']['results']}{with_file}, every program "
        f"rescored under {' and '.join(PROTOCOLS)} in sandbox policy {data['sandbox']['policy_version']} on the "
        f"tests each trial was graded with. {len(comparisons)} comparison(s) in {len(data['families'])} "
        f"family(ies): {held or 'none'}."
    )


MAX_FLIPS_LISTED = 200  # flips listed in report.md/html; reproduce.json holds every one


def flip_lines(runs: list[JsonObject]) -> list[str]:
    """One line per flip of reproduce.json's `runs`, run by run and protocol by protocol, with its full reason
    (untrusted text: shown plain)."""
    out = []
    for run in runs:
        for protocol in PROTOCOLS:
            for f in run[protocol].get("flip_list", []):
                out.append(f"{run['name']} · {protocol} · {f.get('problem_id')} [{f.get('condition')} seed "
                           f"{f.get('seed')} trial {f.get('trial_index')}]: {f.get('from')} -> {f.get('to')}: "
                           f"{f.get('reason') or 'no reason recorded'}")
    return out


def suites_text(section: JsonObject, warnings: list[str]) -> str:
    """What the amplified tests say about a family, in words; when some run could not be graded on them, which
    and why (its warning), so a reader of the report alone sees the section is missing, not empty."""
    suites = section["suites"]
    if not suites.get("available"):
        missing = list(suites.get("missing") or [])
        why = [w for w in warnings if any(w.startswith(f"{name}: ") for name in missing) and "amplified" in w]
        runs = ", ".join(missing) or "some run"
        return (f"Not available for this family: {runs} could not be graded on amplified tests, so no comparison "
                "is shown under stronger tests" + (f" ({'; '.join(why)})." if why else " (see the warnings)."))
    comparisons = suites["comparisons"]
    held = sum(1 for c in comparisons if c["holds"])
    return (f"Graded again on the amplified tests ({', '.join(suites['suites'])}): {held} of {len(comparisons)} "
            f"conclusion(s) hold; {suites['changed_programs']} program(s) change verdict (tables below).")


def family_power(section: JsonObject, runs: list[JsonObject]) -> str:
    """The family's power warning in words ('' when its comparisons have problems enough for a 20 pp difference):
    from its smallest comparison, with trials per problem estimated from its runs."""
    sizes = [int(c[PUBLISHED]["n"]) for c in section["comparisons"] if c.get(PUBLISHED)]
    if not sizes:
        return ""
    problems = min(sizes)
    trials = [int(r["trials"]) for r in runs if r["name"] in set(section["runs"])]
    per_problem = max(1, min(trials, default=problems) // max(1, problems))
    sentence = power_sentence(problems, per_problem)
    return f"Power: {sentence}." if sentence else ""


def build_document(study: Study, svgs: dict[str, str | None]) -> Document:
    """The report as blocks (see `document`), with the rendered figures."""
    data = study.data
    doc = Document(f"Reproduction of {data['input']['results']}")
    doc.add(Paragraph(_summary(study)))
    if data["warnings"]:
        doc.add(Heading("Warnings"), Bullets(list(data["warnings"]), kind="warning"))
    doc.add(Heading("Runs"), Bullets(_run_lines(study)))
    doc.add(*(TableBlock(t) for t in study.run_tables))
    flips = flip_lines(data["runs"])
    if flips:
        doc.add(Heading("Every flipped verdict", 3), Bullets(flips[:MAX_FLIPS_LISTED], plain=True))
        if len(flips) > MAX_FLIPS_LISTED:
            doc.add(Paragraph(f"{len(flips) - MAX_FLIPS_LISTED} more in reproduce.json."))
    for section, tables, figures in zip(data["families"], study.family_tables, study.family_figures, strict=True):
        doc.add(Heading(section["name"]))
        doc.add(Paragraph(f"Runs: {', '.join(section['runs'])} ({section['source']}; {section['mode']}; Holm over "
                          f"the {section['holm_family_size'][PUBLISHED]} comparison(s) of this family)."))
        if section["comparisons"]:
            doc.add(Heading("Does each conclusion hold?", 3), Bullets([c["sentence"] for c in section["comparisons"]]))
            power = family_power(section, data["runs"])
            if power:
                doc.add(Paragraph(power))
        if section.get("cost") and section["comparisons"]:
            cost = section["cost"]
            doc.add(Heading("Accuracy and cost", 3), Bullets(cost["dominance"], plain=True))
            if cost["matched_budget"]:
                doc.add(Paragraph("Matched-budget baselines:"), Bullets(cost["matched_budget"], plain=True))
        for x in section["excluded"]:
            doc.add(Paragraph(f"Not compared: {x['b']} vs {x['a']} ({x['reason']})."))
        if "suites" in section:
            doc.add(Heading("Conclusions under stronger tests", 3), Paragraph(suites_text(section, data["warnings"])))
        if "contamination_window" in section:  # `--released-after` / `--cutoff` (execugraph.reproduce.windows)
            lines = [x.removeprefix("- ") for x in section["contamination_window"]["lines"][1:] if x and x[0] == "-"]
            doc.add(Heading("Contamination window", 3), Bullets(lines))
        if "breakdowns" in section:  # difficulty / platform (execugraph.reproduce.facets)
            doc.add(Heading("By difficulty and platform", 3),
                    Bullets([x.removeprefix("- ") for x in section["breakdowns"]["lines"] if x.startswith("- ")]))
        doc.add(Heading("Tables", 3), *(TableBlock(t) for t in tables))
        if figures:
            doc.add(Heading("Figures", 3))
            doc.add(*(Figure(f"{name}.svg", study.figure_captions.get(name, name), svgs.get(name)) for name in figures))
    doc.add(Heading("Method and versions"))
    method = data["method"]
    doc.add(Bullets([
        "Grading protocols: " + "; ".join(f"**{k}**: {v}" for k, v in data["protocols"].items()) + ".",
        f"Tests: {method['tests']}.",
        f"Trials not rerun: {method['kept_verdicts']}.",
        f"Conclusion: {method['conclusion']}; pass-rate CIs: Wilson score interval over problems; paired-delta "
        "CIs: Newcombe's method 10 (Wilson margins with the corrected correlation), which never collapse to zero "
        "width on few problems.",
        f"Sandbox: policy {data['sandbox']['policy_version']}, default {data['sandbox']['default_timeout_s']:g} s "
        f"of CPU and {data['sandbox']['default_memory_mb']} MB per test ({data['sandbox']['note']}).",
        "Versions: " + ", ".join(f"{k} {v}" for k, v in data["versions"].items()) + ".",
        "Every number above is in reproduce.json; the tables are in tables/ as LaTeX (tables.tex inputs them all) "
        "and CSV.",
    ]))
    return doc


def _render_figures(study: Study, progress: Progress) -> tuple[dict[str, str | None], str | None]:
    """name -> SVG text of every figure (None each when chromium could not render them), and why not."""
    from execugraph.figures.static import FigureExportError, render_many

    named = [(name, fig) for figures in study.family_figures for name, fig in figures.items()]
    if not named:
        return {}, None
    progress.update("figures", 0.0, f"rendering {len(named)} figure(s)")
    try:
        images = render_many([(fig, "svg") for _, fig in named])
    except FigureExportError as exc:
        return {name: None for name, _ in named}, str(exc)
    progress.update("figures", 1.0, "figures rendered")
    return {name: data.decode("utf-8") for (name, _), data in zip(named, images, strict=True)}, None


def write_study(study: Study, out_dir: Path, progress: Progress | None = None, *, figures: bool = True) -> str | None:
    """Write every output into `out_dir`; returns why the figures are missing, or None when all was written."""
    progress = progress or Progress()
    out_dir.mkdir(parents=True, exist_ok=True)
    svgs, problem = _render_figures(study, progress) if figures else ({}, "figures were not asked for")
    if problem is not None and figures:
        study.data["warnings"].insert(0, f"figures not rendered: {problem}")
    progress.update("write", 0.0, "writing the report")
    tables_dir, figures_dir = out_dir / "tables", out_dir / "figures"
    tables_dir.mkdir(exist_ok=True)
    for table in study.tables:
        (tables_dir / f"{table.key}.tex").write_text(render(table, "latex"), encoding="utf-8")
        (tables_dir / f"{table.key}.csv").write_text(render(table, "csv"), encoding="utf-8")
    (tables_dir / "tables.tex").write_text(standalone_latex(study.tables), encoding="utf-8")
    written_figures = {name: svg for name, svg in svgs.items() if svg is not None}
    if written_figures:
        figures_dir.mkdir(exist_ok=True)
        for name, svg in written_figures.items():
            (figures_dir / f"{name}.svg").write_text(svg, encoding="utf-8")
    doc = build_document(study, svgs)
    from execugraph.reproduce.document import to_html_text, to_markdown_text

    (out_dir / REPORT_MD).write_text(to_markdown_text(doc), encoding="utf-8")
    (out_dir / REPORT_HTML).write_text(to_html_text(doc), encoding="utf-8")
    study.data["outputs"] = {
        "report": [REPORT_MD, REPORT_HTML],
        "tables": sorted(f"tables/{t.key}.{ext}" for t in study.tables for ext in ("tex", "csv")) + ["tables/tables.tex"],
        "figures": sorted(f"figures/{name}.svg" for name in written_figures),
    }
    study.data["tables"] = {t.key: table_json(t) for t in study.tables}
    (out_dir / DATA_JSON).write_text(json.dumps(_jsonable(study.data), indent=2, sort_keys=False) + "\n",
                                     encoding="utf-8")
    progress.update("write", 1.0, f"written to {out_dir}")
    return problem


def _jsonable(value: Any) -> Any:
    """Plain JSON: no NaN or infinity (None instead), tuples as lists, datetimes as ISO text."""
    import math
    from datetime import datetime

    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, datetime):
        return value.isoformat()
    return value
