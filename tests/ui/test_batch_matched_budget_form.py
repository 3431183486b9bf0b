"""Batch form: "Match the budget of condition X" plans extra samples of the cheaper condition from stored trials,
and refuses in one line when no stored trial says what a sample costs."""

from __future__ import annotations

from execugraph.batch.spec import BatchSpec
from tests.ui.conftest import no_exception, texts
from ui import matched_budget_form as form
from ui.keys import Batch

ARMS = ["single-oneshot", "multi-full"]


def _choose(at):
    at.multiselect(key=Batch.CATEGORIES).set_value(["dp"])
    at.number_input(key=Batch.SUBSET).set_value(1)
    at.multiselect(key=Batch.CONDITIONS).set_value(ARMS).run()
    at.selectbox(key=form.COSTLY).set_value("multi-full").run()
    at.selectbox(key=form.MEASURE).set_value("calls").run()
    no_exception(at)
    assert at.selectbox(key=form.CHEAP).value == "single-oneshot"
    return at


def _history(store, model: str) -> None:
    """A stored batch of both conditions on internal30 with `model`: one call per one-shot trial, six per multi-full."""
    spec = BatchSpec(conditions=ARMS, default_model=model)
    configs = {c: spec.run_config(c).model_dump() for c in ARMS}
    run = store.create_run("batch", "history", {"batch": spec.model_dump(), "conditions": configs},
                           benchmark="internal30")
    for condition, calls in (("single-oneshot", 1), ("multi-full", 6)):
        trial = store.create_trial(run, "fib", condition, 0, 0, category="dp", benchmark="internal30")
        store.update_trial(trial, status="done", passed=True, tokens_in=10, tokens_out=10, llm_calls=calls,
                           wallclock_s=1.0)


def test_without_history_the_launch_is_refused_in_one_line(app, db_store):
    at = _choose(app("batch"))
    at.button(key=Batch.LAUNCH).click().run()
    errors = texts(at, "error")
    assert any("Not launched: --match-budget: no finished trial of 'single-oneshot' on internal30" in e
               for e in errors), errors
    assert not db_store.list_runs(kind="batch")


def test_with_history_the_cheaper_condition_gets_the_planned_seeds(app, db_store):
    at = app("batch")
    _history(db_store, at.session_state[Batch.DEFAULT_MODEL])
    at = _choose(at)
    at.button(key=Batch.LAUNCH).click().run()
    no_exception(at)
    run = db_store.get_run(at.session_state[Batch.LAUNCHED])
    plan = run.config["batch"]["matched_budget"]
    assert (plan["cheap"], plan["costly"], plan["measure"]) == ("single-oneshot", "multi-full", "calls")
    assert plan["samples"] == 8 and plan["extra_seeds"] == list(range(1, 8))  # 6 calls buy 6 samples, +25%: 8
    seeds = sorted((t.condition, t.seed) for t in db_store.trials_for_run(run.id))
    assert seeds == [("multi-full", 0)] + [("single-oneshot", s) for s in range(8)]
