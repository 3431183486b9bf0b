"""The cost tables of a report (cost per arm with CIs, paired cost differences, the frontier, matched budgets),
and the cost columns the Statistics page sets beside each accuracy delta. Every value is read from the report's
`cost_comparison`; nothing here computes a statistic."""

from __future__ import annotations

from dataclasses import replace

from execugraph.stats.cost_compare import FRONTIER_METRICS, MODEL_TIME, UNITS
from execugraph.stats.frontier import amount
from execugraph.stats.report_model import StatsReport
from execugraph.stats.tables import CI_PP, INT, MODEL_TIME_NOTE, NUM1, NUM2, PCT, PP, TEXT, Column, P, Table

SHOWN = {"tokens": "tokens", "tokens_in": "tokens in", "tokens_out": "tokens out", "llm_calls": "LLM calls",
         "wallclock_s": "wall-clock s", "model_time_s": "model time s"}
_KIND = {"llm_calls": NUM2}


def _kind(metric: str) -> str:
    return _KIND.get(metric, NUM1)


# Every cost a table shows per arm: model time too, as an em dash where the report did not compute it (it is read
# only for `--cost model-time`, `stats.model_time`).
TABLE_METRICS = (*FRONTIER_METRICS.values(), MODEL_TIME)


def cost_arms_table(report: StatsReport) -> Table:
    """Mean tokens, LLM calls, wall-clock and model time per trial of each arm, each with its 95% CI."""
    rows: list[dict[str, object]] = []
    columns = [Column("arm", "Arm")]
    for metric in TABLE_METRICS:
        columns += [Column(f"{metric}_mean", f"{SHOWN[metric]} mean", _kind(metric)),
                    Column(f"{metric}_lo", f"{SHOWN[metric]} 95% CI low", _kind(metric)),
                    Column(f"{metric}_hi", f"{SHOWN[metric]} 95% CI high", _kind(metric))]
    for arm in report.cost_comparison.arms:
        row: dict[str, object] = {"arm": arm.name}
        for metric in TABLE_METRICS:
            cell = arm.metrics.get(metric)
            row.update({f"{metric}_mean": cell.mean if cell else None, f"{metric}_lo": cell.ci_lo if cell else None,
                        f"{metric}_hi": cell.ci_hi if cell else None})
        rows.append(row)
    notes = ["Mean per trial; 95% interval over problems (problems as clusters). " +
             report.method.get("cost", "").split(". Cost per pair")[0].strip(), MODEL_TIME_NOTE]
    return Table("cost_ci", "Cost per trial with 95% CI", columns, rows, notes)


def cost_pairs_table(report: StatsReport) -> Table:
    """Each comparison's paired per-problem cost difference, metric by metric, Holm-adjusted per metric."""
    rows = [
        {"a": p.a_name, "b": p.b_name, "metric": SHOWN.get(p.metric, p.metric), "n": p.n, "delta": p.delta,
         "lo": p.ci_lo, "hi": p.ci_hi, "p": p.p_signed_rank, "p_holm": p.p_holm}
        for p in report.cost_comparison.pairs
    ]
    columns = [Column("a", "A"), Column("b", "B"), Column("metric", "Cost"), Column("n", "n", INT),
               Column("delta", "Delta per problem", NUM1), Column("lo", "95% CI low", NUM1),
               Column("hi", "95% CI high", NUM1), Column("p", "p (signed-rank)", P), Column("p_holm", "p (Holm)", P)]
    notes = ["Delta: B minus A, the mean over common problems of the per-problem mean cost per trial; 95% "
             "t-interval; exact Wilcoxon signed-rank p; Holm over the family's comparisons, one cost at a time."]
    return Table("cost_paired", "Paired cost differences", columns, rows, notes)


