"""Trace page: one trial step by step (timeline, prompts, code per attempt, sandbox results, retrieval hits),
and side by side with another trial of the same problem."""

import streamlit as st

from execugraph import views
from ui import charts, keys, resources
from ui.keys import Trace
from ui.steps import render_steps
from ui.trace_parts import code_panel, compare_panel
from ui.widgets import duration, empty_state

keys.init_state(st.session_state)
store = resources.store()
st.title("Trace")

linked_run = st.query_params.get("run")
if linked_run and linked_run.isdigit() and st.session_state.get("_trace.linked_run") != linked_run:
    st.session_state["_trace.linked_run"] = linked_run
    st.session_state.update({Trace.RUN: int(linked_run), Trace.TRIAL: None, Trace.CONDITION: "any",
                             Trace.PROBLEM: "any", Trace.OUTCOME: "any"})
linked = st.query_params.get("trial")
if linked and linked.isdigit() and st.session_state.get("_trace.linked") != linked:
    st.session_state["_trace.linked"] = linked
    if (target := store.get_trial(int(linked))) is not None:
        st.session_state.update({Trace.RUN: target.run_id, Trace.TRIAL: target.id, Trace.CONDITION: "any",
                                 Trace.PROBLEM: "any", Trace.OUTCOME: "any"})
    else:
        st.warning(f"Trial {linked} from the link does not exist in this database.")

runs = dict(views.run_choices(store))
if not runs:
    empty_state("No runs yet. Synthesize a problem or launch a batch, then step through its trials here.",
                page="pages/synthesize.py", label="Synthesize a problem")
    st.stop()
if st.session_state.get(Trace.RUN) not in runs:
    chosen = st.session_state.get(Trace.RUN)
    if chosen is not None and store.get_run(chosen) is not None:
        runs[chosen] = f"#{chosen} (older run)"
    else:
        latest = views.latest_finished_run(store)
        st.session_state[Trace.RUN] = latest if latest in runs else next(iter(runs))

top = st.columns([3, 2, 2, 1])
run_id = top[0].selectbox("Run", list(runs), key=Trace.RUN, format_func=runs.get)
options = views.trial_filter_choices(store, run_id)
for column, key, name, values in ((top[1], Trace.CONDITION, "Condition", options["condition"]),
                                  (top[2], Trace.PROBLEM, "Problem", options["problem"]),
                                  (top[3], Trace.OUTCOME, "Outcome", list(views.OUTCOMES))):
    if st.session_state.get(key) not in ["any", *values]:
        st.session_state[key] = "any"
    column.selectbox(name, ["any", *values], key=key)


def chosen(key: str) -> str | None:
    return None if st.session_state[key] == "any" else st.session_state[key]


trials = views.trial_rows(store, run_id, condition=chosen(Trace.CONDITION), problem_id=chosen(Trace.PROBLEM),
                          outcome=chosen(Trace.OUTCOME), limit=500)
if not trials:
    empty_state("No trial of this run matches the filters. Set them back to 'any', or pick another run.")
    st.stop()
labels = {t["id"]: f"#{t['id']} {t['problem_id']} · {t['condition']} · seed {t['seed']}.{t['trial_index']} · "
                   f"{'passed' if t['passed'] else t['status'] if t['status'] != 'done' else 'failed'}" for t in trials}
if st.session_state.get(Trace.TRIAL) not in labels:
    st.session_state[Trace.TRIAL] = next((t["id"] for t in trials if t["status"] in ("done", "error")), trials[0]["id"])
trial_id = st.selectbox(f"Trial ({len(trials)}{'+' if len(trials) == 500 else ''} shown)", list(labels),
                        key=Trace.TRIAL, format_func=labels.get)
st.query_params.update({"run": str(run_id), "trial": str(trial_id)})
st.session_state.update({"_trace.linked": str(trial_id), "_trace.linked_run": str(run_id)})

trial = store.get_trial(trial_id)
steps = views.step_rows(store, trial_id)
m = st.columns(6)
m[0].metric("Outcome", "passed" if trial.passed else trial.status if trial.status != "done" else "failed")
m[1].metric("Tests", f"{trial.tests_passed}/{trial.tests_total}")
m[2].metric("Retries", trial.retries_used)
m[3].metric("Wall clock", duration(trial.wallclock_s))
m[4].metric("Tokens", f"{trial.tokens_in + trial.tokens_out:,}")
m[5].metric("LLM calls", trial.llm_calls)
if trial.message:
    st.error(trial.message, icon=":material/error:")
if not steps:
    empty_state("This trial has no recorded steps yet (it is queued, or stopped before its first agent ran).")
    st.stop()

steps_tab, code_tab, hits_tab, compare_tab = st.tabs(["Steps", "Code per attempt", "Retrieval hits", "Compare"])
with steps_tab:
    st.plotly_chart(charts.step_timeline(steps), key="trace.timeline")
    render_steps(steps, store, calls=True)
with code_tab:
    code_panel(steps)
with hits_tab:
    hits = store.hits_for_trial(trial_id)
    if hits:
        st.dataframe([{"rank": h.rank, "technique": h.technique_name, "id": h.technique_id, "score": round(h.score, 3)}
                      for h in hits], hide_index=True)
    else:
        st.info("No techniques were retrieved for this trial (retrieval is on in multi-rag, or via the Synthesize form).")
with compare_tab:
    compare_panel(store, trial, steps)
