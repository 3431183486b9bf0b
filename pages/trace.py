"""Trace page: one trial step by step (timeline, prompts, code per attempt, sandbox results, retrieval hits),
and side by side with another trial of the same problem."""

import streamlit as st

from ui import page_start, url_state, views
from ui.trace_picker import pick_trial
from ui.widgets import duration

store = page_start.open_page("Trace")
trial_id = pick_trial(store)
if trial_id is None:
    url_state.stop()

trial = store.get_trial(trial_id)
# A wrapping row of content-wide metrics: six equal columns cut "passed" to "pa..." at 800 px. The gap is also the
# space between wrapped rows: "large" (4 rem) opened a band almost a metric high between them at 800 px.
row = st.container(horizontal=True, gap="medium")
row.metric("Outcome", "passed" if trial.passed else trial.status if trial.status != "done" else "failed", width="content")
row.metric("Tests", f"{trial.tests_passed}/{trial.tests_total}", width="content")
row.metric("Retries", trial.retries_used, width="content")
row.metric("Wall clock", duration(trial.wallclock_s), width="content")
row.metric("Tokens", f"{trial.tokens_in + trial.tokens_out:,}", width="content")
row.metric("LLM calls", trial.llm_calls, width="content")
# The steps (a query over the trial's calls and sandbox runs) and the rest (plotly, pandas, the step drawers) are
# read and imported only now: under load the header shows meanwhile.
steps = views.step_rows(store, trial_id)
from ui import trace_body  # noqa: E402

trace_body.draw(store, trial, steps)
url_state.flush()  # this run's URL writes in one update: one history entry, one Back press
