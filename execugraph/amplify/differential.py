"""Without a reference: inputs on which stored passing programs disagree ("tests too weak here").

Why: with no trusted answer we cannot add tests, but if two programs that both pass the
suite answer a new input differently, at least one of them is wrong and the suite cannot
tell: that is worth reporting. Nothing is stored and no verdict changes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypedDict

from execugraph.amplify.build import candidate_inputs
from execugraph.domain.problem import Problem
from execugraph.grading.rules import build_suite

if TYPE_CHECKING:
    from execugraph.store import Store

MAX_PROGRAMS = 10
CPU_S = 0.5


class Disagreement(TypedDict):
    """A new input on which programs passing the original tests answer differently (printed as JSON)."""

    expr: str  # the call tried
    answers: list[str]  # each distinct answer (`returns ...`, or the verdict and error class), sorted


def _outcome(result: Any) -> str:
    if result.verdict in ("passed", "wrong_answer") and result.error_class in (None, "WrongAnswer"):
        return f"returns {result.got}"
    return f"{result.verdict} ({result.error_class})"


def problem_disagreements(pool: Any, problem: Problem, programs: list[str], seed: int,
                          per_problem: int) -> list[Disagreement]:
    """The new inputs on which `programs` (each passing the original tests) do not all answer alike."""
    from sandbox import Limits

    if len(programs) < 2:
        return []
    exprs = [e for e, _ in candidate_inputs(problem, seed, per_problem)[0]]
    if not exprs:
        return []
    probes = [{"name": f"probe {i}", "kind": "call", "expr": e, "expected": None} for i, e in enumerate(exprs)]
    suite = build_suite(problem, probes, "standalone")
    results = pool.run_many([(code, suite, Limits(timeout_s=CPU_S, stop_after_timeout=False)) for code in programs])
    out: list[Disagreement] = []
    for index, expr in enumerate(exprs):
        answers = [_outcome(r.tests[index]) for r in results if index < len(r.tests)]
        if len(set(answers)) > 1:
            out.append({"expr": expr, "answers": sorted(set(answers))})
    return out


def disagreements(store: Store, pool: Any, problems: list[Problem], benchmark: str, seed: int,
                  per_problem: int) -> dict[str, list[Disagreement]]:
    """problem id -> its disagreements, for problems whose stored passing programs disagree somewhere."""
    from execugraph.store.amplified_reads import passing_programs

    out = {}
    for problem in problems:
        programs = passing_programs(store, benchmark, problem.id, MAX_PROGRAMS)
        found = problem_disagreements(pool, problem, programs, seed, per_problem)
        if found:
            out[problem.id] = found
    return out
