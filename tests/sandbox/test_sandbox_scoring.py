"""Host-side judging: raw worker statuses become verdicts; unknown never passes; secrets never reach the worker."""

from __future__ import annotations

import json

import pytest

from sandbox.codec import encode
from sandbox.results import SuiteResult, TestResult, suite_verdict
from sandbox.scoring import job_request, normalise_stdout, parse_judge_output, score, score_test
from sandbox.suite import SuiteError, parse_suite

SUITE = parse_suite(
    {
        "entry_point": "f",
        "tests": [
            {"kind": "call", "args": [1], "expected": [1, 2]},
            {"kind": "assert", "source": "def check(c):\n    assert c(1) == 'SECRET-A'\n"},
            {"kind": "stdio", "stdin": "in", "expected_stdout": "SECRET-B\n"},
        ],
    }
)
CALL, CHECK, STDIO = SUITE.tests


def test_the_worker_never_receives_expected_values_or_check_sources():
    job, judge_payload = job_request("code", SUITE, {"timeout_s": 1})
    wire = json.dumps(job)
    assert "SECRET" not in wire and "[1, 2]" not in wire.replace(" ", "")
    assert "expected" not in wire
    assert b"SECRET-A" in judge_payload and b"SECRET-B" not in judge_payload
    assert job["tests"][2] == {"kind": "stdio", "stdin": "in"}


@pytest.mark.parametrize(
    ("raw", "verdict", "error_class"),
    [
        ({"status": "value", "value": encode((1, 2))}, "passed", None),
        ({"status": "value", "value": encode([2, 1])}, "wrong_answer", "WrongAnswer"),
        ({"status": "value", "value": {"$nope": 1}}, "sandbox_violation", "ProtocolViolation"),
        ({"status": "raised", "exc_type": "ValueError", "message": "m"}, "runtime_error", "ValueError"),
        ({"status": "raised", "exc_type": "MemoryError"}, "memory_limit", "MemoryError"),
        ({"status": "raised", "exc_type": "ResultTooLarge"}, "output_limit", "ResultTooLarge"),
        ({"status": "syntax_error", "exc_type": "SyntaxError", "at_load": True}, "syntax_error", "SyntaxError"),
        ({"status": "timeout"}, "timeout", "Timeout"),
        ({"status": "cpu_timeout", "cpu_s": 1.01}, "timeout", "CpuTimeLimit"),
        ({"status": "wall_timeout", "cpu_s": 0.0}, "timeout", "WallTimeLimit"),
        ({"status": "suite_timeout"}, "timeout", "SuiteTimeLimit"),
        ({"status": "blocked_timeout", "cpu_s": 0.0}, "timeout", "BlockedTimeLimit"),
        ({"status": "not_run_after_timeout"}, "timeout", "NotRun"),
        ({"status": "memory_limit"}, "memory_limit", "MemoryLimit"),
        ({"status": "output_limit"}, "output_limit", "OutputLimit"),
        ({"status": "violation"}, "sandbox_violation", "SandboxViolation"),
        ({"status": "crashed"}, "runtime_error", "Crash"),
        ({"status": "not_run"}, "timeout", "SuiteTimeLimit"),
        ({"status": "harness_error"}, "harness_error", "HarnessError"),
        ({"status": "passed"}, "harness_error", "UnknownStatus"),
        ({"status": "exited", "stdout": "x"}, "harness_error", "UnknownStatus"),
        ({"status": "judged"}, "harness_error", "UnknownStatus"),
        ({}, "harness_error", "UnknownStatus"),
        ("passed", "harness_error", "UnknownStatus"),
    ],
)
def test_call_statuses(raw, verdict, error_class):
    result = score_test(CALL, raw, {}, 0, "f")
    assert (result.verdict, result.error_class, result.passed) == (verdict, error_class, verdict == "passed")


def test_assert_statuses_use_the_judge_line():
    judged = {
        1: {"i": 1, "passed": True},
        2: {
            "i": 2,
            "passed": False,
            "error_class": "AssertionError",
            "origin": "check",
            "failed_line": "assert c(1) == 'x'",
        },
        3: {"i": 3, "passed": False, "error_class": "TypeError", "origin": "candidate", "message": "bad"},
        4: {"i": 4, "passed": False, "error_class": "MemoryError", "origin": "candidate"},
        5: {"i": 5, "passed": False, "error_class": "NameError", "origin": "check"},
    }
    outcomes = [score_test(CHECK, {"status": "judged"}, judged, i, "f") for i in (1, 2, 3, 4, 5, 6)]
    assert [o.verdict for o in outcomes] == [
        "passed",
        "wrong_answer",
        "runtime_error",
        "memory_limit",
        "runtime_error",
        "harness_error",
    ]
    assert outcomes[1].expected == "assert c(1) == 'x'"
    assert outcomes[2].got == "TypeError: bad"


