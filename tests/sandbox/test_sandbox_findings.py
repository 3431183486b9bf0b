"""The `shadowed_builtins` finding as data: only builtin names survive, it merges per suite, and results stored
before it existed still load (pure; the real judge is exercised in test_sandbox_builtins_shadowing.py)."""

from __future__ import annotations

from sandbox.child import BUILTIN_NAMES, _shadowing
from sandbox.limits import Limits
from sandbox.results import SuiteResult, TestResult, merge_findings, shadowed_finding
from sandbox.scoring import POLICY_VERSION, job_request
from sandbox.suite import parse_suite


def test_the_judge_reads_builtin_names_from_its_own_builtins_and_spares_the_names_asked_for() -> None:
    assert {"abs", "len", "sorted", "all", "isinstance", "tuple", "sum"} <= BUILTIN_NAMES
    reported = ["abs", "helper", "len", 3, "max", "__import__"]
    assert _shadowing(reported, ["max"]) == ["abs", "len"]


def test_a_finding_keeps_builtin_names_only_and_says_what_the_tests_used() -> None:
    shared = shadowed_finding(["abs", "evil<b>", "len"], ["abs", "helper"], "shared", ["check"])
    assert shared is not None
    assert (shared["names"], shared["called"], shared["tests_called"], shared["tests"]) == (
        ["abs", "len"], ["abs"], True, ["check"])
    assert shared["text"].startswith("the program redefines builtins the tests call: abs (")
    isolated = shadowed_finding(["len"], ["len"], "isolated")
    assert isolated is not None and isolated["called"] == [] and "Python's own" in isolated["text"]
    assert shadowed_finding(["helper", 7], [], "shared") is None
    assert shadowed_finding("abs", [], "shared") is None  # not a list: nothing to trust


def test_the_suite_finding_merges_its_tests_and_round_trips() -> None:
    one = TestResult("a", "assert", True, "passed", findings=[shadowed_finding(["abs"], ["abs"], "shared", ["a"])])
    two = TestResult("b", "assert", True, "passed", findings=[shadowed_finding(["abs", "len"], [], "shared", ["b"])])
    plain = TestResult("c", "call", True, "passed")
    (finding,) = merge_findings([one, two, plain])
    assert (finding["names"], finding["called"], finding["tests"]) == (["abs", "len"], ["abs"], ["a"])
    result = SuiteResult("passed", 3, 3, [one, two, plain], findings=[finding], policy_version=POLICY_VERSION)
    data = result.to_dict()
    assert "findings" not in data["tests"][2]  # a test without findings stores exactly what it used to
    assert SuiteResult.from_dict(data) == result
    old = {k: v for k, v in data.items() if k != "findings"}
    assert SuiteResult.from_dict(old).findings == []


def test_whether_the_namespace_is_shared_travels_on_the_host_channel() -> None:
    suite = {"entry_point": "f", "aliases": ["g"], "tests": [{"kind": "assert", "source": "", "call": "None"}]}
    job, payload = job_request("def f(): pass", parse_suite(suite), Limits().to_dict())
    assert job["shared_namespace"] is False and b'"shared": false' in payload and b'"asked": ["f", "g"]' in payload
    job, payload = job_request("def f(): pass", parse_suite({**suite, "preamble": "import math\n"}), Limits().to_dict())
    assert job["shared_namespace"] is True and b'"shared": true' in payload


def test_the_policy_names_the_builtins_rule() -> None:
    assert POLICY_VERSION == "sandbox-4"