def frontier_table(report: StatsReport, metric: str | None = None) -> Table:
    """The dominated arms on one cost (the report's chosen one by default), each with the arm that dominates it."""
    cost = report.cost_comparison
    m = metric or cost.metric
    _, dominated, _ = cost.for_metric(m)
    rows = [
        {"dominated": d.dominated_name, "by": d.by_name, "delta": d.delta_pp, "ci": (d.ci_lo, d.ci_hi),
         "p_holm": d.p_holm, "saving": d.saving, "lo": d.saving_ci_lo, "hi": d.saving_ci_hi, "p_cost": d.p_holm_cost}
        for d in dominated
    ]
    unit = UNITS.get(m, m)
    columns = [Column("dominated", "Dominated arm"), Column("by", "Dominated by"),
               Column("delta", "Accuracy delta (pp)", PP), Column("ci", "95% CI (pp)", CI_PP),
               Column("p_holm", "p (Holm)", P), Column("saving", f"{unit} saved per problem", _kind(m)),
               Column("lo", "95% CI low", _kind(m)), Column("hi", "95% CI high", _kind(m)),
               Column("p_cost", "p cost (Holm)", P)]
    notes = [report.method.get("frontier", ""), *(d.sentence + "." for d in dominated)]
    if not dominated:
        notes.append(f"No arm of this family is dominated on {unit}.")
    return Table(f"frontier_{m}", f"Accuracy-cost frontier ({unit})", columns, rows, notes)


def matched_budget_table(report: StatsReport, metric: str | None = None) -> Table:
    """Samplers' pass@k at costlier arms' budgets on one cost, paired against them."""
    cost = report.cost_comparison
    m = metric or cost.metric
    _, _, matched = cost.for_metric(m)
    rows = [
        {"sampler": b.sampler_name, "reference": b.reference_name, "k": b.k, "used": min(b.k, b.max_samples),
         "clipped": b.clipped_problems, "at_k": b.sampler_pass_at_k, "ref": b.reference_pass_rate,
         "delta": b.delta_pp, "ci": (b.ci_lo, b.ci_hi), "p": b.p_wilcoxon}
        for b in matched
    ]
    columns = [Column("sampler", "Sampler"), Column("reference", "At the budget of"), Column("k", "k", INT),
               Column("used", "k used", INT), Column("clipped", "Problems clipped", INT),
               Column("at_k", "Sampler pass@k (%)", PCT), Column("ref", "Reference (%)", PCT),
               Column("delta", "Delta (pp)", PP), Column("ci", "95% CI (pp)", CI_PP), Column("p", "p (Wilcoxon)", P)]
    notes = [report.method.get("matched_budget", ""), *(b.sentence + "." for b in matched)]
    return Table(f"matched_budget_{m}", f"Matched-budget baselines ({UNITS.get(m, m)})", columns, rows, notes)


def cost_tables(report: StatsReport) -> list[Table]:
    """The cost tables the report has data for (joined to the accuracy tables by `all_tables.publication_tables`)."""
    cost = report.cost_comparison
    tables = []
    if any(any(c.mean is not None for c in a.metrics.values()) for a in cost.arms):
        tables.append(cost_arms_table(report))
    if cost.pairs:
        tables += [cost_pairs_table(report), frontier_table(report)]
    if cost.for_metric()[2]:
        tables.append(matched_budget_table(report))
    return tables


def with_cost_columns(table: Table, report: StatsReport, metric: str | None = None) -> Table:
    """The paired table with the cost difference of each pair beside its delta (the Statistics page)."""
    m = metric or report.cost_comparison.metric
    by_pair = {(p.a, p.b): p for p in report.cost_comparison.pairs if p.metric == m}
    unit = SHOWN.get(m, m)
    rows = []
    for row, pair in zip(table.rows, report.pairs, strict=True):
        cost = by_pair.get((pair.a, pair.b))
        interval = None
        if cost is not None and cost.ci_lo is not None:
            interval = f"[{amount(cost.ci_lo, m)}, {amount(cost.ci_hi, m)}]"
        rows.append({**row, "cost_delta": cost.delta if cost else None, "cost_ci": interval,
                     "cost_p": cost.p_holm if cost else None})
    at = next((i for i, c in enumerate(table.columns) if c.key == "ci"), len(table.columns) - 1) + 1
    added = [Column("cost_delta", f"Δ {unit} per problem", _kind(m)), Column("cost_ci", f"{unit} 95% CI", TEXT),
             Column("cost_p", f"p {unit} (Holm)", P)]
    return replace(table, columns=[*table.columns[:at], *added, *table.columns[at:]], rows=rows)
