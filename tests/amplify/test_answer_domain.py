"""The original tests' answers bound the amplified ones: an input whose reference answer is of a kind or sign no
original answer has (a negative count of fruits, a None among numbers) is dropped, in the real sandbox; a negative
answer stays where an original input is negative."""

from __future__ import annotations

import pytest

from execugraph.amplify.answer_domain import answer_domain, original_answers
from execugraph.amplify.build import AMPLIFIED_KEY, amplify_benchmark
from execugraph.benchmarks import load_humaneval
from execugraph.domain.problem import Problem


def _humaneval(problem_id: str) -> Problem:
    return next(p for p in load_humaneval() if p.id == problem_id)


def test_original_answers_are_read_from_check_asserts_and_call_tests() -> None:
    fruit = _humaneval("humaneval_67")
    assert original_answers(fruit)[:3] == [8, 10, 2]
    domain = answer_domain(fruit)
    assert domain.non_negative and domain.violation(-10) and domain.violation(None) and domain.violation(0) is None
    maximum = answer_domain(_humaneval("humaneval_35"))  # every answer >= 0, but an input holds -5: no sign rule
    assert not maximum.non_negative and maximum.violation(-7) is None and maximum.violation("7")
    calls = Problem(id="p", statement="s", entry_point="f", tests=[
        {"kind": "call", "expr": f"f({n})", "expected": [n]} for n in range(3)])
    assert original_answers(calls) == [[0], [1], [2]]
    assert answer_domain(calls).violation((1, 2)) is None  # a tuple is read back as a list
    assert "str" in str(answer_domain(calls).violation("x"))
    few = Problem(id="q", statement="s", entry_point="f", tests=calls.tests[:2])
    assert answer_domain(few).violation(None) is None  # two answers say nothing


@pytest.mark.integration
def test_amplified_fruit_counts_are_never_negative() -> None:
    from sandbox import SandboxPool

    problem = _humaneval("humaneval_67")
    # the reference, written without the statement's promise that the basket holds the fruits counted
    reference = ("def fruit_distribution(s, n):\n"
                 "    return n - sum(int(w) for w in s.split(' ') if w.isdigit())\n")
    with SandboxPool(workers=2) as pool:
        result = amplify_benchmark(pool, "humaneval", [problem], seed=0, per_problem=20,
                                   references={problem.id: reference}).problems[0]
    new = [t for t in result.problem.tests if t.get(AMPLIFIED_KEY)]
    assert len(new) >= 10
    assert all(t["expected"] >= 0 for t in new), [t["expr"] for t in new if t["expected"] < 0]
    assert any("negative number" in why for why in result.dropped), result.dropped
