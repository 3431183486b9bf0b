"""Trace page: one trial step by step (timeline, prompts, code per attempt, sandbox results, retrieval hits),
and side by side with another trial of the same problem."""

import streamlit as st

from execugraph.figures import charts
from execugraph.safety.inert_text import md_text
from ui import access, keys, protocol_parts, resources, url_state, views
from ui.keys import Trace
from ui.publish import plot
from ui.steps import render_steps
from ui.trace_parts import code_panel, compare_panel, hits_panel
from ui.trace_picker import pick_trial
from ui.views.grading import recorded_grading
from ui.widgets import duration, empty_state

keys.init_state(st.session_state)
access.guard_page()  # nothing of the page before sign-in, routed or not
store = resources.store()
st.title("Trace")
trial_id = pick_trial(store)
if trial_id is None:
    url_state.stop()

trial = store.get_trial(trial_id)
steps = views.step_rows(store, trial_id)
# A wrapping row of content-wide metrics: six equal columns cut "passed" to "pa..." at 800 px.
row = st.container(horizontal=True, gap="large")
row.metric("Outcome", "passed" if trial.passed else trial.status if trial.status != "done" else "failed", width="content")
row.metric("Tests", f"{trial.tests_passed}/{trial.tests_total}", width="content")
row.metric("Retries", trial.retries_used, width="content")
row.metric("Wall clock", duration(trial.wallclock_s), width="content")
row.metric("Tokens", f"{trial.tokens_in + trial.tokens_out:,}", width="content")
row.metric("LLM calls", trial.llm_calls, width="content")
limits_note = views.trial_time_limits(store, trial_id)  # CPU limit, backstop, and how near the program came
if limits_note:
    st.caption(md_text(limits_note))  # test names may come from a published log: shown, never rendered
finding = views.trial_findings(store, trial_id)  # e.g. the program redefines builtins the tests call
if finding:
    st.warning(md_text(finding[0].upper() + finding[1:] + "."), icon=":material/policy:")
if recorded_grading(store, trial, steps) is not None:  # imported or rescored: no agent steps to replay
    recorded_tab, recorded_compare_tab = st.tabs(["Recorded", "Compare"], key=Trace.TAB, on_change="rerun")
    if recorded_tab.open:
        with recorded_tab:
            protocol_parts.recorded_panel(store, trial, steps)
    if recorded_compare_tab.open:
        with recorded_compare_tab:
            compare_panel(store, trial, steps)
    url_state.stop()
protocol_parts.protocol_caption(trial, steps)
if trial.message and trial.status == "done":  # a finished trial's message is a note (e.g. retries without progress)
    st.info(md_text(trial.message), icon=":material/info:")
elif trial.message:
    st.error(md_text(trial.message), icon=":material/error:")
if not steps:
    empty_state("This trial has no recorded steps yet (it is queued, or stopped before its first agent ran).")
    url_state.stop()

# Only the open tab is drawn (a switch reruns the page): the Compare tab alone draws two whole trials.
steps_tab, code_tab, hits_tab, compare_tab = st.tabs(
    ["Steps", "Code per attempt", "Retrieval hits", "Compare"], key=Trace.TAB, on_change="rerun"
)
if steps_tab.open:
    with steps_tab:
        plot(charts.step_timeline(steps), key="trace.timeline")
        render_steps(steps, store, calls=True)
if code_tab.open:
    with code_tab:
        code_panel(steps)
if hits_tab.open:
    with hits_tab:
        hits_panel(store, trial)
if compare_tab.open:
    with compare_tab:
        compare_panel(store, trial, steps)
url_state.flush()  # this run's URL writes in one update: one history entry, one Back press
