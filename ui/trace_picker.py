"""The Trace page's trial picker: follows `?run=` / `?trial=` links, filters a run's trials, keeps the URL shareable."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import streamlit as st

from execugraph.safety.inert_text import one_line
from execugraph.store import run_reads, trace_reads
from ui import url_state, views
from ui.keys import Trace
from ui.widgets import empty_state

if TYPE_CHECKING:
    from execugraph.store import Store

ANY = "any"
LIMIT = 500
_RESET = {Trace.CONDITION: ANY, Trace.PROBLEM: ANY, Trace.OUTCOME: ANY}


def follow_links(store: Store) -> None:
    """Apply a `?run=` or `?trial=` link once (later choices on the page are not overridden)."""
    run = st.query_params.get("run")
    if run and run.isdigit() and st.session_state.get("_trace.linked_run") != run:
        st.session_state["_trace.linked_run"] = run
        st.session_state.update({Trace.RUN: int(run), Trace.TRIAL: None, **_RESET})
    trial = st.query_params.get("trial")
    if trial and trial.isdigit() and st.session_state.get("_trace.linked") != trial:
        st.session_state["_trace.linked"] = trial
        if (target := store.get_trial(int(trial))) is not None:
            st.session_state.update({Trace.RUN: target.run_id, Trace.TRIAL: target.id, **_RESET})
        else:
            st.warning(f"Trial {trial} from the link does not exist in this database.", icon=":material/warning:")


def _outcome(t: dict[str, Any]) -> str:
    return "passed" if t["passed"] else "failed" if t["status"] == "done" else t["status"]


def trial_label(t: dict[str, Any]) -> str:
    """'#12 fizzbuzz · multi-full · seed 0 · trial 1 · passed' (never 'seed 0.0', which reads as a number)."""
    return (f"#{t['id']} {t['problem_id']} · {t['condition']} · seed {t['seed']} · trial {t['trial_index']} · "
            f"{_outcome(t)}")


def pick_trial(store: Store) -> int | None:
    """Run, filters and trial selectors; None (after saying why) when there is nothing to show."""
    follow_links(store)
    wanted = st.session_state.get(Trace.RUN)
    runs = dict(views.run_choices(store, include=[wanted] if wanted else []))
    if not runs:
        empty_state(
            "No runs yet. Synthesize a problem or launch a batch, then step through its trials here.",
            page="pages/synthesize.py",
            label="Synthesize a problem",
        )
        return None
    if wanted not in runs:
        latest = run_reads.latest_finished_run(store)
        st.session_state[Trace.RUN] = latest if latest in runs else next(iter(runs))
    top = st.columns([3, 2, 2, 2])  # 1: at 800 px the Outcome box showed "a" of "any"
    run_id = top[0].selectbox("Run", list(runs), key=Trace.RUN, format_func=lambda r: one_line(runs[r]))
    options = views.trial_filter_choices(store, run_id)
    filters = (
        (Trace.CONDITION, "Condition", options["condition"]),
        (Trace.PROBLEM, "Problem", options["problem"]),
        (Trace.OUTCOME, "Outcome", list(views.OUTCOMES)),
    )
    for column, (key, name, values) in zip(top[1:], filters, strict=True):
        if st.session_state.get(key) not in [ANY, *values]:
            st.session_state[key] = ANY
        column.selectbox(name, [ANY, *values], key=key, format_func=one_line)
    chosen = {key: None if st.session_state[key] == ANY else st.session_state[key] for key, _, _ in filters}
    trials = trace_reads.trial_rows(
        store,
        run_id,
        condition=chosen[Trace.CONDITION],
        problem_id=chosen[Trace.PROBLEM],
        outcome=chosen[Trace.OUTCOME],
        limit=LIMIT,
    )
    if not trials:
        empty_state("No trial of this run matches the filters. Set them back to 'any', or pick another run.")
        return None
    labels = {t["id"]: trial_label(t) for t in trials}
    if st.session_state.get(Trace.TRIAL) not in labels:
        finished = (t["id"] for t in trials if t["status"] in ("done", "error"))
        st.session_state[Trace.TRIAL] = next(finished, trials[0]["id"])
    shown = f"{len(trials)}{'+' if len(trials) == LIMIT else ''} shown"
    trial_id = st.selectbox(f"Trial ({shown})", list(labels), key=Trace.TRIAL,
                            format_func=lambda t: one_line(labels[t]))
    _name_in_url(run_id, trial_id)
    st.session_state.update({"_trace.linked": str(trial_id), "_trace.linked_run": str(run_id)})
    return trial_id


def _name_in_url(run_id: int, trial_id: int) -> None:
    """Write `?run=&trial=` only when the address does not already name this view.

    Streamlit pushes a history entry for every query-string change, so a rewrite on arrival made leaving
    Trace take two Back presses: links into Trace carry both ids, and a bare `/trace` (the sidebar) stays
    bare until the user picks another trial.
    """
    params = {"run": str(run_id), "trial": str(trial_id)}
    bare = "run" not in st.query_params and "trial" not in st.query_params
    if bare and st.session_state.get("_trace.bare") in (None, (run_id, trial_id)):
        st.session_state["_trace.bare"] = (run_id, trial_id)
        return
    st.session_state.pop("_trace.bare", None)
    if any(url_state.get(name) != value for name, value in params.items()):
        url_state.write(params)


def link_params(store: Store, run_id: int, trial_id: int | None = None) -> dict[str, str]:
    """`{"run": .., "trial": ..}` for a link into Trace: the trial Trace would open first when none is given."""
    if trial_id is None:
        trials = trace_reads.trial_rows(store, run_id, condition=None, problem_id=None, outcome=None, limit=LIMIT)
        finished = (t["id"] for t in trials if t["status"] in ("done", "error"))
        trial_id = next(finished, trials[0]["id"] if trials else None)
    return {"run": str(run_id)} if trial_id is None else {"run": str(run_id), "trial": str(trial_id)}
