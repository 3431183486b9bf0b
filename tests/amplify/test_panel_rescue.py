"""A panel answers where the reference cannot, in the real sandbox: HumanEval's `vowels_count` raises on "" and its
exponential `fib` runs out of time on fib(40); a unanimous panel gives the answer, an input every member rejects
(fib(-3)) stays dropped; `panel={}` (`--no-panel`) amplifies without any of it."""

from __future__ import annotations

import pytest

from execugraph.amplify.build import AMPLIFIED_KEY, amplify_benchmark, candidate_inputs
from execugraph.amplify.expected import reference_answers_many
from execugraph.amplify.panel import bundled_panel, panel_many, reference_failed
from execugraph.benchmarks import load_humaneval
from execugraph.domain.problem import Problem


def _humaneval(problem_id: str) -> Problem:
    return next(p for p in load_humaneval() if p.id == problem_id)


def _fib(n: int) -> int:
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


@pytest.mark.integration
def test_a_unanimous_panel_answers_where_the_reference_raises_or_runs_out_of_time() -> None:
    from sandbox import SandboxPool

    vowels, fib = _humaneval("humaneval_64"), _humaneval("humaneval_55")
    exprs = {vowels.id: ["vowels_count('')", "vowels_count('bye')"], fib.id: ["fib(40)", "fib(-3)", "fib(12)"]}
    panel = bundled_panel("humaneval")
    with SandboxPool(workers=2) as pool:
        answers = reference_answers_many(pool, [(p, p.reference or "", exprs[p.id]) for p in (vowels, fib)])
        assert answers[0][0].dropped == "reference raises IndexError", answers[0][0]
        assert answers[1][0].dropped == "reference exceeds its CPU limit", answers[1][0]
        assert answers[1][1].dropped.startswith("reference raises"), answers[1][1]  # RecursionError
        assert all(reference_failed(a) for a in (answers[0][0], answers[1][0], answers[1][1]))
        found, outcomes = panel_many(pool, [(vowels, answers[0], panel[vowels.id]), (fib, answers[1], panel[fib.id])])
    assert found[0][0].test is not None and found[0][0].test["expected"] == 0
    assert found[0][1].test["expected"] == 1 and outcomes[0].rescued == 1
    assert found[1][0].test is not None and found[1][0].test["expected"] == _fib(40)
    assert found[1][1].test is None and found[1][1].dropped.startswith("reference raises")  # every member rejects it
    assert found[1][2].test["expected"] == 144 and outcomes[1].rescued == 1
    assert "1 answered where the reference fails" in outcomes[1].note(), outcomes[1].note()


def test_empty_and_scaled_inputs_only_where_a_panel_judges() -> None:
    vowels = _humaneval("humaneval_64")
    judged = candidate_inputs(vowels, 0, 60, judged=True)[0]
    unjudged, dropped = candidate_inputs(vowels, 0, 60, judged=False)
    assert "vowels_count('')" in [e for e, _ in judged]
    assert "vowels_count('')" not in [e for e, _ in unjudged] and dropped["breaks contract (empty (no original is))"]
    fib = _humaneval("humaneval_55")
    scaled = [e for e, origin in candidate_inputs(fib, 0, 60, judged=True)[0] if origin == "scaled"]
    assert "fib(40)" in scaled, scaled  # fib(10) of the originals, four times larger
    assert not [o for _, o in candidate_inputs(fib, 0, 60, judged=False)[0] if o == "scaled"]


@pytest.mark.integration
def test_amplified_fib_asks_what_the_exponential_canonical_cannot_answer_and_no_panel_leaves_it_out() -> None:
    from sandbox import SandboxPool

    fib = _humaneval("humaneval_55")
    with SandboxPool(workers=2) as pool:
        with_panel = amplify_benchmark(pool, "humaneval", [fib], per_problem=30).problems[0]
        without = amplify_benchmark(pool, "humaneval", [fib], per_problem=30, panel={}).problems[0]
    new = {t["expr"]: t["expected"] for t in with_panel.problem.tests if t.get(AMPLIFIED_KEY)}
    assert new.get("fib(0)") == 0 and new.get("fib(40)") == _fib(40), new
    assert "answered where the reference fails" in with_panel.note, with_panel.note
    plain = {t["expr"] for t in without.problem.tests if t.get(AMPLIFIED_KEY)}
    assert "fib(40)" not in plain and "fib(0)" not in plain and "panel" not in without.note
