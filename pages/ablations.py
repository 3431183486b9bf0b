"""Ablations page: pass rate by arm and category with CIs, each arm against a reference arm (Holm over that
family), the retry-budget curve, cost against accuracy, the error taxonomy and the sampling control, all from the one statistics
report; every chart downloads as SVG/PDF and the tables as LaTeX/CSV/Markdown."""

import streamlit as st

from execugraph.figures import charts
from execugraph.figures.report_figures import report_figures
from execugraph.safety.inert_text import md_text, one_line
from execugraph.stats import UnknownConditionError, UnknownRunError
from execugraph.stats.tables import ablation_table, has_sampling_control, sampling_table
from execugraph.store import run_reads
from ui import keys, page_start, resources, statistics_url, url_state, views
from ui.keys import Ablations
from ui.publish import chart, table_view, tables_download
from ui.widgets import empty_state, run_picker

store = page_start.open_page("Ablations")
page_start.stop_without_runs(store, "No runs yet. Launch a batch that compares conditions (e.g. single-oneshot, "
                              "single-retry, multi-full and the multi-no-* ablations).")
run_ids = run_picker(
    Ablations.RUNS,
    store,
    label="Runs (one batch compares its conditions)",
    fallback=lambda: [r for r in [run_reads.latest_finished_run(store, "batch")] if r],
    url=True,
)
if not run_ids:
    empty_state(
        "Pick a batch above: its conditions become the arms compared here. Several runs compare run against run."
    )
    url_state.stop()
try:
    names = dict(resources.arms(run_ids))
    by_condition = [label for label in names if label.split(":")[-1] == views.REFERENCE_CONDITION]
    default_reference = (by_condition or list(names))[0]
    statistics_url.adopt_choice("reference", Ablations.REFERENCE, list(names), "Reference arm")
    if st.session_state.get(Ablations.REFERENCE) not in names:
        st.session_state[Ablations.REFERENCE] = default_reference
    reference = st.selectbox(
        "Reference arm for the deltas", list(names), key=Ablations.REFERENCE, format_func=lambda a: one_line(names[a]),
        help="every other arm is compared with this one; Holm's correction runs over those comparisons",
    )
    url_state.publish("reference", Ablations.REFERENCE, reference, default=default_reference)
    report = resources.report(run_ids, baseline=reference)
except (UnknownRunError, UnknownConditionError, ValueError) as exc:
    st.error(f"Cannot build the report: {md_text(exc)}", icon=":material/error:")
    url_state.stop()
for flagged in views.ungraded_flags(report):
    st.warning(f"**{md_text(flagged['arm'])}**: {md_text(flagged['flag'])}", icon=":material/warning:")
if not any(a.trials for a in report.arms):
    empty_state(
        "These runs have no finished trials yet. Watch them on the Batch page; this page fills in as they finish.",
        page="pages/batch.py",
        label="Batch progress",
    )
    url_state.stop()

statistics_url.adopt_choice("cost", Ablations.COST_METRIC, list(charts.COST_METRICS), "Cost measure")
if st.session_state.get(Ablations.COST_METRIC) not in charts.COST_METRICS:
    st.session_state[Ablations.COST_METRIC] = keys.DEFAULTS[Ablations.COST_METRIC]
metric = st.session_state[Ablations.COST_METRIC]
figures = report_figures(report, cost_metric=metric)
left, right = st.columns(2)
with left:
    chart(figures["pass_rates"], key="abl.rates", name="pass_rates")
with right:
    chart(figures["categories"], key="abl.categories", name="categories")
if "comparisons" in figures:
    chart(figures["comparisons"], key="abl.deltas", name="deltas")
elif report.excluded:
    st.info("No arm can be compared with the reference: " + "; ".join(
        f"{md_text(x.b_name)}: {md_text(x.reason)}" for x in report.excluded
    ))
else:
    st.info("Only one arm: add runs or pick a batch with several conditions to see deltas.")

left, right = st.columns(2)
with left:
    if "retry_budget" in figures:
        chart(figures["retry_budget"], key="abl.retry", name="retry_budget")
    else:
        st.info(
            "The retry-budget curve needs one condition run at two or more budgets on one benchmark "
            "(e.g. multi-full@0, multi-full@1 and multi-full@3); different conditions are never joined."
        )
    for missing in report.retry_budget_missing:
        st.caption(md_text(missing.note))
with right:
    metric = st.radio("Cost measure", list(charts.COST_METRICS), key=Ablations.COST_METRIC, horizontal=True)
    url_state.publish("cost", Ablations.COST_METRIC, metric, default=keys.DEFAULTS[Ablations.COST_METRIC])
    chart(figures["cost_accuracy"], key="abl.cost", name="cost_accuracy")

if "errors" in figures:
    chart(figures["errors"], key="abl.errors", name="errors")
else:
    st.success("No failed trials: there is no error taxonomy to show.")
if report.unknown_budget:
    unknown = [a.name for a in report.arms if a.label in report.unknown_budget]
    st.caption(f"Arms without a known retry budget (left out of the curve): {md_text(', '.join(unknown))}.")

if has_sampling_control(report):
    st.subheader("Sampling control")
    table_view(sampling_table(report), key="abl.sampling")
st.subheader("Ablation table")
table_view(ablation_table(report), key="abl.table")
tables_download(report, key=Ablations.TABLES, stem="ablations")
url_state.flush()  # this run's URL writes in one update: one history entry, one Back press
