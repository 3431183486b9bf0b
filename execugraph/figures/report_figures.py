"""The figures of one statistics report, as the Statistics and Ablations pages draw them and the export writes them.

An arm without graded trials (none counted, or every one ended in an error) has no rate to draw: its bars,
points and comparisons are left out and named under the chart, never drawn at 0%.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import plotly.graph_objects as go

from execugraph.figures import charts
from execugraph.figures.frontier import frontier_figure
from execugraph.stats.paired import ALPHA
from execugraph.stats.report_model import StatsReport
from execugraph.stats.report_rows import arm_rate_rows, category_rows, error_rows, family_rows

SIGNIFICANT = f"pink: Holm-adjusted p < {ALPHA:g}"


def no_data_arms(report: StatsReport) -> list[str]:
    """Names of the report's arms that have no graded trials, in report order."""
    return [a.shown for a in report.arms if not a.graded_trials]


def _blank(rows: Sequence[Mapping[str, object]], empty: set[str]) -> list[dict[str, object]]:
    """Rows of arms without graded trials lose their rate (the charts leave them out and name them)."""
    return [{**r, "pass_rate": None} if str(r["arm"]) in empty else dict(r) for r in rows]


def comparison_title(report: StatsReport) -> str:
    """What the comparison figure shows, in the family's own terms."""
    family = report.family
    if family.is_baseline:
        return f"Each arm minus {family.baseline_name} (pp, 95% CI; {SIGNIFICANT})"
    return f"Delta b - a (pp, 95% CI; {SIGNIFICANT})"


def comparison_figure(report: StatsReport) -> go.Figure | None:
    """The family as a forest plot, or as a delta matrix when all pairs of many arms would make a forest unreadable.

    Comparisons with an arm that has no graded trials are left out (its delta would be drawn from nothing).
    """
    empty = set(no_data_arms(report))
    rows, dropped = [], []
    for r in family_rows(report):
        without = [str(r[side]) for side in ("a", "b") if str(r[side]) in empty]
        dropped += without
        if not without:
            rows.append(r)
    note = charts.no_data_note(dropped, "comparisons left out")
    if not rows:
        return None
    all_pairs = not report.family.is_baseline
    if all_pairs and len(rows) > charts.FOREST_MAX_ROWS:
        names = [a.shown for a in report.arms]
        title = f"All pairs: row minus column (pp; *: Holm-adjusted p < {ALPHA:g}), {len(rows)} comparisons"
        return charts.delta_matrix(rows, names, title=title, note=note)
    return charts.forest(rows, title=comparison_title(report), note=note)


def retry_note(report: StatsReport) -> str | None:
    """Why series or arms are not in the retry-budget curve (the report's `retry_budget_missing`)."""
    notes = [m.note for m in report.retry_budget_missing]
    return "Not a sweep: " + "; ".join(notes) if notes else None


def report_figures(report: StatsReport, *, cost_metric: str = "LLM calls") -> dict[str, go.Figure]:
    """name -> figure for every chart the report has data for (the names become file names)."""
    empty = set(no_data_arms(report))
    empty_labels = {a.label for a in report.arms if not a.graded_trials}
    points = [p.model_dump() for p in report.cost_vs_accuracy]
    points = [{**p, "pass_rate": None} if p["arm"] in empty_labels else p for p in points]
    figures = {
        "pass_rates": charts.rate_bars(_blank(arm_rate_rows(report), empty),
                                       title="Pass rate by arm (95% CI over problems)"),
        "categories": charts.category_bars(_blank(category_rows(report), empty)),
    }
    comparison = comparison_figure(report)
    if comparison is not None:
        figures["comparisons"] = comparison
    if report.retry_budgets:  # only sweeps: every series there has two or more budgets
        rows = [r.model_dump() for r in report.retry_budgets]
        figures["retry_budget"] = charts.retry_curve(rows, note=retry_note(report))
    figures["cost_accuracy"] = charts.cost_accuracy(points, cost_metric)
    frontier = frontier_figure(report)
    if frontier is not None:
        figures["frontier"] = frontier
    errors = error_rows(report)
    if errors:
        figures["errors"] = charts.error_stacks(errors)
    return figures
