"""The 95% target: of the mutants the original tests miss but some input distinguishes, how many the amplified kill.

Why: a mutation score's denominator holds equivalent mutants (no input in the contract tells
them from the reference), so "88% killed" cannot say how much headroom is left. Here each
mutant the original tests miss is run, once, against a large independent search: inputs made
by the same generators under another seed and a much bigger budget, answered by the reference
in the sandbox. A mutant that search or the amplified tests kill is *distinguishable* (an input
within the inferred contract makes it differ from the reference); one that neither kills is
counted as equivalent and excluded. The score is the share of distinguishable mutants the
amplified tests kill. Search misses make the denominator a lower bound, so the share is an
upper bound on the true one only in that sense; the report says which search established it.
"""

from __future__ import annotations

from typing import Any

from execugraph.amplify.adequacy import MUTANT_CPU_S, mutants
from execugraph.amplify.build import candidate_inputs
from execugraph.amplify.expected import reference_answers_many
from execugraph.amplify.references import reference_for
from execugraph.amplify.templates import answers_may_differ
from execugraph.grading import build_suite, problem_grading_tests
from execugraph.problem import Problem

SEARCH_SEED_OFFSET = 1_000_003  # the search's seed: the amplifier's plus this, so their draws are independent
SEARCH_BUDGET = 120  # candidate inputs per problem in the search (the amplifier keeps 30)
SEARCH_CPU_S = 4 * MUTANT_CPU_S  # a mutant only as slow as the reference must not count as distinguished


def _limits(cpu_s: float) -> Any:
    from sandbox import Limits

    return Limits(timeout_s=cpu_s, suite_timeout_s=60 * MUTANT_CPU_S)


def _search_tests(pool: Any, problems: list[tuple[Problem, str]], seed: int, budget: int) -> list[list[dict]]:
    """Per problem: the search's inputs as call tests with the reference's answers (dropped inputs left out)."""
    items = []
    for problem, reference in problems:
        exprs: list[str] = []
        if not answers_may_differ(problem):
            cands, _ = candidate_inputs(problem, seed, budget)
            exprs = [e for e, _ in cands]
        items.append((problem, reference, exprs))
    answers = reference_answers_many(pool, items)
    return [[{**a.test, "name": f"search {n}"} for n, a in enumerate(found) if a.test is not None]
            for found in answers]


def distinguishable_report(pool: Any, originals: list[Problem], amplified: list[Problem],
                           references: dict[str, str] | None = None, *, seed: int = 0,
                           budget: int = SEARCH_BUDGET) -> dict[str, Any]:
    """Per problem and in total: mutants the original tests miss, how many are distinguishable, how many of those
    the amplified tests kill, and the survivors' descriptions (what to improve next)."""
    by_id = {p.id: p for p in amplified}
    todo: list[tuple[Problem, str]] = []
    for problem in originals:
        reference = reference_for(problem, references)
        if reference and problem.id in by_id and problem_grading_tests(problem):
            todo.append((problem, reference))
    search_seed = seed + SEARCH_SEED_OFFSET
    search = _search_tests(pool, todo, search_seed, budget)
    limits, wide_limits = _limits(MUTANT_CPU_S), _limits(SEARCH_CPU_S)
    jobs, plans = [], []
    for (problem, reference), extra in zip(todo, search, strict=True):
        found = mutants(reference)
        old = build_suite(problem, problem_grading_tests(problem), "standalone")
        new_tests = [t for t in problem_grading_tests(by_id[problem.id]) if t.get("amplified")]
        start = len(jobs)
        jobs += [(program, old, limits) for _, program in found]
        if new_tests:
            new = build_suite(by_id[problem.id], new_tests, "standalone")
            jobs += [(program, new, limits) for _, program in found]
        if extra:
            wide = build_suite(problem, extra, "standalone")
            jobs += [(program, wide, wide_limits) for _, program in found]
        plans.append((problem.id, found, start, bool(new_tests), bool(extra), len(extra)))
    results = pool.run_many(jobs) if jobs else []
    problems: dict[str, Any] = {}
    for pid, found, start, has_new, has_search, n_search in plans:
        n = len(found)
        cursor = start + n
        old_kill = [not r.passed for r in results[start:cursor]]
        new_kill = [False] * n
        if has_new:
            new_kill = [not r.passed for r in results[cursor:cursor + n]]
            cursor += n
        search_kill = [not r.passed for r in results[cursor:cursor + n]] if has_search else [False] * n
        missed = [i for i in range(n) if not old_kill[i]]
        distinct = [i for i in missed if search_kill[i] or new_kill[i]]
        killed = [i for i in distinct if new_kill[i]]
        problems[pid] = {"mutants": n, "missed": len(missed), "distinguishable": len(distinct),
                         "amplified_killed": len(killed), "search_inputs": n_search,
                         "survivors": [found[i][0] for i in distinct if not new_kill[i]],
                         "equivalent": [found[i][0] for i in missed if i not in distinct]}
    missed = sum(p["missed"] for p in problems.values())
    distinct = sum(p["distinguishable"] for p in problems.values())
    killed = sum(p["amplified_killed"] for p in problems.values())
    total = {"missed": missed, "distinguishable": distinct, "amplified_killed": killed,
             "share": killed / distinct if distinct else 1.0,
             "search_inputs": sum(p["search_inputs"] for p in problems.values()),
             "how": (f"each missed mutant run against {budget} candidate inputs per problem (type-aware mutation and "
                     f"Hypothesis, seed {search_seed}, answered by the reference in the sandbox; mutants at "
                     f"{SEARCH_CPU_S:g} CPU s per input) and the amplified tests; killed by either = distinguishable, by neither = counted equivalent")}
    return {"problems": problems, "total": total}
