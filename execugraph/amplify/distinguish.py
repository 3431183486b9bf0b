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

from typing import Any, TypedDict

from execugraph.amplify.adequacy import MUTANT_CPU_S, mutants
from execugraph.amplify.expected import reference_answers_many
from execugraph.amplify.references import reference_for
from execugraph.domain.json_types import JsonObject
from execugraph.domain.problem import Problem
from execugraph.grading.rules import build_suite, problem_grading_tests

SEARCH_SEED_OFFSET = 1_000_003  # the search's seed: the amplifier's plus this, so their draws are independent
SEARCH_BUDGET = 120  # candidate inputs per problem in the search (the amplifier keeps 30)
SEARCH_CPU_S = 4 * MUTANT_CPU_S  # a mutant only as slow as the reference must not count as distinguished


def _limits(cpu_s: float) -> Any:
    from sandbox import Limits

    return Limits(timeout_s=cpu_s, suite_timeout_s=60 * MUTANT_CPU_S, stop_after_timeout=False)


def _search_tests(pool: Any, problems: list[tuple[Problem, str]], seed: int, budget: int) -> list[list[JsonObject]]:
    """Per problem: the search's inputs as call tests with the reference's answers (dropped inputs left out)."""
    from execugraph.amplify.plan_worker import in_workers

    exprs = in_workers("candidates", [(problem, seed, budget) for problem, _ in problems])
    items = [(problem, reference, found) for (problem, reference), found in zip(problems, exprs, strict=True)]
    answers = reference_answers_many(pool, items)
    return [[{**a.test, "name": f"search {n}"} for n, a in enumerate(found) if a.test is not None]
            for found in answers]


def _kills(results: list[Any], start: int, n: int) -> list[bool]:
    return [not r.passed for r in results[start:start + n]]


class MutantCounts(TypedDict):
    """One problem's mutants as the original tests, the amplified ones and the search see them."""

    mutants: int  # mutants of the reference tried
    missed: int  # not killed by the original tests
    distinguishable: int  # of those, killed by the amplified tests or by the search
    amplified_killed: int  # of those, killed by the amplified tests
    search_inputs: int  # search inputs answered for this problem (0: not searched)
    survivors: list[str]  # distinguishable mutants the amplified tests miss (what to improve next)
    equivalent: list[str]  # missed mutants nothing distinguished (counted equivalent)


class DistinguishTotal(TypedDict):
    """`MutantCounts` summed over the problems, with the share the amplified tests kill and how it was found."""

    missed: int
    distinguishable: int
    amplified_killed: int
    share: float  # amplified_killed / distinguishable (1.0 with none distinguishable)
    search_inputs: int
    searched_problems: int  # problems with a search stage
    how: str  # the search, in words


class DistinguishReport(TypedDict):
    """Per problem and in total (what bench/amplify.py records)."""

    problems: dict[str, MutantCounts]
    total: DistinguishTotal


