"""amplify's speed-ups change nothing it produces: candidate inputs planned in worker processes equal those planned
in this process (Hypothesis draws no constants from our modules, which differ between processes), and answering
the references in rounds keeps exactly the tests answering every candidate keeps."""

from __future__ import annotations

from collections import Counter

import pytest

from execugraph.amplify import build
from execugraph.amplify.expected import reference_answers_many
from execugraph.amplify.plan_worker import in_workers, run_task
from execugraph.amplify.references import reference_for
from execugraph.benchmarks import load_humaneval, load_internal30, select_problems

pytestmark = pytest.mark.integration


def test_plans_from_worker_processes_equal_plans_made_here() -> None:
    chosen = select_problems(load_humaneval(), n=12, seed=0)  # humaneval_107 drew other ints in a fresh process
    work = [(p, reference_for(p), 0, 30, "x") for p in chosen]
    here = run_task("plan", work)
    there = in_workers("plan", work)  # 12 problems: two worker processes on two or more cores
    assert [c for _, c, _ in there] == [c for _, c, _ in here]
    assert [d for _, _, d in there] == [d for _, _, d in here]
    assert all(c for _, c, _ in here[:3])
    searched = in_workers("candidates", [(p, 7, 20) for p in chosen])
    assert searched == run_task("candidates", [(p, 7, 20) for p in chosen]) and any(searched)


@pytest.mark.parametrize("per_problem", [5, 30])
def test_answering_in_rounds_keeps_what_answering_everything_keeps(per_problem: int) -> None:
    from sandbox import SandboxPool

    wanted = ("cycle_detect", "grid_shortest_path", "coin_change", "fib", "house_robber")
    chosen = [p for p in load_internal30() if p.id in wanted]
    items = [(p, reference_for(p)) for p in chosen]
    with SandboxPool(workers=2) as pool:
        amplified = build.amplify_problems(pool, items, seed=0, per_problem=per_problem)
        plans = [build._plan(p, ref, 0, per_problem, p.benchmark + build.SUFFIX) for p, ref in items]
        everything = reference_answers_many(pool, [(p, ref or "", [e for e, _ in c])
                                                   for (p, ref), (_, c, _) in zip(items, plans, strict=True)])
    by_hand = [build._finish(r, c, a, Counter(d), per_problem) for (r, c, d), a in zip(plans, everything, strict=True)]
    assert [r.problem.tests for r in amplified] == [r.problem.tests for r in by_hand]
    assert all(r.added == per_problem for r in amplified[:2])  # enough candidates: each gets all it asked for
    for lazy, full in zip(amplified, by_hand, strict=True):  # never answered = not needed: counted as over
        assert sum(lazy.dropped.values()) == sum(full.dropped.values())
        assert lazy.dropped.get(build.OVER, 0) >= full.dropped.get(build.OVER, 0)
