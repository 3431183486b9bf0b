"""Synthesize page: type a problem, choose a condition and models, and watch each agent step as it completes."""

import streamlit as st

from execugraph.safety.inert_text import md_text, one_line
from ui import keys, page_start, protocol_parts, resources, views
from ui.jobs import SynthesisJob
from ui.keys import Synthesize
from ui.synthesize_parts import live, problem_inputs, request, result_panel, run_settings
from ui.views import problem_pick
from ui.widgets import read_only_notice, show_model_problems

store = page_start.open_page("Synthesize")
st.caption(
    "Describe a programming problem. The agents plan, write, review, run and explain a solution; "
    "every candidate is judged by running it in the sandbox."
)
if read_only_notice(store, "Synthesizing"):
    st.stop()
choices, why_missing = resources.model_choices(resources.settings().ollama_host)

left, right = st.columns([3, 2], gap="large")
with left:
    rows = problem_inputs()
    # Under the statement, not under the taller settings column: above the fold at 1400x1000.
    submitted = st.button("Synthesize", type="primary", key=Synthesize.SUBMIT, icon=":material/play_arrow:")
with right:
    default_model, models = run_settings(choices, why_missing)

job = st.session_state[Synthesize.JOB]
if submitted:
    scripted = st.session_state.get(keys.TEST_CHAT_MODELS)  # the documented test hook (see ui/keys.py)
    try:
        problem, config = request(rows, default_model, models).build()
        config = protocol_parts.with_protocol(config, protocol_parts.SYN_PROTOCOL)
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
            job = SynthesisJob(store, problem, config, title=st.session_state[Synthesize.TITLE], chat_models=scripted).start()
            st.session_state[Synthesize.JOB] = job

st.divider()
if job is None:
    st.info(
        "Results appear here step by step once you press **Synthesize**. Past runs are on the Runs page.",
        icon=":material/info:",
    )
elif not job.done:
    st.subheader(f"Running {job.config.condition} on {md_text(one_line(problem_pick.problem_name(job.problem)))}")
    live(job, store)
elif job.error or job.result is None:
    st.error(f"The synthesis could not run: {job.error}", icon=":material/error:")
else:
    result_panel(job, store)
