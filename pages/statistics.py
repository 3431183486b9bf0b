"""Statistics page: the paired comparisons of a family the user defines (all pairs, or each arm against a
baseline; comparable pairs only), with n, problems that differ (the paper's Disc.), majority-discordant, delta,
CI, Wilcoxon and Holm; a forest plot, the pairs left out and why, flips, the same comparisons under both grading
protocols, pass@k and category rates; the same report the CLI prints and exports."""

import streamlit as st

from execugraph.safety.inert_text import md_text, one_line
from execugraph.stats import UnknownConditionError, UnknownRunError
from execugraph.stats.family import Family
from execugraph.store import run_reads
from ui import (
    facet_parts,
    frontier_parts,
    page_start,
    protocol_parts,
    resources,
    sequential_parts,
    statistics_parts,
    statistics_url,
    url_state,
    views,
    window_parts,
)
from ui.family_picker import default_choice, family_picker
from ui.keys import Statistics
from ui.widgets import empty_state, run_picker

store = page_start.open_page("Statistics")
page_start.stop_without_runs(store, "No runs yet. Launch a batch with two or more conditions, then compare them here.")
run_ids = run_picker(
    Statistics.RUNS,
    store,
    fallback=lambda: [r for r in [run_reads.latest_finished_run(store, "batch")] if r],
    help="runs are compared in this order; in all pairs, each pair is later minus earlier",
    url=True,
)
present = run_reads.conditions_in_order(store, run_ids)
linked = statistics_url.adopt_conditions()
url_state.warn_unknown("Conditions", [c for c in linked if c not in present] if run_ids else [])
st.session_state[Statistics.CONDITIONS] = [c for c in st.session_state[Statistics.CONDITIONS] if c in present]
conditions = st.multiselect("Conditions (none = each run's own)", present, key=Statistics.CONDITIONS, format_func=one_line)
statistics_url.publish_conditions(conditions)
if not run_ids:
    empty_state("Pick one run to compare its conditions, or several runs to compare them against each other.")
    url_state.stop()
try:
    arms = resources.arms(run_ids, conditions)
    statistics_url.adopt_family(arms)
    baseline, comparable_only = family_picker(arms)
    statistics_url.publish_family(baseline, comparable_only, default_choice(arms))
    report = resources.report(run_ids, conditions, baseline=baseline, comparable_only=comparable_only,
                              cost=frontier_parts.report_cost())
except (UnknownRunError, UnknownConditionError, ValueError) as exc:
    st.error(f"Cannot build the report: {md_text(exc)}", icon=":material/error:")
    url_state.stop()

for flagged in views.ungraded_flags(report):
    st.warning(f"**{md_text(flagged['arm'])}**: {md_text(flagged['flag'])}", icon=":material/warning:")
cost = frontier_parts.cost_picker() if report.pairs else "tokens"
statistics_parts.comparisons(report)
frontier_parts.frontier(report, cost)
sequential_parts.stops(store, run_ids)
if report.pairs:
    protocol_parts.sensitivity_section(store, run_ids, conditions, baseline=baseline, comparable_only=comparable_only)
window_parts.window_section(store, report, run_ids, conditions, Family(baseline=baseline, comparable_only=comparable_only))
statistics_parts.rates(report)
facet_parts.breakdowns(store, report, run_ids)  # by difficulty and platform, where the problems carry them
statistics_parts.method(report)
statistics_parts.downloads(report)
sequential_parts.replay_section(store, arms, run_ids)
url_state.flush()  # this run's URL writes in one update: one history entry, one Back press
