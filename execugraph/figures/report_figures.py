"""The figures of one statistics report, as the Statistics and Ablations pages draw them and the export writes them.

An arm without graded trials (none counted, or every one ended in an error) has no rate to draw: its bars,
points and comparisons are left out and named under the chart, never drawn at 0%.
"""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go

from execugraph.figures import charts
from execugraph.stats.paired import ALPHA
from execugraph.stats.report_rows import arm_rate_rows, category_rows, error_rows, family_rows

SIGNIFICANT = f"pink: Holm-adjusted p < {ALPHA:g}"


def graded_trials(arm: dict[str, Any]) -> int:
    """An arm section's graded trials: its counted trials less those that ended in an error (never graded)."""
    return max(int(arm.get("trials") or 0) - int((arm.get("ungraded") or {}).get("errors") or 0), 0)


def no_data_arms(report: dict[str, Any]) -> list[str]:
    """Names of the report's arms that have no graded trials, in report order."""
    return [str(a.get("name") or a["label"]) for a in report.get("arms", []) if not graded_trials(a)]


def _blank(rows: list[dict[str, Any]], empty: set[str]) -> list[dict[str, Any]]:
    """Rows of arms without graded trials lose their rate (the charts leave them out and name them)."""
    return [{**r, "pass_rate": None} if str(r["arm"]) in empty else r for r in rows]


def comparison_title(report: dict[str, Any]) -> str:
    """What the comparison figure shows, in the family's own terms."""
    family = report.get("family") or {}
    if family.get("mode") == "baseline":
        return f"Each arm minus {family.get('baseline_name')} (pp, 95% CI; {SIGNIFICANT})"
    return f"Delta b - a (pp, 95% CI; {SIGNIFICANT})"


def comparison_figure(report: dict[str, Any]) -> go.Figure | None:
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
    all_pairs = (report.get("family") or {}).get("mode") != "baseline"
    if all_pairs and len(rows) > charts.FOREST_MAX_ROWS:
        names = [str(a.get("name") or a["label"]) for a in report["arms"]]
        title = f"All pairs: row minus column (pp; *: Holm-adjusted p < {ALPHA:g}), {len(rows)} comparisons"
        return charts.delta_matrix(rows, names, title=title, note=note)
    return charts.forest(rows, title=comparison_title(report), note=note)


def retry_note(report: dict[str, Any]) -> str | None:
    """Why series or arms are not in the retry-budget curve (the report's `retry_budget_missing`)."""
    notes = [m["note"] for m in report.get("retry_budget_missing", [])]
    return "Not a sweep: " + "; ".join(notes) if notes else None


def report_figures(report: dict[str, Any], *, cost_metric: str = "LLM calls") -> dict[str, go.Figure]:
    """name -> figure for every chart the report has data for (the names become file names)."""
    empty = set(no_data_arms(report))
    empty_labels = {a["label"] for a in report.get("arms", []) if not graded_trials(a)}
    points = [{**p, "pass_rate": None} if p["arm"] in empty_labels else p for p in report.get("cost_vs_accuracy", [])]
    figures = {
        "pass_rates": charts.rate_bars(_blank(arm_rate_rows(report), empty),
                                       title="Pass rate by arm (95% CI over problems)"),
        "categories": charts.category_bars(_blank(category_rows(report), empty)),
    }
    comparison = comparison_figure(report)
    if comparison is not None:
        figures["comparisons"] = comparison
    if report.get("retry_budgets"):  # only sweeps: every series there has two or more budgets
        figures["retry_budget"] = charts.retry_curve(report["retry_budgets"], note=retry_note(report))
    figures["cost_accuracy"] = charts.cost_accuracy(points, cost_metric)
    errors = error_rows(report)
    if errors:
        figures["errors"] = charts.error_stacks(errors)
    return figures