def distinguishable_report(pool: Any, originals: list[Problem], amplified: list[Problem],
                           references: dict[str, str] | None = None, *, seed: int = 0,
                           budget: int = SEARCH_BUDGET) -> DistinguishReport:
    """Per problem and in total: mutants the original tests miss, how many are distinguishable, how many of those
    the amplified tests kill, and the survivors' descriptions (what to improve next).

    Two stages: every mutant on the original and the amplified tests; then the search, only for the problems with
    a mutant both miss (a mutant the amplified tests kill is distinguishable whatever the search finds), and only
    those mutants run on it. The counts are those of running every mutant on all three."""
    by_id = {p.id: p for p in amplified}
    todo: list[tuple[Problem, str]] = []
    for problem in originals:
        reference = reference_for(problem, references)
        if reference and problem.id in by_id and problem_grading_tests(problem):
            todo.append((problem, reference))
    limits, wide_limits = _limits(MUTANT_CPU_S), _limits(SEARCH_CPU_S)
    jobs, plans = [], []
    for problem, reference in todo:
        found = mutants(reference)
        new_tests = [t for t in problem_grading_tests(by_id[problem.id]) if t.get("amplified")]
        start = len(jobs)
        old = build_suite(problem, problem_grading_tests(problem), "standalone")
        jobs += [(program, old, limits) for _, program in found]
        if new_tests:
            new = build_suite(by_id[problem.id], new_tests, "standalone")
            jobs += [(program, new, limits) for _, program in found]
        plans.append((problem, found, start, bool(new_tests)))
    results = pool.run_many(jobs) if jobs else []
    kills = []
    for _problem, found, start, has_new in plans:
        n = len(found)
        old_kill = _kills(results, start, n)
        new_kill = _kills(results, start + n, n) if has_new else [False] * n
        kills.append((old_kill, new_kill, [i for i in range(n) if not old_kill[i] and not new_kill[i]]))
    search_kill = _search_stage(pool, todo, plans, kills, seed + SEARCH_SEED_OFFSET, budget, wide_limits)
    problems: dict[str, MutantCounts] = {}
    for (problem, found, _, _), (old_kill, new_kill, _), (n_search, searched) in zip(plans, kills, search_kill,
                                                                                     strict=True):
        missed = [i for i in range(len(found)) if not old_kill[i]]
        distinct = [i for i in missed if searched.get(i) or new_kill[i]]
        killed = [i for i in distinct if new_kill[i]]
        problems[problem.id] = {"mutants": len(found), "missed": len(missed), "distinguishable": len(distinct),
                                "amplified_killed": len(killed), "search_inputs": n_search,
                                "survivors": [found[i][0] for i in distinct if not new_kill[i]],
                                "equivalent": [found[i][0] for i in missed if i not in distinct]}
    return {"problems": problems, "total": _total(problems, budget, seed + SEARCH_SEED_OFFSET)}


def _search_stage(pool: Any, todo: list[tuple[Problem, str]], plans: list[tuple], kills: list[tuple], search_seed: int,
                  budget: int, wide_limits: Any) -> list[tuple[int, dict[int, bool]]]:
    """Per problem: (search inputs answered, mutant index -> killed by the search) for the mutants both suites
    miss; problems with none are not searched (0 inputs)."""
    wanted = [k for k, (_, _, both_miss) in enumerate(kills) if both_miss]
    search = _search_tests(pool, [todo[k] for k in wanted], search_seed, budget) if wanted else []
    out: list[tuple[int, dict[int, bool]]] = [(0, {}) for _ in todo]
    jobs, where = [], []
    for k, extra in zip(wanted, search, strict=True):
        out[k] = (len(extra), {})
        if extra:
            problem, found = plans[k][0], plans[k][1]
            wide = build_suite(problem, extra, "standalone")
            for i in kills[k][2]:
                jobs.append((found[i][1], wide, wide_limits))
                where.append((k, i))
    for (k, i), result in zip(where, pool.run_many(jobs) if jobs else [], strict=True):
        out[k][1][i] = not result.passed
    return out


def _total(problems: dict[str, MutantCounts], budget: int, search_seed: int) -> DistinguishTotal:
    missed = sum(p["missed"] for p in problems.values())
    distinct = sum(p["distinguishable"] for p in problems.values())
    killed = sum(p["amplified_killed"] for p in problems.values())
    return {"missed": missed, "distinguishable": distinct, "amplified_killed": killed,
            "share": killed / distinct if distinct else 1.0,
            "search_inputs": sum(p["search_inputs"] for p in problems.values()),
            "searched_problems": sum(1 for p in problems.values() if p["search_inputs"]),
            "how": (f"each mutant both the original and the amplified tests miss run against {budget} candidate "
                    f"inputs per problem (type-aware mutation and Hypothesis, seed {search_seed}, answered by the "
                    f"reference in the sandbox; mutants at {SEARCH_CPU_S:g} CPU s per input); killed by the search "
                    "or the amplified tests = distinguishable, by neither = counted equivalent")}
