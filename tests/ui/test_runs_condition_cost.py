"""Runs: the run detail lists each condition's tokens, LLM calls, wall-clock and model time per trial."""

from __future__ import annotations

from tests.ui.conftest import no_exception
from ui.keys import Runs


def _cost_frame(at):
    frames = [d.value for d in at.dataframe if "tokens_per_trial" in d.value.columns]
    assert len(frames) == 1
    return frames[0]


def test_run_detail_shows_cost_per_trial_by_condition(app, db_store):
    run = db_store.create_run("batch", "cost detail", {}, benchmark="internal30")
    # oneshot: 2 trials, 1 call of 1.5 s each; retry: 1 trial, 3 calls (0.5 + 1 + 2 s); an errored retry counts too
    for seed, (condition, calls, tokens, wall) in enumerate([("oneshot", [1.5], 100, 2.0), ("oneshot", [1.5], 300, 4.0),
                                                             ("retry", [0.5, 1.0, 2.0], 900, 9.0)]):
        trial = db_store.create_trial(run, "fib", condition, seed, 0, category="dp", benchmark="internal30")
        db_store.update_trial(trial, status="done", passed=True, tokens_in=tokens // 2, tokens_out=tokens // 2,
                              llm_calls=len(calls), wallclock_s=wall)
        for seconds in calls:
            db_store.add_llm_call(trial, role="generator", latency_s=seconds)
    errored = db_store.create_trial(run, "climb_stairs", "retry", 0, 0, category="dp", benchmark="internal30")
    db_store.update_trial(errored, status="error", tokens_in=50, tokens_out=50, llm_calls=1, wallclock_s=1.0)
    queued = db_store.create_trial(run, "climb_stairs", "oneshot", 9, 0, category="dp", benchmark="internal30")
    assert queued  # queued trials cost nothing yet and are not counted

    at = app("runs", state={Runs.DETAIL: run})
    no_exception(at)
    frame = _cost_frame(at)
    assert list(frame["condition"]) == ["oneshot", "retry"]
    assert list(frame["trials"]) == [2, 2]
    assert list(frame["tokens_per_trial"]) == ["200.0", "500.0"]  # the errored retry was paid for too
    assert list(frame["llm_calls_per_trial"]) == ["1.00", "2.00"]
    assert list(frame["wallclock_s_per_trial"]) == ["3.00", "5.00"]
    assert list(frame["model_time_s_per_trial"]) == ["1.50", "3.50"]  # the errored trial stored no call
    assert not any("None" in str(v) for v in frame.to_numpy().ravel())


def test_a_run_without_stored_calls_has_no_model_time_column(app, db_store):
    run = db_store.create_run("batch", "imported-like", {}, benchmark="internal30")
    trial = db_store.create_trial(run, "fib", "oneshot", 0, 0, category="dp", benchmark="internal30")
    db_store.update_trial(trial, status="done", passed=False, tokens_in=7, tokens_out=3, llm_calls=0, wallclock_s=2.0)
    at = app("runs", state={Runs.DETAIL: run})
    frame = _cost_frame(at)
    assert "model_time_s_per_trial" not in frame.columns
    assert list(frame["tokens_per_trial"]) == ["10.0"] and list(frame["wallclock_s_per_trial"]) == ["2.00"]
