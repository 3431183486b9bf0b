"""The Statistics page's accuracy-cost section: the cost to judge by, the frontier chart with intervals both ways,
one sentence per dominated arm, and the matched-budget baselines (all read from the report's `cost_comparison`)."""

from __future__ import annotations

import streamlit as st

from execugraph.figures.frontier import frontier_figure
from execugraph.safety.inert_text import md_text
from execugraph.stats.cost_compare import FRONTIER_METRICS, MODEL_TIME, MODEL_TIME_CHOICE, UNITS
from execugraph.stats.cost_tables import matched_budget_table
from execugraph.stats.report_model import StatsReport
from ui.keys import Statistics
from ui.publish import chart, table_view

CHOICES = {"tokens": "tokens", "calls": "LLM calls", "wallclock": "wall-clock seconds",
           MODEL_TIME_CHOICE: "model time (seconds in LLM calls)"}


def chosen_metric() -> str:
    """The metric the page's cost choice names (tokens by default)."""
    choice = str(st.session_state.get(Statistics.COST))
    return MODEL_TIME if choice == MODEL_TIME_CHOICE else FRONTIER_METRICS.get(choice, "tokens")


def report_cost() -> str:
    """The `cost` to build the page's report with: model-time when chosen (it is read only then), else tokens."""
    return MODEL_TIME_CHOICE if st.session_state.get(Statistics.COST) == MODEL_TIME_CHOICE else "tokens"


def cost_picker() -> str:
    """The cost to judge by; returns its metric."""
    st.radio("Cost", list(CHOICES), key=Statistics.COST, format_func=CHOICES.__getitem__, horizontal=True,
             help="the cost beside each delta, on the frontier and in the matched budgets")
    return chosen_metric()


def frontier(report: StatsReport, metric: str) -> None:
    """Who dominates whom on `metric`, the chart, and the samplers at costlier arms' budgets."""
    points, dominated, matched = report.cost_comparison.for_metric(metric)
    if not points:
        return
    unit = UNITS.get(metric, metric)
    st.subheader("Accuracy and cost")
    if dominated:
        st.markdown("\n".join(f"- {md_text(d.sentence)}." for d in dominated))
    else:
        st.markdown(f"No arm of this family is dominated on {md_text(unit)}.")
    figure = frontier_figure(report, metric)
    if figure is not None:
        chart(figure, key=f"stats.frontier.{metric}", name=f"frontier_{metric}")
    if matched:
        st.markdown("**Matched-budget baselines**")
        st.markdown("\n".join(f"- {md_text(b.sentence)}." for b in matched))
        table_view(matched_budget_table(report, metric), key=f"stats.matched.{metric}")