def test_stdio_comparison_normalises_trailing_whitespace():
    assert score_test(STDIO, {"status": "exited", "stdout": "SECRET-B   \r\n\n\n"}, {}, 2, None).passed
    assert not score_test(STDIO, {"status": "exited", "stdout": "SECRET-B C\n"}, {}, 2, None).passed
    assert normalise_stdout("a \n b\t\n\n") == "a\n b"


def test_suite_verdict_is_the_most_severe_and_never_passes_on_doubt():
    def t(verdict: str, passed: bool | None = None) -> TestResult:
        return TestResult("t", "call", verdict == "passed" if passed is None else passed, verdict)

    assert suite_verdict([t("passed"), t("passed")]) == "passed"
    assert suite_verdict([t("wrong_answer"), t("timeout"), t("passed")]) == "timeout"
    assert suite_verdict([t("runtime_error"), t("sandbox_violation")]) == "sandbox_violation"
    assert suite_verdict([]) == "harness_error"
    assert suite_verdict([t("passed"), t("great")]) == "harness_error"
    assert suite_verdict([t("passed", passed=False)]) == "harness_error"


def test_score_builds_the_suite_result_and_flags_worker_errors():
    raw = {
        "tests": [
            {"status": "value", "value": [1, 2]},
            {"status": "judged"},
            {"status": "exited", "stdout": "SECRET-B"},
        ],
        "layers": {"seccomp": "active", "landlock_fs": "unavailable: old kernel"},
        "stdout": "out",
    }
    result = score(
        SUITE, raw, {1: {"i": 1, "passed": True}}, duration_s=0.5, worker_layers={"network_namespace": "active"}
    )
    assert isinstance(result, SuiteResult) and result.verdict == "passed" and result.tests_passed == 3
    assert result.isolation["landlock_fs"] == "unavailable: old kernel"
    assert result.isolation["network_namespace"] == "active" and result.isolation["verdict_channel"] == "active"
    broken = score(SUITE, {"error": "worker died"}, {}, duration_s=0.1, worker_layers={})
    assert broken.verdict == "harness_error" and broken.tests_passed == 0 and "worker died" in broken.error


def test_judge_output_parsing_ignores_torn_lines():
    data = b'{"i": 0, "passed": true}\n{"i": 1, "pass\n["x"]\n{"i": "2"}\n'
    assert parse_judge_output(data) == {0: {"i": 0, "passed": True}}


def test_cpu_and_wall_seconds_and_the_limits_of_every_test_reach_the_result():
    raw = {
        "tests": [
            {"status": "value", "value": encode([1, 2]), "duration_s": 0.5, "cpu_s": 0.4, "cpu_limit_s": 1.0,
             "wall_limit_s": 10.0},
            {"status": "not_run"},
        ],
        "cpu_s": 0.45,
        "cpu_accounting": "job cgroup CPU usage",
    }
    from sandbox.limits import Limits

    result = score(parse_suite({"entry_point": "f", "tests": [
        {"kind": "call", "args": [1], "expected": [1, 2]},
        {"kind": "call", "args": [2], "expected": [1, 2], "cpu_limit_s": 3},
    ]}), raw, {}, duration_s=1.0, worker_layers={}, limits=Limits(timeout_s=2))
    first, second = result.tests
    assert (first.cpu_s, first.duration_s, first.cpu_limit_s, first.wall_limit_s) == (0.4, 0.5, 1.0, 10.0)
    assert first.limit_share() == 0.4
    assert (second.cpu_s, second.cpu_limit_s, second.wall_limit_s) == (0.0, 3.0, 40.0)  # never started: its limits
    assert result.cpu_s == 0.45
    assert result.limits["cpu_s_per_test"] == 2.0 and result.limits["wall_backstop_s_per_test"] == 30.0
    assert result.limits["cpu_accounting"] == "job cgroup CPU usage" and result.limits["tests_with_own_cpu_limit"] == 1
    again = SuiteResult.from_dict(result.to_dict())
    assert again.tests[0].cpu_s == 0.4 and again.limits == result.limits
    older = result.to_dict()
    for test in older["tests"]:
        for key in ("cpu_s", "cpu_limit_s", "wall_limit_s"):
            del test[key]
    del older["limits"], older["cpu_s"]
    assert SuiteResult.from_dict(older).tests[0].cpu_s == 0.0  # results stored before CPU limits still read


def test_a_keep_result_call_test_hands_back_the_value_and_others_do_not():
    kept = parse_suite({"entry_point": "f", "tests": [{"kind": "call", "args": [1], "expected": None,
                                                        "keep_result": True}]}).tests[0]
    value = encode([(1, 2), {3}])
    result = score_test(kept, {"status": "value", "value": value}, {}, 0, "f")
    assert result.verdict == "wrong_answer" and result.result == value
    assert result.to_dict()["result"] == value
    plain = score_test(CALL, {"status": "value", "value": value}, {}, 0, "f")
    assert plain.result is None and "result" not in plain.to_dict()
    with pytest.raises(SuiteError, match=r"tests\[0\]\.keep_result: must be true or false"):
        parse_suite({"entry_point": "f", "tests": [{"kind": "call", "args": [], "expected": 1, "keep_result": 1}]})
