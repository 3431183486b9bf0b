"""Suite and limit validation: malformed input is refused with a message naming the field."""

from __future__ import annotations

import json

import pytest

from sandbox.limits import Limits
from sandbox.suite import AssertTest, CallTest, StdioTest, SuiteError, load_suite_file, parse_suite


def test_parses_every_kind_with_defaults():
    suite = parse_suite(
        {
            "entry_point": "f",
            "aliases": ["g", "f"],
            "tests": [
                {"kind": "call", "expr": "f(1)", "expected": 2, "visible": True},
                {
                    "kind": "call",
                    "args": [1],
                    "kwargs": {"y": 2},
                    "expected": None,
                    "compare": "float",
                    "tol": 0.1,
                    "name": "kw",
                },
                {"kind": "assert", "source": "def check(c):\n    assert c(1)\n"},
                {"kind": "stdio", "stdin": "1\n", "expected_stdout": "2\n"},
            ],
        }
    )
    assert suite.entry_point == "f" and suite.aliases == ("g",)
    call, kw, check, stdio = suite.tests
    assert isinstance(call, CallTest) and call.name == "test_0" and call.compare == "exact"
    assert kw.name == "kw" and kw.tol == 0.1 and kw.describe("f") == "f(1, y=2)"
    assert isinstance(check, AssertTest) and check.call == "check(candidate)"
    assert isinstance(stdio, StdioTest)


@pytest.mark.parametrize(
    ("suite", "message"),
    [
        ([], "suite: must be an object"),
        ({"tests": []}, "tests: must be a non-empty list"),
        ({"entry_point": "1bad", "tests": [{}]}, "entry_point"),
        ({"aliases": "g", "tests": [{}]}, "aliases"),
        ({"tests": ["x"]}, r"tests\[0\]: must be an object"),
        ({"tests": [{"kind": "unit"}]}, r"tests\[0\]\.kind"),
        ({"tests": [{"kind": "call", "expr": "f()"}]}, r"tests\[0\]: 'expected' is required"),
        ({"tests": [{"kind": "call", "expected": 1}]}, "either 'expr' or 'args'"),
        ({"entry_point": "f", "tests": [{"kind": "call", "expr": "f()", "args": [], "expected": 1}]}, "not both"),
        ({"tests": [{"kind": "call", "args": [1], "expected": 1}]}, "needs the suite's 'entry_point'"),
        ({"tests": [{"kind": "call", "expr": "f(", "expected": 1}]}, r"tests\[0\]\.expr: not a Python expression"),
        ({"entry_point": "f", "tests": [{"kind": "call", "args": 1, "expected": 1}]}, r"\.args: must be a list"),
        (
            {"entry_point": "f", "tests": [{"kind": "call", "args": [], "kwargs": {"1x": 1}, "expected": 1}]},
            r"\.kwargs",
        ),
        ({"tests": [{"kind": "call", "expr": "f()", "expected": {1: 2}}]}, "keys must be strings"),
        ({"tests": [{"kind": "call", "expr": "f()", "expected": object()}]}, "not a JSON value"),
        ({"tests": [{"kind": "call", "expr": "f()", "expected": 1, "compare": "fuzzy"}]}, r"\.compare"),
        ({"tests": [{"kind": "call", "expr": "f()", "expected": 1, "tol": -1}]}, r"\.tol"),
        ({"tests": [{"kind": "assert", "source": 3}]}, r"\.source"),
        ({"tests": [{"kind": "assert", "source": "def check(:"}]}, "does not compile"),
        ({"tests": [{"kind": "assert", "source": "pass"}]}, "'call' is required"),
        ({"tests": [{"kind": "stdio", "stdin": "1"}]}, r"\.expected_stdout"),
        ({"tests": [{"kind": "stdio", "stdin": 1, "expected_stdout": ""}]}, r"\.stdin"),
        ({"tests": [{"kind": "stdio", "expected_stdout": "", "name": ""}]}, r"\.name"),
        ({"preamble": 3, "tests": [{"kind": "stdio", "expected_stdout": ""}]}, "preamble: must be a string"),
    ],
)
def test_malformed_suites_name_the_problem(suite, message):
    with pytest.raises(SuiteError, match=message):
        parse_suite(suite)


