"""The Trace page below its header: imported once the header is on screen, so plotly, pandas and the step
drawers load while the trial's numbers are already shown (on a loaded machine the page was blank for a minute)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import streamlit as st

from execugraph.figures import charts
from execugraph.safety.inert_text import md_text
from ui import protocol_parts, url_state, views
from ui.keys import Trace
from ui.publish import plot
from ui.steps import render_steps
from ui.trace_parts import code_panel, compare_panel, hits_panel
from ui.views.grading import recorded_grading
from ui.widgets import empty_state

if TYPE_CHECKING:
    from execugraph.store import Store, Trial
    from ui.views import StepRow


CHARTED = ("step_id", "seq", "node", "attempt", "start_s", "duration_s", "llm_calls", "tokens_in", "tokens_out",
           "cache_hits")  # every field of a step the timeline shows


def data_version(steps: list[StepRow]) -> tuple[Any, ...]:
    """What changes the timeline: a step added, a step ended, a call's cost recorded."""
    return tuple(tuple(s.get(field) for field in CHARTED) for s in steps)


@st.cache_resource(max_entries=64, show_spinner=False)
def _timeline(database: str, trial_id: int, version: tuple[Any, ...], _steps: list[StepRow]) -> Any:
    """The step timeline, built once per (database, trial, data version) for every session (plotly costs CPU)."""
    return charts.step_timeline(_steps)


def draw(store: Store, trial: Trial, steps: list[StepRow]) -> None:
    """Time limits, findings, notes, then the open tab (steps, code, retrieval hits or a comparison)."""
    limits_note = views.trial_time_limits(store, trial.id)  # CPU limit, backstop, and how near the program came
    if limits_note:
        st.caption(md_text(limits_note))  # test names may come from a published log: shown, never rendered
    finding = views.trial_findings(store, trial.id)  # e.g. the program redefines builtins the tests call
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
            plot(_timeline(store.url, trial.id, data_version(steps), steps), key="trace.timeline")
            render_steps(steps, store, calls=True, trial_id=trial.id)
    if code_tab.open:
        with code_tab:
            code_panel(steps)
    if hits_tab.open:
        with hits_tab:
            hits_panel(store, trial)
    if compare_tab.open:
        with compare_tab:
            compare_panel(store, trial, steps)
