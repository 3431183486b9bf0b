"""The Trace page's larger panels: code per attempt with diffs, retrieval hits with the library searched,
and two trials side by side."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import streamlit as st

from execugraph import views
from execugraph.steps import GeneratorOutput
from execugraph.text_safety import md_text
from execugraph.views import StepRow
from ui.keys import Trace
from ui.steps import render_steps

if TYPE_CHECKING:
    from execugraph.store import Store, Trial


def hits_panel(store: Store, trial: Trial) -> None:
    """The techniques retrieved for the trial, with the digest of the library they came from."""
    hits = store.hits_for_trial(trial.id)
    ref = views.trial_library(store, trial)
    if not hits and ref is None:
        st.info("No techniques were retrieved for this trial (multi-rag retrieves; so does Synthesize with "
                "retrieval on).")
        return
    st.caption(views.library_caption(ref))
    if hits:
        rows = [{"rank": h.rank, "technique": h.technique_name, "id": h.technique_id, "score": h.score} for h in hits]
        st.dataframe(rows, hide_index=True)
    else:
        st.info("The trial searched this library but recorded no hits (it stopped before its planner ran).")


def code_panel(steps: list[StepRow]) -> None:
    """Each program the trial produced, and the diff between any two of them."""
    attempts = views.code_attempts(steps)
    if not attempts:
        st.info("This trial produced no code (it may have stopped before the generator answered).")
        return
    labels = [a["label"] for a in attempts]
    left, right = st.columns(2)
    if st.session_state.get(Trace.DIFF_FROM) not in labels:
        st.session_state[Trace.DIFF_FROM] = labels[max(0, len(labels) - 2)]
    if st.session_state.get(Trace.DIFF_TO) not in labels:
        st.session_state[Trace.DIFF_TO] = labels[-1]
    before = left.selectbox("From", labels, key=Trace.DIFF_FROM)
    after = right.selectbox("To", labels, key=Trace.DIFF_TO)
    code = {a["label"]: a["code"] for a in attempts}
    diff = views.code_diff(code[before], code[after], before, after)
    st.code(diff or "# the two programs are identical", language="diff")
    for tab, attempt in zip(st.tabs(labels), attempts, strict=True):
        tab.code(attempt["code"], language="python", line_numbers=True)


def _code(step: StepRow) -> str:
    """The program a step wrote ('' for every node but the generator)."""
    return cast(GeneratorOutput, step["output"]).get("code", "")


def compare_panel(store: Store, trial: Trial, steps: list[StepRow]) -> None:
    """This trial next to another of the same problem, with the first point of divergence highlighted."""
    siblings = views.sibling_trials(store, trial.id)
    if not siblings:
        st.info(
            f"No other finished trial of {md_text(trial.problem_id)} yet. Run it under another condition or seed "
            "(Batch page) to compare."
        )
        return
    runs = views.names_of_runs(store, [s["run_id"] for s in siblings])
    about = {
        s["id"]: f"{runs.get(s['run_id'], s['run_id'])} · {s['condition']} · seed {s['seed']} · "
        f"{'passed' if s['passed'] else 'failed'}"
        for s in siblings
    }
    labels = {trial_id: f"#{trial_id} · {text}" for trial_id, text in about.items()}
    if st.session_state.get(Trace.COMPARE) not in labels:
        st.session_state[Trace.COMPARE] = siblings[0]["id"]
    other_id = st.selectbox(
        "Compare with",
        list(labels),
        key=Trace.COMPARE,
        format_func=labels.get,
        help="trials of the same problem; those with the opposite outcome come first",
    )
    other = views.step_rows(store, other_id)
    divergence = views.first_divergence(steps, other)
    if divergence is None:
        st.success("The two trials took identical steps with identical outputs.")
    else:
        st.warning(
            f"First divergence at step {divergence.index + 1}: {divergence.reason}.", icon=":material/call_split:"
        )
        a_code = next((_code(s) for s in steps if s["seq"] == divergence.seq_a), None)
        b_code = next((_code(s) for s in other if s["seq"] == divergence.seq_b), None)
        if a_code is not None and b_code is not None and a_code != b_code:
            st.code(views.code_diff(a_code, b_code, f"trial {trial.id}", f"trial {other_id}"), language="diff")
    left, right = st.columns(2)
    with left:
        st.markdown(f"**Trial #{trial.id}** · {md_text(trial.condition)} · {'passed' if trial.passed else 'failed'}")
        render_steps(steps, store, highlight_seq=divergence.seq_a if divergence else None)
    with right:
        st.markdown(f"**Trial #{other_id}** · {md_text(about[other_id])}")
        render_steps(other, store, highlight_seq=divergence.seq_b if divergence else None)
