"""Amplifying with the statement's preconditions: no input outside the problem's domain is kept; the canonical and an
independently written correct solution pass the amplified suite, a known-wrong program fails it; witnesses that
dispute the reference drop those inputs."""

from __future__ import annotations

import json
from typing import Any

import pytest

from execugraph.amplify.build import AMPLIFIED_KEY, amplify_benchmark
from execugraph.amplify.references import reference_for
from execugraph.amplify.templates import seed_from_expr
from execugraph.benchmarks import load_humaneval
from execugraph.configuration.settings import PROJECT_ROOT
from execugraph.grading.rules import GradingSettings, problem_grading_tests, sandbox_job

pytestmark = pytest.mark.integration

IDS = ["humaneval_1", "humaneval_11", "humaneval_20"]
PROGRAMS = json.loads((PROJECT_ROOT / "data" / "amplify" / "humaneval_programs.json").read_text(encoding="utf-8"))


def _in_domain(problem_id: str, args: tuple[Any, ...]) -> bool:
    """The domain as HumanEval+ states it (its contracts), written out here independently of the amplifier."""
    if problem_id == "humaneval_1":
        (text,) = args
        depth = 0
        for ch in text:
            if ch not in "() ":
                return False
            depth += {"(": 1, ")": -1, " ": 0}[ch]
            if depth < 0:
                return False
        return depth == 0
    if problem_id == "humaneval_11":
        a, b = args
        return isinstance(a, str) and isinstance(b, str) and len(a) == len(b) and set(a + b) <= {"0", "1"}
    (numbers,) = args
    return isinstance(numbers, list) and len(numbers) >= 2 and all(type(x) in (int, float) for x in numbers)


@pytest.fixture(scope="module")
def pool():
    from sandbox import SandboxPool

    with SandboxPool(workers=2) as shared:
        yield shared


@pytest.fixture(scope="module")
def amplified(pool):
    chosen = [p for p in load_humaneval() if p.id in IDS]
    return chosen, amplify_benchmark(pool, "humaneval", chosen, seed=0, per_problem=30)


def _verdict(pool, problem, code: str) -> str:
    return pool.run_suite(*sandbox_job(problem, code, problem_grading_tests(problem), GradingSettings())).verdict


def test_no_amplified_input_outside_the_domain(amplified) -> None:
    originals, suite = amplified
    for original, result in zip(originals, suite.problems, strict=True):
        new = [t for t in result.problem.tests if t.get(AMPLIFIED_KEY)]
        assert len(new) >= 20, original.id
        for test in new:
            seed = seed_from_expr(test["expr"], {original.entry_point})
            assert seed is not None and _in_domain(original.id, seed.args), (original.id, test["expr"])
        assert any(why.startswith("outside the statement") for why in result.dropped), original.id


def test_correct_programs_pass_and_a_wrong_one_fails(pool, amplified) -> None:
    originals, suite = amplified
    for original, amplified_problem in zip(originals, suite.stored_problems(), strict=True):
        assert _verdict(pool, amplified_problem, reference_for(original)) == "passed", original.id
        for entry in PROGRAMS[original.id]:
            assert _verdict(pool, original, entry["code"]) == "passed", (original.id, entry["label"])
            got = _verdict(pool, amplified_problem, entry["code"])
            assert (got == "passed") == entry["correct"], (original.id, entry["label"], got)
    assert any(not e["correct"] for pid in IDS for e in PROGRAMS[pid])


def test_witnesses_that_dispute_the_reference_drop_those_inputs(pool) -> None:
    problem = next(p for p in load_humaneval() if p.id == "humaneval_20")
    # agrees with the reference except on two numbers in decreasing order (it returns them as they come)
    correct = next(e["code"] for e in PROGRAMS["humaneval_20"] if e["correct"])
    disputing = correct.replace("    best = None\n", "    if len(numbers) == 2:\n        return tuple(numbers)\n"
                                                     "    best = None\n", 1)
    assert disputing != correct
    plain = amplify_benchmark(pool, "humaneval", [problem], seed=0, per_problem=30).problems[0]
    witnessed = amplify_benchmark(pool, "humaneval", [problem], seed=0, per_problem=30,
                                  witnesses={problem.id: [disputing]}).problems[0]
    disputed = [why for why in witnessed.dropped if why.startswith("independent solutions disagree")]
    assert disputed and "agreed almost everywhere" in witnessed.note
    assert _verdict(pool, plain.problem, disputing) != "passed"
    assert _verdict(pool, witnessed.problem, disputing) == "passed"
