"""Every benchmark's reference solutions pass all their tests in the REAL sandbox, and near
misses fail: the proof that the tests are right and have teeth."""

from __future__ import annotations

import json
from typing import Any

import pytest

from execugraph.benchmarks import canonical_solution, load_apps, load_humaneval, load_internal30
from execugraph.benchmarks.humaneval import official_task
from execugraph.configuration.settings import DATA_DIR
from execugraph.domain.problem import Problem
from execugraph.grading.rules import build_suite
from tests.support.reference_internal30 import REFERENCE, WRONG

pytestmark = pytest.mark.integration

APPS_FIXTURE = DATA_DIR / "fixtures" / "apps_sample.jsonl"


@pytest.fixture(scope="module")
def pool():
    from sandbox import SandboxPool

    with SandboxPool() as shared:
        yield shared


@pytest.fixture(scope="module")
def limits():
    from sandbox import Limits

    return Limits(timeout_s=10.0)


def run_all(pool, limits, jobs: list[tuple[Problem, str]]) -> list[Any]:
    return pool.run_many([(code, build_suite(problem, problem.tests, "standalone"), limits) for problem, code in jobs])


def failures(problem: Problem, result: Any) -> str:
    bad = [
        f"{t.name}: {t.verdict} expected={t.expected} got={t.got} {t.stderr[-300:]}"
        for t in result.tests
        if not t.passed
    ]
    return f"{problem.id}: verdict {result.verdict}, {result.tests_passed}/{result.tests_total}\n  " + "\n  ".join(bad)


def assert_all_pass(jobs: list[tuple[Problem, str]], results: list[Any]) -> None:
    report = [
        failures(problem, result)
        for (problem, _), result in zip(jobs, results, strict=True)
        if result.verdict != "passed"
        or result.tests_passed != result.tests_total
        or result.tests_total != len(problem.tests)
    ]
    assert not report, "\n".join(report)


def test_internal30_reference_solutions_pass_every_test(pool, limits):
    problems = load_internal30()
    jobs = [(p, REFERENCE[p.id]) for p in problems]
    results = run_all(pool, limits, jobs)
    assert_all_pass(jobs, results)
    assert sum(r.tests_total for r in results) == sum(len(p.tests) for p in problems) >= 150


def test_internal30_near_misses_fail(pool, limits):
    by_id = {p.id: p for p in load_internal30()}
    jobs = [(by_id[pid], code) for pid, code in WRONG.items()]
    results = run_all(pool, limits, jobs)
    for (problem, _), result in zip(jobs, results, strict=True):
        assert result.verdict != "passed", f"{problem.id}: the near-miss solution passed every test"
        assert 0 < result.tests_total - result.tests_passed, problem.id


def test_internal30_off_by_one_and_missing_edge_cases_fail(pool, limits):
    """Mutate reference solutions in small, typical ways; each mutant must fail some test."""
    mutants = {
        "climb_stairs": ("a, b = 1, 1", "a, b = 1, 2"),
        "house_robber": ("take, skip = skip + value, max(take, skip)", "take, skip = skip + value, take"),
        "min_cost_path": ("if not grid or not grid[0]:\n        return 0", "if not grid:\n        return 0"),
        "rod_cutting": (
            "best[length - piece] + prices[piece - 1]",
            "best[length - piece] + prices[piece - 1] * (piece < len(prices))",
        ),
        "matrix_chain": ("p[i] * p[k + 1] * p[j + 1]", "p[i] * p[k] * p[j + 1]"),
        "subset_sum": ("reachable = {0}", "reachable = set(nums[:1])"),
        "bfs": ("u = queue.popleft()", "u = queue.pop()"),
        "unweighted_shortest": ("hops = [-1] * len(adj)", "hops = [float('inf')] * len(adj)"),
        "grid_shortest_path": (
            "(r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)",
            "(r + 1, c), (r, c + 1), (r + 1, c + 1)",
        ),
        "heapify": ("for start in range(n // 2 - 1, -1, -1):", "for start in range(n // 2 - 1, 0, -1):"),
        "min_stack": (
            "low = val if not self.items else min(val, self.items[-1][1])",
            "low = val if not self.items else min(val, self.items[0][1])",
        ),
        "adj_list_construct": ("neighbours[v].add(u)", "pass"),
        "cycle_detect": ("elif v != parent:", "elif True:"),
        "scc": ("for start in reversed(order):", "for start in order:"),
    }
    by_id = {p.id: p for p in load_internal30()}
    jobs = []
    for pid, (old, new) in mutants.items():
        assert old in REFERENCE[pid], f"mutation for {pid} no longer matches the reference"
        jobs.append((by_id[pid], REFERENCE[pid].replace(old, new)))
    results = run_all(pool, limits, jobs)
    survivors = [problem.id for (problem, _), result in zip(jobs, results, strict=True) if result.verdict == "passed"]
    assert not survivors, f"mutants that passed every test: {survivors}"


