"""The one grading rule: which tests grade and feed the loop, the suites each protocol builds, what passes."""

from __future__ import annotations

import math

import pytest
from pydantic import ValidationError

from execugraph.batch.spec import BatchSpec
from execugraph.benchmarks import load_humaneval, load_internal30
from execugraph.configuration.conditions import resolve_condition
from execugraph.domain.config import RunConfig
from execugraph.domain.problem import Problem
from execugraph.grading.rules import (
    SMOKE_TEST,
    WITH_PROMPT_SOURCE,
    GradingSettings,
    build_suite,
    check_protocol,
    error_class,
    grading_tests,
    limits,
    loop_tests,
    passed,
    problem_grading_tests,
    protocol_note,
    suite_digest,
    with_generated,
)
from sandbox import parse_suite


def _call(expr: str, expected, **extra) -> dict:
    return {"kind": "call", "expr": expr, "expected": expected, **extra}


@pytest.fixture
def problem() -> Problem:
    return Problem(
        id="p", benchmark="user", statement="add", entry_point="add",
        tests=[_call("add(1, 1)", 2, visible=True), _call("add(0, 0)", 0, grading=False, visible=True),
               _call("add(2, 3)", 5), _call("add(-1, 1)", 0)],
    )


@pytest.fixture(scope="module")
def humaneval_2() -> Problem:
    return next(p for p in load_humaneval() if p.id == "humaneval_2")


def test_examples_never_grade_and_visible_tests_feed_the_loop(problem: Problem) -> None:
    grading = problem_grading_tests(problem)
    assert [t["expr"] for t in grading] == ["add(1, 1)", "add(2, 3)", "add(-1, 1)"]
    assert loop_tests(problem, "grading") == grading
    assert [t["expr"] for t in loop_tests(problem, "visible")] == ["add(1, 1)", "add(0, 0)"]
    assert loop_tests(problem, "generated") is None


def test_grading_tests_hold_out_the_visible_ones_only_under_visible(problem: Problem) -> None:
    tests, source = grading_tests(problem, GradingSettings(feedback_tests="visible"))
    assert ([t["expr"] for t in tests], source) == (["add(2, 3)", "add(-1, 1)"], "problem")
    tests, _ = grading_tests(problem, GradingSettings(feedback_tests="visible", best_of_n=4))
    assert len(tests) == 3  # sampling grades every grading test
    tests, _ = grading_tests(problem, GradingSettings(feedback_tests="generated"))
    assert len(tests) == 3


def test_a_problem_without_tests_grades_on_what_fed_its_loop() -> None:
    bare = Problem(id="q", statement="anything")
    generated = [_call("f(1)", 1)]
    assert with_generated(bare, generated) == (generated, "generated")
    assert with_generated(bare, []) == ([SMOKE_TEST], "smoke")
    assert grading_tests(bare, GradingSettings(), (generated, "generated")) == (generated, "generated")
    assert grading_tests(bare, GradingSettings(), None) == ([SMOKE_TEST], "smoke")
    tested = Problem(id="r", statement="x", entry_point="f", tests=[_call("f(2)", 2)])
    assert with_generated(tested, generated) == (generated, "problem")  # model tests feed, problem tests grade


def test_standalone_keeps_the_checks_own_helpers_and_with_prompt_runs_the_prompt_first(humaneval_2) -> None:
    check = next(t for t in humaneval_2.tests if t["kind"] == "assert")
    assert WITH_PROMPT_SOURCE in check and humaneval_2.preamble.startswith("\n\ndef truncate_number")
    tests, _ = grading_tests(humaneval_2, GradingSettings())
    standalone = build_suite(humaneval_2, tests, "standalone")
    assert "preamble" not in standalone and standalone["tests"][0]["source"] == check["source"]
    assert WITH_PROMPT_SOURCE not in standalone["tests"][0]
    with_prompt = build_suite(humaneval_2, tests, "with-prompt")
    assert with_prompt["preamble"] == humaneval_2.preamble
    assert with_prompt["tests"][0]["source"] == check[WITH_PROMPT_SOURCE]
    parsed = parse_suite(with_prompt)
    assert parsed.program("    return 0.5\n") == humaneval_2.preamble + "    return 0.5\n"  # prompt + completion


