"""Batch page: launch condition comparisons from a form (with the detectable difference shown first),
and watch running batches progress, cancel or resume them."""

import streamlit as st

from execugraph.batch.control import enqueue_batch
from execugraph.benchmarks import file_benchmark_names
from execugraph.domain.vocabulary import FEEDBACK_SOURCES
from ui import matched_budget_form, page_start, protocol_parts, resources, views
from ui.batch_form import grid_inputs, model_axis_input, problem_source, sequential_design, spec_from_form
from ui.batch_parts import launched_notice, progress_panel, scroll_to_launched, sequential_plan
from ui.keys import Batch
from ui.widgets import model_pickers, read_only_notice, show_model_problems

store = page_start.open_page("Batch")
settings = resources.settings()
st.caption(
    "Every problem x condition x seed x trial is queued and run by the background worker; results are paired "
    "by problem for the statistics."
)
progress_panel(store)
scroll_to_launched()

st.subheader("New batch")
if read_only_notice(store, "Launching a batch"):
    st.stop()
left, right = st.container(), st.container()  # one above the other: side by side, labels broke mid-word at 800 px
with left:
    benchmark, problems, options = problem_source(settings.cache_dir / "uploads")
    grid_inputs(problems)
with right:
    choices, why_missing = resources.model_choices(settings.ollama_host)
    default_model, models = model_pickers(Batch.DEFAULT_MODEL, Batch.ROLE_MODEL, choices, why_missing)
    axis_error = None
    try:
        model_axis = model_axis_input(choices)
    except ValueError as exc:  # a model that is no spec: named in the form's error below
        model_axis, axis_error = {}, exc
    st.selectbox("Feedback tests", FEEDBACK_SOURCES, key=Batch.FEEDBACK)
    protocol_parts.protocol_select(protocol_parts.BATCH_PROTOCOL)
    st.text_input("Title (optional)", key=Batch.TITLE)
    st.slider("Expected baseline pass rate (for planning)", 0.0, 0.95, step=0.05, key=Batch.BASELINE)

spec = plan = None
try:
    if axis_error is not None:
        raise axis_error
    spec = protocol_parts.with_protocol(spec_from_form(benchmark, options, default_model, models, model_axis),
                                        protocol_parts.BATCH_PROTOCOL)
    if problems:
        plan = views.plan_batch(spec, problems, st.session_state[Batch.BASELINE])
        design = sequential_design(plan.mdd_pp)
        if design is not None:
            spec = type(spec)(**(spec.model_dump() | {"sequential": design.model_dump()}))
        spec = matched_budget_form.with_matched_budget(spec)  # "Match the budget of condition X"
except ValueError as exc:  # pydantic's ValidationError is a ValueError
    spec = None  # never launch a batch other than the one the form describes
    st.error(f"Fix the form: {views.readable_error(exc)}", icon=":material/error:")

if plan is not None:
    st.info(plan.describe(), icon=":material/straighten:")
    if spec is not None and spec.sequential is not None and plan.problems >= 2:
        st.info(sequential_plan(plan.problems, plan.seeds * plan.trials_per_seed, st.session_state[Batch.BASELINE],
                                spec.sequential.model_dump_json(), len(spec.arms) - 1),
                icon=":material/fast_forward:")
elif not problems and benchmark in file_benchmark_names():
    st.info(f"Upload a {benchmark} JSONL file to plan the batch.", icon=":material/upload_file:")

if st.button("Launch batch", type="primary", key=Batch.LAUNCH, disabled=plan is None or spec is None,
             icon=":material/rocket_launch:"):
    axis_models = list(spec.model_axis.values()) if spec is not None and spec.model_axis else [default_model]
    missing = views.model_problems([*axis_models, *models.values()], settings.ollama_host)
    if missing:
        show_model_problems(missing)
    else:
        try:
            st.session_state[Batch.LAUNCHED] = st.session_state[Batch.SCROLL_TO] = enqueue_batch(store, spec, problems)
        except ValueError as exc:  # e.g. a technique library that cannot be read: nothing was queued
            st.error(f"Not launched: {exc}", icon=":material/error:")
        else:
            resources.start_worker(resources.db_url())
            st.rerun()
if st.session_state[Batch.LAUNCHED] is not None:
    launched_notice(store, st.session_state[Batch.LAUNCHED])