def test_internal30_accepts_entry_point_aliases(pool, limits):
    by_id = {p.id: p for p in load_internal30()}
    renamed = {
        "coin_change": ("def coinChange(", "def coin_change("),
        "lis": ("def lengthOfLIS(", "def length_of_lis("),
        "climb_stairs": ("def climbStairs(", "def climb_stairs("),
    }
    jobs = []
    for pid, (old, new) in renamed.items():
        alias = new[4:-1]
        assert alias in by_id[pid].aliases
        jobs.append((by_id[pid], REFERENCE[pid].replace(old, new)))
    assert_all_pass(jobs, run_all(pool, limits, jobs))


def test_humaneval_canonical_solutions_pass_their_own_tests(pool, limits):
    problems = load_humaneval()
    jobs = [(p, canonical_solution(p.id)) for p in problems]
    results = run_all(pool, limits, jobs)
    assert_all_pass(jobs, results)
    visible = sum(len(p.visible_tests()) for p in problems)
    assert sum(r.tests_total for r in results) == 164 + visible


def test_humaneval_checks_reject_wrong_programs(pool, limits):
    """The bare prompt (stub returning None) and an off-by-one body both fail."""
    problems = load_humaneval(n=20, seed=7)
    stubs = [(p, official_task(p.id)["prompt"] + "    pass\n") for p in problems]
    results = run_all(pool, limits, stubs)
    assert all(r.verdict != "passed" for r in results), [
        p.id for (p, _), r in zip(stubs, results, strict=True) if r.verdict == "passed"
    ]

    add = next(p for p in load_humaneval() if p.id == "humaneval_53")
    (result,) = run_all(pool, limits, [(add, official_task("humaneval_53")["prompt"] + "    return x + y + 1\n")])
    assert result.verdict == "wrong_answer" and result.tests_passed == 0


def test_apps_fixture_solutions_pass_and_wrong_ones_fail(pool, limits):
    problems = load_apps(APPS_FIXTURE)
    rows = [json.loads(line) for line in APPS_FIXTURE.read_text().splitlines() if line.strip()]
    jobs = [(p, json.loads(row["solutions"])[0]) for p, row in zip(problems, rows, strict=True)]
    assert_all_pass(jobs, run_all(pool, limits, jobs))

    wrong = [
        (problems[0], "a, b = map(int, input().split())\nprint(a - b)\n"),
        (problems[2], "def max_gap(nums):\n    return max(nums) - min(nums) if nums else 0\n"),
        (problems[3], "class Solution:\n    def vowels(self, s):\n        return [c for c in s if c in 'aeiou']\n"),
    ]
    for (problem, _), result in zip(wrong, run_all(pool, limits, wrong), strict=True):
        assert result.verdict != "passed", problem.id


def test_documented_user_suite_example_runs(pool, limits):
    """The example line in docs/benchmark-format.md means what the doc says it means."""
    import re

    from execugraph.benchmarks import parse_user_jsonl
    from execugraph.configuration.settings import PROJECT_ROOT

    doc = (PROJECT_ROOT / "docs" / "benchmark-format.md").read_text()
    (problem,) = parse_user_jsonl(re.search(r"```json\n(.+?)\n```", doc, re.S).group(1))
    right = "def twoSum(nums, target):\n    seen = {}\n    for i, x in enumerate(nums):\n        if target - x in seen:\n            return [seen[target - x], i]\n        seen[x] = i\n"
    wrong = right.replace("[seen[target - x], i]", "[i, seen[target - x]]")
    as_alias = right.replace("def twoSum(", "def two_sum(")
    results = run_all(pool, limits, [(problem, right), (problem, wrong), (problem, as_alias)])
    assert [r.verdict for r in results] == ["passed", "wrong_answer", "passed"]