def test_without_a_prompt_the_protocols_coincide_and_the_record_says_so(problem: Problem) -> None:
    tests = problem_grading_tests(problem)
    assert build_suite(problem, tests, "with-prompt") == build_suite(problem, tests, "standalone")
    assert protocol_note(problem, "with-prompt") == "same as standalone: user/p has no prompt preamble"
    assert protocol_note(problem, "standalone") == ""
    fib = next(p for p in load_internal30() if p.id == "fib")
    assert "internal30/fib has no prompt preamble" in protocol_note(fib, "with-prompt")


def test_settings_come_from_a_run_config_and_a_stored_dict_is_read_as_one_first() -> None:
    config = resolve_condition("single-retry", grading_protocol="with-prompt", test_timeout_s=2.5)
    settings = GradingSettings.of(config)
    assert (settings.protocol, settings.timeout_s, settings.feedback_tests) == ("with-prompt", 2.5, "grading")
    stored, notes = RunConfig.from_stored(config.model_dump())
    assert notes == [] and GradingSettings.of(stored) == settings
    odd, notes = RunConfig.from_stored({"grading_protocol": "nonsense", "best_of_n": 4, "test_timeout_s": -1})
    assert notes == ["field 'grading_protocol': stored value 'nonsense' is not valid here, default used",
                     "field 'test_timeout_s': stored value -1 is not valid here, default used"]  # said, not hidden
    assert GradingSettings.of(odd) == GradingSettings.of(RunConfig(best_of_n=4)) == GradingSettings(best_of_n=4)
    assert GradingSettings.of(RunConfig()) == GradingSettings()
    assert settings.with_protocol("standalone").protocol == "standalone"
    with pytest.raises(ValueError, match="unknown grading protocol 'raw'; use one of standalone, with-prompt"):
        check_protocol("raw")


def test_the_protocol_is_a_typed_field_of_run_configs_and_batches() -> None:
    assert RunConfig().grading_protocol == "standalone"
    with pytest.raises(ValidationError, match="grading_protocol"):
        RunConfig(grading_protocol="with_prompt")
    spec = BatchSpec(conditions=["single-oneshot", "multi-full"], grading_protocol="with-prompt")
    assert {spec.run_config(c).grading_protocol for c in spec.conditions} == {"with-prompt"}


def test_a_benchmarks_own_timeout_wins_over_the_conditions(problem: Problem) -> None:
    settings = GradingSettings(timeout_s=5.0, memory_mb=256)
    assert (limits(problem, settings).timeout_s, limits(problem, settings).memory_mb) == (5.0, 256)
    timed = problem.model_copy(update={"timeout_s": 2.0})
    assert limits(timed, settings).timeout_s == 2.0


def test_the_suite_digest_names_the_tests_exactly() -> None:
    a = [_call("f()", math.inf)]
    assert suite_digest(a) == suite_digest([_call("f()", math.inf)])
    assert suite_digest(a) != suite_digest([_call("f()", -math.inf)])
    assert suite_digest(a) != suite_digest(a + [_call("g()", 1)])


def test_only_an_explicit_full_pass_passes() -> None:
    assert passed({"verdict": "passed", "tests_passed": 3, "tests_total": 3})
    assert not passed({"verdict": "passed", "tests_passed": 0, "tests_total": 0})
    assert not passed({"verdict": "passed", "tests_passed": 2, "tests_total": 3})
    assert error_class({"verdict": "timeout", "tests_passed": 0, "tests_total": 1}) == "timeout"
    assert error_class({}) == "harness_error"
    assert error_class({"verdict": "passed", "tests_passed": 1, "tests_total": 1}) is None
