"""Synthesize page: type a problem, choose a condition and models, and watch each agent step as it completes."""

import streamlit as st

from execugraph import views
from execugraph.conditions import DESCRIPTIONS, condition_names
from ui import keys, resources
from ui.jobs import SynthesisJob
from ui.keys import Syn
from ui.steps import render_steps
from ui.widgets import model_pickers, show_model_problems

keys.init_state(st.session_state)
store = resources.store()
st.title("Synthesize")
st.caption("Describe a programming problem. The agents plan, write, review, run and explain a solution; "
           "every candidate is judged by running it in the sandbox.")
choices, why_missing = resources.model_choices(resources.settings().ollama_host)

with st.form("syn.form"):
    left, right = st.columns([3, 2], gap="large")
    with left:
        st.text_area("Problem statement", key=Syn.STATEMENT, height=150,
                     placeholder="Return the length of the longest strictly increasing subsequence of nums.")
        with st.expander("Entry point, aliases and tests (optional)"):
            a, b = st.columns(2)
            a.text_input("Entry point", key=Syn.ENTRY_POINT, placeholder="lengthOfLIS")
            b.text_input("Aliases", key=Syn.ALIASES, placeholder="length_of_lis, lis")
            st.text_input("Signature", key=Syn.SIGNATURE, placeholder="def lengthOfLIS(nums: list[int]) -> int")
            st.radio("Tests", views.TEST_MODES, key=Syn.TESTS_MODE, horizontal=True)
            rows = st.data_editor(st.session_state[Syn.TEST_ROWS_DATA], key=Syn.TEST_ROWS, num_rows="dynamic",
                                  hide_index=True, column_config={
                                      "call": st.column_config.TextColumn("Call", help="e.g. lengthOfLIS([1, 3, 2])"),
                                      "expected": st.column_config.TextColumn("Expected", help="JSON or a Python literal"),
                                      "visible": st.column_config.CheckboxColumn("Visible", help="may feed the retry loop")})
            st.text_area("Assert source", key=Syn.ASSERT_SOURCE, height=100,
                         placeholder="def check(candidate):\n    assert candidate([1, 3, 2]) == 2")
            st.text_input("Assert call", key=Syn.ASSERT_CALL)
    with right:
        condition = st.selectbox("Condition", condition_names(), key=Syn.CONDITION)
        st.caption(DESCRIPTIONS.get(condition, ""))
        default_model, models = model_pickers(Syn.DEFAULT_MODEL, Syn.ROLE_MODEL, choices, why_missing)
        a, b = st.columns(2)
        a.selectbox("Retry budget", [views.CONDITION_DEFAULT, *map(str, range(0, 11))], key=Syn.RETRY_BUDGET)
        b.selectbox("Retrieval", [views.CONDITION_DEFAULT, "on", "off"], key=Syn.RETRIEVAL)
        a.selectbox("Feedback tests", ["grading", "visible", "generated"], key=Syn.FEEDBACK,
                    help="which tests feed the retry loop: all grading tests, the visible ones, or model-written ones")
        b.number_input("Test timeout (s)", min_value=0.5, max_value=600.0, step=0.5, key=Syn.TIMEOUT)
        st.text_input("Run title (optional)", key=Syn.TITLE)
    submitted = st.form_submit_button("Synthesize", type="primary", key=Syn.SUBMIT, icon=":material/play_arrow:")

job = st.session_state[Syn.JOB]
if submitted:
    request = views.SynthesisRequest(
        st.session_state[Syn.STATEMENT], condition, st.session_state[Syn.ENTRY_POINT], st.session_state[Syn.ALIASES],
        st.session_state[Syn.SIGNATURE], st.session_state[Syn.TESTS_MODE], list(rows), st.session_state[Syn.ASSERT_SOURCE],
        st.session_state[Syn.ASSERT_CALL], default_model, models, st.session_state[Syn.RETRY_BUDGET],
        st.session_state[Syn.RETRIEVAL], st.session_state[Syn.FEEDBACK], st.session_state[Syn.TIMEOUT])
    scripted = st.session_state.get(keys.TEST_CHAT_MODELS)
    try:
        problem, config = request.build()
    except ValueError as exc:
        st.error(f"Cannot start: {exc}", icon=":material/error:")
    else:
        host = resources.settings().ollama_host
        problems = [] if scripted else views.model_problems(views.models_needed(config, problem), host)
        if problems:
            show_model_problems(problems)
        elif job is not None and not job.done:
            st.warning("A synthesis is still running; wait for it to finish.", icon=":material/hourglass:")
        else:
            job = SynthesisJob(store, problem, config, title=st.session_state[Syn.TITLE], chat_models=scripted).start()
            st.session_state[Syn.JOB] = job


@st.fragment(run_every=1.0)
def live(job: SynthesisJob) -> None:
    """Redrawn every second while the trial runs; hands over to a full rerun when it ends."""
    steps, running = job.steps()
    render_steps(steps, store)
    st.caption(f":material/hourglass_top: {running or 'the workflow'} is working...")
    if job.done:
        st.rerun()


st.divider()
if job is None:
    st.info("Results appear here step by step once you press **Synthesize**. Past runs are on the Runs page.",
            icon=":material/info:")
elif not job.done:
    st.subheader(f"Running {job.config.condition} on {job.problem.id}")
    live(job)
elif job.error or job.result is None:
    st.error(f"The synthesis could not run: {job.error}", icon=":material/error:")
else:
    result = job.result
    if result.status != "done":
        st.error(f"The trial stopped with an error: {result.message}", icon=":material/error:")
    else:
        (st.success if result.passed else st.warning)(
            f"{'Passed' if result.passed else 'Failed'}: {result.verdict}, {result.tests_passed}/{result.tests_total} "
            f"{result.test_source or ''} tests, {result.retries_used} retries.")
    st.page_link("pages/trace.py", label=f"Open run #{job.run_id}, trial {result.trial_id} in Trace",
                 query_params={"trial": str(result.trial_id)}, icon=":material/timeline:")
    if result.final_code:
        st.code(result.final_code, language="python", line_numbers=True)
    if result.explanation:
        st.markdown(result.explanation)
    render_steps(views.step_rows(store, result.trial_id), store)
