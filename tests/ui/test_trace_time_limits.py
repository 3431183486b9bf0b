"""Trace shows a trial's time limits (CPU per test and the wall-clock backstop) and how near its program came."""

from __future__ import annotations

from execugraph.store import Store
from tests.support.trace_rows import add_step, finish_step
from tests.ui.conftest import no_exception, texts


def _test(name: str, cpu: float, wall: float) -> dict:
    return {"name": name, "passed": True, "verdict": "passed", "call": "f()", "expected": "1", "got": "1",
            "error_class": None, "duration_s": wall, "cpu_s": cpu, "cpu_limit_s": 5.0, "wall_limit_s": 60.0}


def test_trace_states_the_cpu_limit_the_backstop_and_the_nearest_test(app, db_store: Store) -> None:
    run_id = db_store.create_run("single", "limits", {}, status="done")
    trial_id = db_store.create_trial(run_id, "p", "single-oneshot", 0, 0, benchmark="adhoc")
    db_store.finish_trial(trial_id, passed=True, final_code="def f():\n    return 1\n")
    step_id = add_step(db_store, trial_id, "grade", attempt=0)
    db_store.add_execution(trial_id, step_id, purpose="grading", code="def f():\n    return 1\n", verdict="passed",
                           tests_passed=2, tests_total=2, results=[_test("quick", 0.01, 0.02),
                                                                   _test("heavy", 4.2, 9.0)],
                           policy_version="sandbox-3", duration_s=9.1)
    finish_step(db_store, step_id, output={"passed": True, "verdict": "passed", "tests_passed": 2, "tests_total": 2,
                                          "test_source": "problem"})
    at = app("trace", trial=str(trial_id))
    no_exception(at)
    assert ("Time limits: 5 s CPU per test, wall-clock backstop 60 s. Closest: test 'heavy' used 4.2 s of its 5 s "
            "CPU limit (84%) — near the limit, a fragile verdict.") in texts(at, "caption")


def test_a_blocked_program_is_said_to_have_slept_or_waited_and_the_rest_not_run() -> None:
    from ui.views.trace import time_limits_note

    blocked = {**_test("sleeps", 0.01, 5.6), "passed": False, "verdict": "timeout", "error_class": "BlockedTimeLimit",
               "got": "blocked for 5.5 s"}
    skipped = {**_test("after", 0.0, 0.0), "passed": False, "verdict": "timeout", "error_class": "NotRun"}
    note = time_limits_note([_test("quick", 0.01, 0.02), blocked, skipped])
    assert note is not None
    assert ("Test 'sleeps' was stopped by its blocked-time budget (it slept or waited instead of computing) "
            "(blocked for 5.5 s).") in note
