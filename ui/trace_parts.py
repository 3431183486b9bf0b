"""The Trace page's larger panels: code per attempt with diffs, retrieval hits with the library searched,
and two trials side by side."""

from __future__ import annotations

from typing import TYPE_CHECKING

import streamlit as st

from execugraph.safety.inert_text import md_text, one_line
from ui import views
from ui.keys import Trace
from ui.steps import render_steps
from ui.views import StepRow, trial_compare

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


def _verdicts(trial_id: int, verdicts: list[trial_compare.Verdict]) -> None:
    """One line: the trial's verdict under each verdict set (published or as run, then each rescore)."""
    st.markdown(f"**Trial #{trial_id}** verdicts: {md_text(trial_compare.verdict_line(verdicts))}")


def _attempt_side(code: str, trial_id: int, number: int, reason: str) -> None:
    st.caption(f"Trial #{trial_id}, attempt {number} ({md_text(reason)})")
    st.code(code or "# (this attempt wrote no code)", language="python", line_numbers=True)


def _code_comparison(trial_id: int, other_id: int, comparison: trial_compare.Comparison) -> None:
    """The final programs as a unified diff, then each attempt next to the same-numbered one."""
    st.markdown("**Final code**")
    for tid, code in ((trial_id, comparison.final_a), (other_id, comparison.final_b)):
        if not code:
            st.caption(f"Trial #{tid} produced no code.")
    st.code(comparison.final_diff or "# the two final programs are identical", language="diff")
    if not comparison.attempts:
        return
    st.markdown("**Code per attempt**")
    for pair in comparison.attempts:
        if pair.a is not None and pair.b is not None:
            diff = pair.diff(f"trial {trial_id}", f"trial {other_id}")
            with st.expander(f"Attempt {pair.number}: {'differs' if diff else 'identical'}"):
                st.caption(f"Trial #{trial_id}: {md_text(pair.a.reason)} · trial #{other_id}: {md_text(pair.b.reason)}")
                st.code(diff or "# the two attempts are identical", language="diff")
            continue
        if pair.a is not None:
            present, shown, lacking = pair.a, trial_id, other_id
        else:
            assert pair.b is not None  # align_attempts pairs only numbers one side has
            present, shown, lacking = pair.b, other_id, trial_id
        with st.expander(f"Attempt {pair.number}: only trial #{shown}"):
            st.caption(f"Trial #{lacking}: no attempt {pair.number}")
            _attempt_side(present.code, shown, pair.number, present.reason)


def _side(store: Store, trial_id: int, header: str, steps: list[StepRow], highlight: int | None) -> None:
    st.markdown(header)
    if trial_compare.has_agent_steps(steps):
        render_steps(steps, store, highlight_seq=highlight)
    else:
        st.caption(f"Trial #{trial_id} has no agent steps (imported from a published log, or rescored).")


def compare_panel(store: Store, trial: Trial, steps: list[StepRow]) -> None:
    """This trial next to another of the same problem: where they first diverged, their verdicts under every
    verdict set, their final code and each attempt diffed, and both step lists."""
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
        format_func=lambda t: one_line(labels[t]),
        help="trials of the same problem; those with the opposite outcome come first",
    )
    other_trial = store.get_trial(other_id)
    if other_trial is None:  # deleted since the list was read
        st.warning(f"Trial {other_id} no longer exists.", icon=":material/warning:")
        return
    other = views.step_rows(store, other_id)
    divergence = None
    if trial_compare.has_agent_steps(steps) and trial_compare.has_agent_steps(other):
        divergence = views.first_divergence(steps, other)
        if divergence is None:
            st.success("The two trials took identical steps with identical outputs.")
        else:
            st.warning(
                f"First divergence at step {divergence.index + 1}: {divergence.reason}.", icon=":material/call_split:"
            )
    else:
        st.caption("One of the two trials has no agent steps to line up (imported or rescored): "
                   "compare their recorded code and verdicts.")
    comparison = trial_compare.compare(store, trial, steps, other_trial, other)
    _verdicts(trial.id, comparison.verdicts_a)
    _verdicts(other_id, comparison.verdicts_b)
    _code_comparison(trial.id, other_id, comparison)
    left, right = st.columns(2)
    with left:
        header = f"**Trial #{trial.id}** · {md_text(trial.condition)} · {'passed' if trial.passed else 'failed'}"
        _side(store, trial.id, header, steps, divergence.seq_a if divergence else None)
    with right:
        _side(store, other_id, f"**Trial #{other_id}** · {md_text(about[other_id])}", other,
              divergence.seq_b if divergence else None)
