"""internal-30: our curated 10 dp + 10 graph + 10 data-structure problems.

Ids and entry points are fixed (see `INTERNAL30`) so results stay comparable with the
published suite. Each problem lives in data/internal30/<id>.json in the documented schema
and is validated like any user suite; the loader also checks that the folder holds exactly
these problems with these entry points, so an accidental edit is caught at load time rather
than as a silently different benchmark. Reference solutions live in the test suite and, for
`amplify` (never shown to a model), in data/references/internal30.jsonl.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from execugraph.benchmarks.errors import BenchmarkFormatError, FormatIssue
from execugraph.benchmarks.suite_format import parse_json_value, problem_from_record
from execugraph.configuration.settings import DATA_DIR
from execugraph.domain.problem import Problem

BENCHMARK = "internal30"
DATA_FOLDER = DATA_DIR / "internal30"
CATEGORIES = ("dp", "graph", "ds")

# id -> (category, entry point), in the published order.
INTERNAL30: dict[str, tuple[str, str]] = {
    "fib": ("dp", "fib"),
    "climb_stairs": ("dp", "climbStairs"),
    "coin_change": ("dp", "coinChange"),
    "lcs": ("dp", "longestCommonSubsequence"),
    "house_robber": ("dp", "rob"),
    "min_cost_path": ("dp", "minPathSum"),
    "lis": ("dp", "lengthOfLIS"),
    "rod_cutting": ("dp", "rodCutting"),
    "matrix_chain": ("dp", "matrixChainOrder"),
    "subset_sum": ("dp", "subsetSum"),
    "topo_sort": ("graph", "findOrder"),
    "cycle_detect": ("graph", "hasCycle"),
    "bfs": ("graph", "bfs"),
    "dfs": ("graph", "dfs"),
    "dijkstra": ("graph", "dijkstra"),
    "bellman_ford": ("graph", "bellmanFord"),
    "connected_components": ("graph", "countComponents"),
    "scc": ("graph", "countSCC"),
    "unweighted_shortest": ("graph", "shortestHops"),
    "grid_shortest_path": ("graph", "shortestPath"),
    "lru_cache": ("ds", "LRUCache"),
    "min_stack": ("ds", "MinStack"),
    "stack_using_queue": ("ds", "MyStack"),
    "reverse_linked_list": ("ds", "reverseList"),
    "binary_tree_traversal": ("ds", "inorder"),
    "priority_queue": ("ds", "PQ"),
    "heapify": ("ds", "heapify"),
    "avl": ("ds", "AVL"),
    "adj_list_construct": ("ds", "adjList"),
    "valid_parentheses": ("ds", "isValid"),
}

MIN_TESTS = 5
VISIBLE_TESTS = 2


def _curation_faults(problem: Problem) -> list[FormatIssue]:
    """Rules our own suite must meet beyond the general schema."""
    category, entry_point = INTERNAL30[problem.id]
    faults = []
    if problem.category != category:
        faults.append(FormatIssue(None, "category", f"expected {category!r}, got {problem.category!r}"))
    if problem.entry_point != entry_point:
        faults.append(FormatIssue(None, "entry_point", f"expected {entry_point!r}, got {problem.entry_point!r}"))
    if len(problem.tests) < MIN_TESTS:
        faults.append(FormatIssue(None, "tests", f"at least {MIN_TESTS} required, got {len(problem.tests)}"))
    visible = len(problem.visible_tests())
    if visible != VISIBLE_TESTS:
        faults.append(FormatIssue(None, "tests", f"exactly {VISIBLE_TESTS} must be visible, got {visible}"))
    for key in ("rationale", "difficulty", "signature"):
        if not getattr(problem, key).strip():
            faults.append(FormatIssue(None, key, "required for internal-30"))
    return faults


def _load_one(path: Path, expected_id: str) -> Problem:
    source = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise BenchmarkFormatError(
            source, [FormatIssue(None, "(file)", f"cannot read: {exc.strerror or exc}")]
        ) from exc
    value, issues = parse_json_value(text, None)
    if issues:
        raise BenchmarkFormatError(source, issues)
    problem, issues = problem_from_record(value, None, default_benchmark=BENCHMARK)
    if issues or problem is None:
        raise BenchmarkFormatError(source, issues)
    if problem.id != expected_id:
        raise BenchmarkFormatError(
            source, [FormatIssue(None, "id", f"expected {expected_id!r} (the file name), got {problem.id!r}")]
        )
    faults = _curation_faults(problem)
    if faults:
        raise BenchmarkFormatError(source, faults)
    return problem.model_copy(update={"benchmark": BENCHMARK})


def load_internal30(categories: Iterable[str] | None = None, folder: Path | None = None) -> list[Problem]:
    """The 30 problems in published order, optionally only some categories (dp, graph, ds)."""
    folder = DATA_FOLDER if folder is None else Path(folder)
    wanted = set(CATEGORIES if categories is None else categories)
    unknown = wanted - set(CATEGORIES)
    if unknown:
        raise ValueError(f"unknown internal-30 categories {sorted(unknown)}; known: {', '.join(CATEGORIES)}")
    present = {p.stem for p in folder.glob("*.json")}
    missing = [pid for pid in INTERNAL30 if pid not in present]
    extra = sorted(present - set(INTERNAL30))
    if missing or extra:
        issues = [FormatIssue(None, f"{pid}.json", "missing") for pid in missing]
        issues += [FormatIssue(None, f"{name}.json", "not an internal-30 problem id") for name in extra]
        raise BenchmarkFormatError(str(folder), issues)
    return [_load_one(folder / f"{pid}.json", pid) for pid, (category, _) in INTERNAL30.items() if category in wanted]