def test_suite_file_errors_name_file_and_position(tmp_path):
    missing = tmp_path / "nope.json"
    with pytest.raises(SuiteError, match="nope.json: no such file"):
        load_suite_file(missing)
    broken = tmp_path / "broken.json"
    broken.write_text('{"tests": [\n  {"kind": "call",,}\n]}')
    with pytest.raises(SuiteError, match=r"broken.json: line 2 column 19"):
        load_suite_file(broken)
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps({"tests": [{"kind": "stdio"}]}))
    with pytest.raises(SuiteError, match=r"wrong.json: tests\[0\]\.expected_stdout"):
        load_suite_file(wrong)
    good = tmp_path / "good.json"
    good.write_text('{"tests": [{"kind": "call", "expr": "min(1, 2)", "expected": -Infinity}]}')
    assert load_suite_file(good).tests[0].expected == float("-inf")


@pytest.mark.parametrize(
    "kwargs",
    [
        {"timeout_s": 0},
        {"timeout_s": float("inf")},
        {"memory_mb": 0},
        {"memory_mb": 1.5},
        {"max_processes": 1},
        {"output_bytes": True},
        {"suite_timeout_s": -1},
    ],
)
def test_limits_reject_nonsense(kwargs):
    with pytest.raises(ValueError, match="Limits."):
        Limits(**kwargs)


def test_limits_budget_is_the_wall_backstop_of_loading_and_every_test():
    # backstop per test: 10 x its CPU limit + 10 s; loading gets the default test's
    assert Limits(timeout_s=2).wall_timeout_s == 30
    assert Limits(timeout_s=2).job_budget_s(3) == 120
    assert Limits(timeout_s=2).job_budget_s(2, [1.0, 4.0]) == 30 + 20 + 50
    assert Limits(timeout_s=2, suite_timeout_s=3).job_budget_s(10) == 40 + 30
    assert Limits(timeout_s=1, wall_factor=2, wall_grace_s=0.5).wall_for(3) == 6.5


@pytest.mark.parametrize("kwargs", [{"wall_factor": 0.5}, {"wall_grace_s": 0}, {"wall_factor": float("nan")}])
def test_the_backstop_stays_above_the_cpu_limit(kwargs):
    with pytest.raises(ValueError, match="Limits.wall_"):
        Limits(**kwargs)


def test_a_test_may_carry_its_own_cpu_limit_and_the_worker_gets_every_tests_limits():
    from sandbox.scoring import job_request

    suite = parse_suite({"entry_point": "f", "tests": [
        {"kind": "call", "args": [], "expected": 1, "cpu_limit_s": 0.25},
        {"kind": "stdio", "expected_stdout": ""},
    ]})
    assert [t.cpu_limit_s for t in suite.tests] == [0.25, None]
    job, _ = job_request("def f(): return 1\n", suite, Limits(timeout_s=2).to_dict())
    assert (job["cpu_s"], job["wall_s"]) == ([0.25, 2.0], [12.5, 30.0])
    for bad in (0, -1, "1", True, float("inf")):
        with pytest.raises(SuiteError, match=r"tests\[0\]\.cpu_limit_s"):
            parse_suite({"tests": [{"kind": "stdio", "expected_stdout": "", "cpu_limit_s": bad}]})


def test_a_preamble_goes_verbatim_before_the_candidates_code_and_reaches_only_the_candidate():
    from sandbox.scoring import job_request

    suite = parse_suite({"preamble": "from typing import List\n", "entry_point": "f", "tests": [
        {"kind": "assert", "source": "def check(c):\n    assert c([]) == 0\n", "call": "check(candidate)"}]})
    assert suite.program("def f(x: List[int]): return 0\n") == "from typing import List\ndef f(x: List[int]): return 0\n"
    job, judge_payload = job_request("def f(x): return 0\n", suite, {"timeout_s": 1})
    assert job["code"].startswith("from typing import List\n") and b"List" not in judge_payload
    assert parse_suite({"tests": [{"kind": "stdio", "expected_stdout": ""}]}).program("x = 1\n") == "x = 1\n"
