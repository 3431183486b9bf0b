"""The figures of one statistics report, as the Statistics and Ablations pages draw them and the export writes them."""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go

from execugraph.figures import charts
from execugraph.views.report import arm_rate_rows, category_rows, error_rows, family_rows

SIGNIFICANT = "pink: Holm-adjusted p < 0.05"


def comparison_title(report: dict[str, Any]) -> str:
    """What the comparison figure shows, in the family's own terms."""
    family = report.get("family") or {}
    if family.get("mode") == "baseline":
        return f"Each arm minus {family.get('baseline_name')} (pp, 95% CI; {SIGNIFICANT})"
    return f"Delta b - a (pp, 95% CI; {SIGNIFICANT})"


def comparison_figure(report: dict[str, Any]) -> go.Figure | None:
    """The family as a forest plot, or as a delta matrix when all pairs of many arms would make a forest unreadable."""
    rows = family_rows(report)
    if not rows:
        return None
    all_pairs = (report.get("family") or {}).get("mode") != "baseline"
    if all_pairs and len(rows) > charts.FOREST_MAX_ROWS:
        names = [str(a.get("name") or a["label"]) for a in report["arms"]]
        title = f"All pairs: row minus column (pp; *: Holm-adjusted p < 0.05), {len(rows)} comparisons"
        return charts.delta_matrix(rows, names, title=title)
    return charts.forest(rows, title=comparison_title(report))


def report_figures(report: dict[str, Any], *, cost_metric: str = "LLM calls") -> dict[str, go.Figure]:
    """name -> figure for every chart the report has data for (the names become file names)."""
    figures = {
        "pass_rates": charts.rate_bars(arm_rate_rows(report), title="Pass rate by arm (95% CI over problems)"),
        "categories": charts.category_bars(category_rows(report)),
    }
    comparison = comparison_figure(report)
    if comparison is not None:
        figures["comparisons"] = comparison
    if len(report.get("retry_budgets", [])) >= 2:
        figures["retry_budget"] = charts.retry_curve(report["retry_budgets"])
    figures["cost_accuracy"] = charts.cost_accuracy(report.get("cost_vs_accuracy", []), cost_metric)
    errors = error_rows(report)
    if errors:
        figures["errors"] = charts.error_stacks(errors)
    return figures
