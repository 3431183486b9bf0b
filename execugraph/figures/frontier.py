"""The accuracy-cost frontier as a Plotly figure: each arm at (mean cost per trial, pass rate) with 95% intervals
in both directions, the frontier drawn through the arms nobody dominates, dominated arms in grey.

Built from the report's `cost_comparison` only (no streamlit), so the Statistics page draws it and the export and
reproduce write it as SVG/PDF.
"""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from execugraph.figures.charts import ERROR_BAR, add_note, inert_text
from execugraph.figures.theme import COLORWAY, NOTE_COLOUR
from execugraph.stats.cost_compare import UNITS
from execugraph.stats.cost_sections import Dominance, FrontierPoint
from execugraph.stats.report_model import StatsReport


def _gap(value: float | None, other: float | None, scale: float = 1.0) -> float:
    return 0.0 if value is None or other is None else abs(value - other) * scale


def frontier_figure(report: StatsReport, metric: str | None = None) -> go.Figure | None:
    """The frontier on `metric` (tokens, llm_calls or wallclock_s; default: the report's chosen cost), None
    without any arm that has both a pass rate and that cost."""
    m = metric or report.cost_comparison.metric
    points, dominated, _ = report.cost_comparison.for_metric(m)
    return _chart(points, dominated, m) if points else None


@inert_text
def _chart(points: Sequence[FrontierPoint], dominated: Sequence[Dominance], m: str) -> go.Figure:
    unit = UNITS.get(m, m)
    fig = go.Figure()
    on = sorted((p for p in points if p.on_frontier), key=lambda p: p.cost)
    off = [p for p in points if not p.on_frontier]
    for group, name, colour in ((on, "on the frontier", COLORWAY[0]), (off, "dominated", NOTE_COLOUR)):
        if not group:
            continue
        fig.add_trace(go.Scatter(
            x=[p.cost for p in group],
            y=[100 * p.pass_rate for p in group],
            text=[p.name for p in group],
            customdata=[", ".join(p.dominated_by) or "nobody" for p in group],
            name=name,
            mode="markers+text",
            textposition="top center",
            cliponaxis=False,
            marker={"size": 12, "color": colour},
            error_x={**ERROR_BAR, "type": "data", "symmetric": False,
                     "array": [_gap(p.cost_ci_hi, p.cost) for p in group],
                     "arrayminus": [_gap(p.cost, p.cost_ci_lo) for p in group]},
            error_y={**ERROR_BAR, "type": "data", "symmetric": False,
                     "array": [_gap(p.ci_hi, p.pass_rate, 100) for p in group],
                     "arrayminus": [_gap(p.pass_rate, p.ci_lo, 100) for p in group]},
            hovertemplate="%{text}: %{y:.1f}% at %{x:,.1f} " + unit + " (dominated by %{customdata})<extra></extra>",
        ))
    if len(on) > 1:
        fig.add_trace(go.Scatter(x=[p.cost for p in on], y=[100 * p.pass_rate for p in on], mode="lines",
                                 line={"color": COLORWAY[0], "dash": "dot"}, name="frontier", hoverinfo="skip"))
    fig.update_layout(
        title=f"Accuracy-cost frontier ({unit} per trial; 95% intervals both ways)",
        xaxis_title=f"mean {unit} per trial",
        yaxis={"title": "pass rate (%)", "range": [0, 105]},
        showlegend=True,
    )
    note = ("Dominated: " + "; ".join(f"{d.dominated_name} (by {d.by_name})" for d in dominated)) if dominated else (
        f"No arm is dominated on {unit}.")
    return add_note(fig, note)
