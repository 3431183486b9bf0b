"""Every flip says why: suite, protocol, sandbox policy, timeout, never graded, custom judge, or none of those."""

from __future__ import annotations

from execugraph.verdicts.flip_reasons import UNKNOWN_PROTOCOL, Cause, Recorded, Regraded, explain, reason_text


def _then(**changes) -> Recorded:
    values = dict(passed=True, error_class=None, tests_total=5, suite_digest=None, protocol="standalone",
                  policy="sandbox-2", stderr="", test_source="problem")
    values.update(changes)
    return Recorded(**values)


def _now(**changes) -> Regraded:
    values = dict(passed=False, error_class="wrong_answer", tests_total=5, suite_digest="d", protocol="standalone",
                  protocol_applies=True, policy="sandbox-2", suite_matches=False, timeout_s=5.0)
    values.update(changes)
    return Regraded(**values)


def _causes(then: Recorded, now: Regraded) -> list[str]:
    return [c.cause for c in explain(then, now)]


def test_a_suite_other_than_the_recorded_one_is_named_with_both_sizes() -> None:
    causes = explain(_then(tests_total=5), _now(tests_total=9))
    assert causes == [Cause("suite_changed", "the suite differs from the one recorded (5 tests then, 9 now)")]
    same_size = explain(_then(suite_digest="old"), _now(suite_digest="new"))
    assert "same count, 5 tests, different tests" in reason_text(same_size)
    assert _causes(_then(suite_digest="d"), _now(suite_matches=True)) == ["unexplained"]


def test_the_protocol_counts_only_where_the_problem_has_a_prompt() -> None:
    assert "standalone then, with-prompt now" in reason_text(explain(_then(), _now(protocol="with-prompt")))
    assert _causes(_then(), _now(protocol="with-prompt", protocol_applies=False)) == ["unexplained"]
    unknown = reason_text(explain(_then(protocol=UNKNOWN_PROTOCOL), _now()))
    assert unknown == "graded now under standalone; the record does not say which protocol graded it then"


def test_a_policy_change_names_the_module_the_old_harness_refused() -> None:
    then = _then(passed=False, error_class="sandbox_violation", policy="sandbox-1",
                 stderr="Traceback...\nImportError: import of '_functools' is not allowed\n")
    text = reason_text(explain(then, _now(passed=True, error_class=None)))
    assert text == ("the sandbox policy changed (sandbox-1 then, sandbox-2 now): the old harness refused a module "
                    "(ImportError: import of '_functools' is not allowed)")


def test_timeouts_never_graded_trials_and_custom_judges() -> None:
    unrecorded = reason_text(explain(_then(), _now(error_class="timeout")))
    assert unrecorded == "a timeout now: under a wall-clock limit of 5 s per test, which load on the machine can exceed"
    never = explain(_then(passed=False, error_class="llm_error", tests_total=0, test_source="none", policy=None),
                    _now(passed=True, error_class=None))
    assert [c.cause for c in never] == ["not_graded_then"] and "test source 'none'" in never[0].detail
    judged = explain(_then(), _now(suite_matches=True, suite_digest="d", custom_judge_tests=2))
    assert [c.cause for c in judged] == ["custom_judge"] and "2 test(s) had a custom judge" in judged[0].detail


def test_several_causes_are_all_listed_most_telling_first() -> None:
    causes = _causes(_then(policy="reference", protocol=UNKNOWN_PROTOCOL, tests_total=5),
                     _now(tests_total=9, protocol="with-prompt"))
    assert causes == ["suite_changed", "protocol_changed", "policy_changed"]


def _test(verdict: str, error_class: str | None, cpu: float, wall: float, cpu_limit: float = 5.0,
          wall_limit: float = 60.0, name: str = "official check") -> dict:
    return {"name": name, "verdict": verdict, "passed": verdict == "passed", "error_class": error_class,
            "cpu_s": cpu, "duration_s": wall, "cpu_limit_s": cpu_limit, "wall_limit_s": wall_limit}


def test_a_cpu_timeout_now_says_which_limit_by_how_much_and_what_the_program_used_then() -> None:
    then = _then(policy="sandbox-3", results=[_test("passed", None, 4.6, 9.0)])
    now = _now(error_class="timeout", policy="sandbox-3",
               results=[_test("timeout", "CpuTimeLimit", 5.004, 21.0)])
    assert reason_text(explain(then, now)) == (
        "a timeout now: test 'official check' ran out of its 5 s CPU limit (used 5 s, +0.004 s over); "
        "then test 'official check' used 4.6 s of its 5 s CPU limit (92%)")


def test_a_wall_clock_backstop_is_told_apart_from_a_cpu_limit() -> None:
    now = _now(error_class="timeout", results=[_test("timeout", "WallTimeLimit", 0.01, 60.0)])
    text = reason_text(explain(_then(), now))
    assert text.startswith("a timeout now: test 'official check' was ended by the 60 s wall-clock backstop having "
                           "used 0.01 s of its 5 s CPU limit")


def test_a_wall_clock_timeout_of_an_older_policy_that_passes_now_shows_the_cpu_it_needs() -> None:
    """HumanEval/129 as the issue saw it: a 5 s wall-clock timeout then, about 2 s of CPU now."""
    then = _then(passed=False, error_class="timeout", policy="sandbox-2",
                 results=[{"name": "official check", "verdict": "timeout", "error_class": "Timeout",
                           "duration_s": 5.0}])
    now = _now(passed=True, error_class=None, policy="sandbox-3", results=[_test("passed", None, 2.04, 9.5)])
    causes = explain(then, now)
    assert [c.cause for c in causes] == ["policy_changed", "timeout"]
    assert causes[1].detail == (
        "a timeout then: test 'official check' hit a wall-clock limit of 5 s per test, which load on the machine "
        "can exceed; now test 'official check' used 2.04 s of its 5 s CPU limit (41%)")
