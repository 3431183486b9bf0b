"""A sandbox result keeps every field, in order, through its typed outcome: what is written stays the same."""

from __future__ import annotations

import json

from execugraph.grading.calibration import TimeLimits
from execugraph.grading.executed import ExecutionOutcome
from execugraph.grading.outcome import SuiteOutcome
from execugraph.grading.rules import error_class, first_failure, passed
from sandbox.results import SuiteResult, TestResult


def _result(verdict: str = "wrong_answer") -> SuiteResult:
    tests = [TestResult("t0", "call", True, "passed", cpu_s=0.01, cpu_limit_s=5.0, wall_limit_s=60.0),
             TestResult("t1", "call", verdict == "passed", verdict, error_class=None if verdict == "passed" else
                        "AssertionError", expected="2", got="3")]
    return SuiteResult(verdict, 2, 2 if verdict == "passed" else 1, tests, {"seccomp": "active"}, 0.25, "out",
                       "err", "", "sandbox-9", 0.02, {"cpu_s_per_test": 5.0, "wall_rule": "10x + 10 s"})


def test_the_outcome_gives_back_exactly_what_the_sandbox_result_gave() -> None:
    for verdict in ("passed", "wrong_answer"):
        result = _result(verdict)
        outcome = SuiteOutcome.of(result)
        assert json.dumps(outcome.as_dict()) == json.dumps(result.to_dict())  # same keys, order and values
        assert SuiteOutcome.from_dict(result.to_dict()) == outcome
        as_dict = result.to_dict()
        assert (passed(outcome), error_class(outcome), first_failure(outcome)) == (
            passed(as_dict), error_class(as_dict), first_failure(as_dict))
    failing = SuiteOutcome.of(_result())
    assert (failing.passed, failing.error_class, failing.first_failure["name"]) == (False, "wrong_answer", "t1")
    assert failing.test_results() == [t.to_dict() for t in _result().tests]


def test_an_execution_is_the_old_dict_with_purpose_code_and_limits_after_it() -> None:
    limits = TimeLimits.of(5.0, 2)
    executed = ExecutionOutcome(SuiteOutcome.of(_result("passed")), "feedback", "def f(): pass", limits)
    assert executed.passed and executed.error_class is None and executed.first_failure is None
    assert executed.as_dict() == _result("passed").to_dict() | {
        "purpose": "feedback", "code": "def f(): pass", "time_limits": limits.record()}
    assert list(executed.as_dict())[-3:] == ["purpose", "code", "time_limits"]
