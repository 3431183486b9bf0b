"""Adequacy of a suite: its mutation score against small AST mutants of the reference solution.

Why: "more tests" is not "stronger tests". A suite is as strong as the plausible wrong
programs it rejects; one-token changes of a correct program (an operator, a comparison,
a constant off by one, `and` for `or`, a dropped branch) are such programs. A mutant is
killed when it fails the suite in any way (wrong answer, error, timeout). Mutants the
suite cannot kill may be equivalent to the reference, so the score is a lower bound.
"""

from __future__ import annotations

import ast
import random
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from typing import Any

from execugraph.domain.json_types import JsonObject
from execugraph.domain.problem import Problem
from execugraph.grading.rules import build_suite, problem_grading_tests
from execugraph.parsing import parse_python

MAX_MUTANTS = 24  # per problem, drawn deterministically from every site
MUTANT_CPU_S = 0.5  # a mutant that loops is killed by this CPU limit per test
_BIN = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.FloorDiv, ast.FloorDiv: ast.Mult, ast.Div: ast.Mult,
        ast.Mod: ast.FloorDiv}
_CMP = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq, ast.NotEq: ast.Eq,
        ast.In: ast.NotIn, ast.NotIn: ast.In}


def _sites(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """(node index in walk order, operator name) of every place a mutant can change."""
    for index, node in enumerate(ast.walk(tree)):
        if isinstance(node, ast.BinOp) and type(node.op) in _BIN:
            yield index, "arithmetic"
        elif isinstance(node, ast.Compare) and type(node.ops[0]) in _CMP:
            yield index, "comparison"
        elif isinstance(node, ast.Constant) and type(node.value) is int:
            yield index, "constant+1"
            yield index, "constant-1"
        elif isinstance(node, ast.BoolOp):
            yield index, "boolean"
        elif isinstance(node, ast.If):
            yield index, "drop-branch"


def _apply(tree: ast.AST, index: int, operator: str) -> str:
    node = list(ast.walk(tree))[index]
    if operator == "arithmetic":
        node.op = _BIN[type(node.op)]()  # type: ignore[attr-defined]
    elif operator == "comparison":
        node.ops[0] = _CMP[type(node.ops[0])]()  # type: ignore[attr-defined]
    elif operator == "constant+1":
        node.value += 1  # type: ignore[attr-defined]
    elif operator == "constant-1":
        node.value -= 1  # type: ignore[attr-defined]
    elif operator == "boolean":
        node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()  # type: ignore[attr-defined]
    elif operator == "drop-branch":
        node.body = [ast.Pass()]  # type: ignore[attr-defined]
    return ast.unparse(tree)


def mutants(reference: str, limit: int = MAX_MUTANTS, seed: int = 0) -> list[tuple[str, str]]:
    """Up to `limit` (description, program) one-change mutants of `reference`, the same ones for the same seed."""
    try:
        tree = parse_python(reference)
    except SyntaxError:
        return []
    sites = list(_sites(tree))
    random.Random(f"mutants:{seed}").shuffle(sites)
    original = ast.unparse(tree)
    out: list[tuple[str, str]] = []
    seen = {original}
    for index, operator in sites:
        if len(out) >= limit:
            break
        program = _apply(parse_python(reference), index, operator)
        if program in seen:
            continue
        seen.add(program)
        line = getattr(list(ast.walk(tree))[index], "lineno", "?")
        out.append((f"{operator} at line {line}", program))
    return out


def _killed(results: list[Any]) -> list[bool]:
    return [not r.passed for r in results]


def _jobs(original: Problem, amplified: Problem, reference: str) -> tuple[list[tuple[str, str]], list[tuple], bool]:
    """(mutants, sandbox jobs: every mutant on the original tests, then on the new ones, whether there are new)."""
    from sandbox import Limits

    found = mutants(reference)
    old_tests = problem_grading_tests(original)
    new_tests = [t for t in problem_grading_tests(amplified) if t.get("amplified")]
    limits = Limits(timeout_s=MUTANT_CPU_S, suite_timeout_s=10 * MUTANT_CPU_S, stop_after_timeout=False)
    jobs = [(program, build_suite(original, old_tests, "standalone"), limits) for _, program in found]
    if new_tests:
        jobs += [(program, build_suite(amplified, new_tests, "standalone"), limits) for _, program in found]
    return found, jobs, bool(new_tests)


@dataclass(frozen=True)
class ProblemAdequacy:
    """One problem's mutation score under its original and its amplified tests."""

    mutants: int  # mutants of the reference tried
    original_killed: int  # killed by the original grading tests
    amplified_killed: int  # killed by the original or the new tests
    only_amplified: list[str]  # descriptions of the mutants only the new tests kill


@dataclass(frozen=True)
class AdequacyTotal:
    """The mutation scores summed over a suite's problems."""

    mutants: int  # mutants tried in all
    original_killed: int  # killed by the original tests
    amplified_killed: int  # killed by the amplified suite
    only_amplified: int  # killed by the amplified suite only
    original_score: float  # original_killed / mutants (0.0 with no mutant)
    amplified_score: float  # amplified_killed / mutants (0.0 with no mutant)


@dataclass(frozen=True)
class SuiteAdequacy:
    """Per problem and in total: the mutation score of the original vs the amplified tests."""

    problems: dict[str, ProblemAdequacy]  # problem id -> its score (problems with a reference only)
    total: AdequacyTotal  # summed over `problems`

    def as_dict(self) -> JsonObject:
        """The JSON `amplify --json` prints under `adequacy`."""
        return asdict(self)


def _score(found: list[tuple[str, str]], results: list[Any], has_new: bool) -> ProblemAdequacy:
    old = _killed(results[: len(found)])
    new = _killed(results[len(found):]) if has_new else [False] * len(found)
    both = [a or b for a, b in zip(old, new, strict=True)]
    return ProblemAdequacy(mutants=len(found), original_killed=sum(old), amplified_killed=sum(both),
                           only_amplified=[d for (d, _), a, b in zip(found, old, both, strict=True) if b and not a])


def problem_adequacy(pool: Any, original: Problem, amplified: Problem, reference: str) -> ProblemAdequacy:
    """Mutants of `reference` killed by the original grading tests and by the amplified ones."""
    found, jobs, has_new = _jobs(original, amplified, reference)
    return _score(found, pool.run_many(jobs) if jobs else [], has_new)


def suite_adequacy(pool: Any, originals: list[Problem], amplified: list[Problem],
                   references: dict[str, str] | None = None) -> SuiteAdequacy:
    """Per problem and in total: mutation score of the original vs the amplified tests (one batch of jobs)."""
    from execugraph.amplify.references import reference_for

    by_id = {p.id: p for p in amplified}
    plans, jobs = [], []
    for problem in originals:
        reference = reference_for(problem, references)
        if reference and problem.id in by_id and problem_grading_tests(problem):
            found, own, has_new = _jobs(problem, by_id[problem.id], reference)
            plans.append((problem.id, found, len(jobs), len(own), has_new))
            jobs += own
    results = pool.run_many(jobs) if jobs else []
    problems = {pid: _score(found, results[start:start + n], has_new) for pid, found, start, n, has_new in plans}
    n = sum(p.mutants for p in problems.values())
    old = sum(p.original_killed for p in problems.values())
    new = sum(p.amplified_killed for p in problems.values())
    total = AdequacyTotal(mutants=n, original_killed=old, amplified_killed=new, only_amplified=new - old,
                          original_score=old / n if n else 0.0, amplified_score=new / n if n else 0.0)
    return SuiteAdequacy(problems, total)
