"""Ablations page: pass rate by condition and category with CIs, deltas against multi-full, the retry-budget
curve, cost against accuracy and the error taxonomy, all from the one statistics report."""

import streamlit as st

from execugraph import views
from execugraph.stats import UnknownConditionError, UnknownRunError
from ui import charts, keys, resources
from ui.keys import Abl
from ui.widgets import empty_state, run_picker

keys.init_state(st.session_state)
store = resources.store()
st.title("Ablations")
if not views.run_choices(store, limit=1):
    empty_state(
        "No runs yet. Launch a batch that compares conditions (e.g. single-oneshot, single-retry, multi-full "
        "and the multi-no-* ablations).",
        page="pages/batch.py",
        label="Launch a batch",
    )
    st.stop()
run_ids = run_picker(
    Abl.RUNS,
    store,
    label="Runs (one batch compares its conditions)",
    fallback=lambda: [r for r in [views.latest_finished_run(store, "batch")] if r],
)
if not run_ids:
    empty_state(
        "Pick a batch above: its conditions become the arms compared here. Several runs compare run against run."
    )
    st.stop()
try:
    report = resources.report(run_ids)
except (UnknownRunError, UnknownConditionError, ValueError) as exc:
    st.error(f"Cannot build the report: {exc}", icon=":material/error:")
    st.stop()
for flagged in views.ungraded_flags(report):
    st.warning(f"**{flagged['arm']}**: {flagged['flag']}", icon=":material/warning:")
arms = views.arm_rate_rows(report)
if not any(a["trials"] for a in arms):
    empty_state(
        "These runs have no finished trials yet. Watch them on the Batch page; this page fills in as they finish.",
        page="pages/batch.py",
        label="Batch progress",
    )
    st.stop()

left, right = st.columns(2)
left.plotly_chart(charts.rate_bars(arms, title="Pass rate by arm (95% CI over problems)"), key="abl.rates")
right.plotly_chart(charts.category_bars(views.category_rows(report)), key="abl.categories")

labels = [a["arm"] for a in arms]
if st.session_state.get(Abl.REFERENCE) not in labels:
    st.session_state[Abl.REFERENCE] = next((a for a in labels if a.split(":")[-1] == "multi-full"), labels[0])
reference = st.selectbox("Reference arm for the deltas", labels, key=Abl.REFERENCE)
deltas = views.deltas_against(report, reference)
if deltas:
    st.plotly_chart(
        charts.forest(
            deltas, label="arm", title=f"Each arm minus {reference} (pp, 95% CI; pink: Holm-adjusted p < 0.05)"
        ),
        key="abl.deltas",
    )
else:
    st.info("Only one arm: add runs or pick a batch with several conditions to see deltas.")

left, right = st.columns(2)
with left:
    budgets = report["retry_budgets"]
    if len(budgets) >= 2:
        st.plotly_chart(charts.retry_curve(budgets), key="abl.retry")
    else:
        st.info(
            "The retry-budget curve needs arms with two or more budgets (e.g. single-oneshot and single-retry, "
            "or conditions such as multi-full@1 and multi-full@5)."
        )
with right:
    metric = st.radio("Cost measure", list(charts.COST_METRICS), key=Abl.COST_METRIC, horizontal=True)
    st.plotly_chart(charts.cost_accuracy(report["cost_vs_accuracy"], metric), key="abl.cost")

errors = views.error_rows(report)
if errors:
    st.plotly_chart(charts.error_stacks(errors), key="abl.errors")
else:
    st.success("No failed trials: there is no error taxonomy to show.")
if report["unknown_budget"]:
    st.caption(f"Arms without a known retry budget (left out of the curve): {', '.join(report['unknown_budget'])}.")
