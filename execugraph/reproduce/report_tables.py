"""The tables of a reproduction: the runs (pass rates and flips), and per family the conclusions, the paired
tables under each set of verdicts and the analysis tables (category, ablation, retry sweep, cost, errors,
sampling control, cross-model) under the published verdicts.

Every table is a `stats.tables.Table`, so it is written as LaTeX, CSV and Markdown
exactly as the `report` command writes its tables, and `table_json` puts its raw
values into reproduce.json.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from execugraph.domain.json_types import JsonObject
from execugraph.grading.rules import PROTOCOLS
from execugraph.reproduce.sections import RunSection
from execugraph.stats.all_tables import publication_tables
from execugraph.stats.paired import ALPHA
from execugraph.stats.report_model import StatsReport
from execugraph.stats.tables import INT, MISSING, PCT, PP, TEXT, Column, P, Table, paired_table
from execugraph.verdicts.flip_reasons import CAUSE_LABELS
from execugraph.verdicts.verdict_sets import PUBLISHED, VERDICT_SETS

FIGURE_CAPTIONS = {
    "pass_rates": "pass rate by run (95% CI over problems), published verdicts",
    "categories": "pass rate by category, published verdicts",
    "comparisons": "paired comparisons, published verdicts",
    "retry_budget": "pass rate and cost by retry budget, published verdicts",
    "cost_accuracy": "pass rate against LLM calls per trial, published verdicts",
    "errors": "error taxonomy of failed trials, published verdicts",
    "frontier": "accuracy-cost frontier on tokens per trial (95% intervals both ways), published verdicts",
    "protocols": "each comparison as published and rescored under each protocol",
    "amplified": "each comparison under the original and the amplified (stronger) tests",
}


def figure_caption(name: str) -> str:
    """What a family's figure shows."""
    return FIGURE_CAPTIONS.get(name, name.replace("_", " "))


def _cell(value: Any) -> Any:
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[1], str):
        return value[0]  # a p-value with its method mark
    if isinstance(value, tuple):
        return list(value)  # a CI
    return value


def table_json(table: Table) -> JsonObject:
    """A table's raw values for reproduce.json (rates in [0, 1], deltas in pp, CIs as [lo, hi])."""
    return {
        "title": table.title,
        "columns": [{"key": c.key, "title": c.title, "kind": c.kind} for c in table.columns],
        "rows": [{c.key: _cell(row.get(c.key)) for c in table.columns} for row in table.rows],
        "notes": list(table.notes),
    }


def run_tables(runs: list[RunSection]) -> list[Table]:
    """Pass rate of every run as published and under each protocol, and its flips by cause."""
    rows = []
    for run in runs:
        row = {"run": run.name, "benchmark": run.benchmark or MISSING, "trials": run.trials,
               PUBLISHED: run.published.pass_rate}
        for protocol in PROTOCOLS:
            row[protocol] = run.protocols[protocol].rate.pass_rate
            row[f"flips_{protocol}"] = run.protocols[protocol].flips
        row["kept"] = run.protocols[PROTOCOLS[0]].kept_as_published
        rows.append(row)
    columns = [Column("run", "Run"), Column("benchmark", "Benchmark"), Column("trials", "Trials", INT),
               Column(PUBLISHED, "Published (%)", PCT)]
    columns += [Column(p, f"{p} (%)", PCT) for p in PROTOCOLS]
    columns += [Column(f"flips_{p}", f"Flips ({p})", INT) for p in PROTOCOLS]
    columns.append(Column("kept", "Not rerun", INT))
    notes = ["Pass rate: passed trials / trials. Under a protocol, each trial's rescored verdict; a trial that "
             "could not be rerun (no program, problem not found: 'Not rerun') keeps its published verdict."]
    tables = [Table("runs", "Pass rate per run, as published and rescored", columns, rows, notes)]
    causes = list(dict.fromkeys(c for run in runs for p in PROTOCOLS for c in run.protocols[p].flips_by_cause))
    flip_rows = []
    for run in runs:
        for protocol in PROTOCOLS:
            counts = run.protocols[protocol].flips_by_cause
            if counts:
                flip_rows.append({"run": run.name, "protocol": protocol, "flips": run.protocols[protocol].flips,
                                  **{c: counts.get(c, 0) for c in causes}})
    if flip_rows:
        flip_columns = [Column("run", "Run"), Column("protocol", "Protocol"), Column("flips", "Flips", INT)]
        flip_columns += [Column(c, CAUSE_LABELS.get(c, c), INT) for c in causes]
        tables.append(Table("flips", "Flipped verdicts by reason", flip_columns, flip_rows,
                            ["Each flip is counted under its first (most telling) cause; reproduce.json lists every "
                             "flip with its full reason."]))
    return tables


def conclusions_table(section: JsonObject) -> Table:
    """Each comparison's delta and Holm p under every set of verdicts, and whether the conclusion survives."""
    rows = []
    for c in section["comparisons"]:
        row: dict[str, object] = {"a": c["a"], "b": c["b"], "n": c[PUBLISHED]["n"]}
        for name in VERDICT_SETS:
            row[f"delta_{name}"] = c[name]["delta_pp"]
            row[f"p_{name}"] = c[name]["p_holm"]
            if name != PUBLISHED:
                row[f"survives_{name}"] = "yes" if c["survives"][name] else "no"
        rows.append(row)
    columns = [Column("a", "A"), Column("b", "B"), Column("n", "n", INT)]
    for name in VERDICT_SETS:
        columns += [Column(f"delta_{name}", f"Delta {name} (pp)", PP), Column(f"p_{name}", f"p Holm {name}", P)]
        if name != PUBLISHED:
            columns.append(Column(f"survives_{name}", f"Holds ({name})", TEXT))
    notes = [f"Delta: B minus A over the n common problems. Holds: the same direction and the same side of {ALPHA:g} "
             "after Holm as under the published verdicts."]
    return Table(f"{section['slug']}-conclusions", f"{section['name']}: does each conclusion hold?", columns, rows,
                 notes)


def family_tables(section: JsonObject, reports: dict[str, StatsReport]) -> list[Table]:
    """The family's tables: conclusions, paired under each set of verdicts, then the analysis tables."""
    slug, name = section["slug"], section["name"]
    tables = [conclusions_table(section)] if section["comparisons"] else []
    for verdicts in VERDICT_SETS:
        if reports[verdicts].pairs:
            table = paired_table(reports[verdicts])
            what = "published verdicts" if verdicts == PUBLISHED else f"rescored under {verdicts}"
            tables.append(replace(table, key=f"{slug}-paired-{verdicts}", title=f"{name}: paired comparisons, {what}"))
    for table in publication_tables(reports[PUBLISHED]):
        if table.key == "paired":
            continue
        tables.append(replace(table, key=f"{slug}-{table.key}", title=f"{name}: {table.title} (published verdicts)"))
    return tables
