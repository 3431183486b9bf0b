"""internal-30: the fixed ids and entry points, curation rules, and refusal of a tampered data folder."""

from __future__ import annotations

import ast
import json
import re
import shutil
from pathlib import Path

import pytest

from execugraph.benchmarks import BenchmarkFormatError, load_benchmark, load_internal30
from execugraph.benchmarks.internal30 import DATA_FOLDER, INTERNAL30
from tests.support.reference_internal30 import REFERENCE, WRONG

PUBLISHED = {
    "dp": "fib climbStairs coinChange longestCommonSubsequence rob minPathSum lengthOfLIS rodCutting matrixChainOrder subsetSum",
    "graph": "findOrder hasCycle bfs dfs dijkstra bellmanFord countComponents countSCC shortestHops shortestPath",
    "ds": "LRUCache MinStack MyStack reverseList inorder PQ heapify AVL adjList isValid",
}
PUBLISHED_IDS = (
    "fib climb_stairs coin_change lcs house_robber min_cost_path lis rod_cutting matrix_chain subset_sum "
    "topo_sort cycle_detect bfs dfs dijkstra bellman_ford connected_components scc unweighted_shortest grid_shortest_path "
    "lru_cache min_stack stack_using_queue reverse_linked_list binary_tree_traversal priority_queue heapify avl "
    "adj_list_construct valid_parentheses"
).split()


@pytest.fixture(scope="module")
def problems():
    return load_internal30()


def test_thirty_problems_with_published_ids_and_entry_points(problems):
    assert [p.id for p in problems] == PUBLISHED_IDS
    by_category = {c: [p.entry_point for p in problems if p.category == c] for c in PUBLISHED}
    assert {c: " ".join(eps) for c, eps in by_category.items()} == PUBLISHED
    assert all(p.benchmark == "internal30" for p in problems)


def test_registry_and_category_filter(problems):
    assert [p.id for p in load_benchmark("internal-30")] == PUBLISHED_IDS
    graph = load_internal30(categories=["graph"])
    assert len(graph) == 10 and {p.category for p in graph} == {"graph"}
    with pytest.raises(ValueError, match="unknown internal-30 categories"):
        load_internal30(categories=["dp", "strings"])


def test_every_problem_is_fully_curated(problems):
    for p in problems:
        assert len(p.tests) >= 5, p.id
        assert len(p.visible_tests()) == 2, p.id
        assert p.difficulty in {"easy", "medium", "hard"}, p.id
        assert len(p.rationale) > 40 and len(p.statement) > 150, p.id
        assert p.signature and p.entry_point in p.signature, p.id
        names = [t["name"] for t in p.tests]
        assert len(set(names)) == len(names), f"{p.id}: test names must be unique"
        assert all(alias.isidentifier() and alias != p.entry_point for alias in p.aliases), p.id


def test_tests_are_deterministic_call_expressions_on_the_entry_point(problems):
    for p in problems:
        declared = set(re.findall(r"(?:def|class) (\w+)", p.signature))
        assert p.entry_point in declared, p.id
        for t in p.tests:
            assert t["kind"] == "call" and "expected" in t, (p.id, t["name"])
            tree = ast.parse(t["expr"], mode="eval")
            names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
            assert names & declared, (p.id, t["name"])
            assert not names & {"random", "time", "input", "open"}, (p.id, t["name"])


def test_visible_tests_are_the_statement_examples(problems):
    for p in problems:
        for t in p.visible_tests():
            assert f">>> {t['expr']}" in p.statement, (p.id, t["name"])


def test_edge_cases_are_covered(problems):
    """Each problem tests small inputs (empty or single element) and a large one."""
    small = ("empty", "no ", "single", "one ", "1x1", "n=0", "n=1", "length 0", "base case", "two elements")
    large = (
        "large",
        "1000",
        "500",
        "600",
        "300",
        "400",
        "1500",
        "50",
        "60x60",
        "41x41",
        "12000",
        "9999",
        "40 elements",
        "30 matrices",
        "n=300",
        "n=100",
    )
    for p in problems:
        names = " ".join(t["name"].lower() for t in p.tests)
        assert any(k in names for k in small), f"{p.id}: no small-input test"
        assert any(k in names for k in large), f"{p.id}: no large-input test"


def test_statements_spell_out_the_conventions(problems):
    by_id = {p.id: p.statement for p in problems}
    assert "float('inf')" in by_id["dijkstra"]
    assert "return None" in by_id["bellman_ford"] and "float('inf')" in by_id["bellman_ford"]
    assert "course b must be taken before course a" in by_id["topo_sort"]
    assert "any of them is accepted" in by_id["topo_sort"]
    assert "counted in cells" in by_id["grid_shortest_path"] and "-1" in by_id["grid_shortest_path"]
    assert "-1" in by_id["coin_change"] and "-1" in by_id["unweighted_shortest"]
    for ds_id, methods in {
        "lru_cache": ("get(key)", "put(key, value)"),
        "min_stack": ("push(val)", "pop()", "top()", "getMin()"),
        "stack_using_queue": ("push(x)", "pop()", "top()", "empty()"),
        "priority_queue": ("push(x)", "pop()", "top()", "empty()"),
        "avl": ("insert(key)", "inorder()"),
        "reverse_linked_list": ("ListNode(val=0, next=None)", "reverseList(head)", "to_list(head)"),
        "binary_tree_traversal": ("TreeNode(val=0, left=None, right=None)", "inorder(root)"),
    }.items():
        for method in methods:
            assert method in by_id[ds_id], (ds_id, method)


def test_reference_solutions_cover_every_problem_but_stay_out_of_the_data():
    assert set(REFERENCE) == set(INTERNAL30)
    assert set(WRONG) <= set(INTERNAL30) and len(WRONG) >= 8
    for pid, code in REFERENCE.items():
        data_text = (DATA_FOLDER / f"{pid}.json").read_text()
        body = [
            line.strip()
            for line in code.splitlines()
            if len(line.strip()) >= 12 and not line.strip().startswith(("def ", "class ", "import ", "from "))
        ]
        assert len(body) >= 2, pid
        leaked = [line for line in body if json.dumps(line)[1:-1] in data_text]
        assert len(leaked) * 2 < len(body), f"{pid}: reference code found in data/: {leaked}"


def _copy_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "internal30"
    shutil.copytree(DATA_FOLDER, folder)
    return folder


def test_a_changed_entry_point_is_refused_with_file_and_field(tmp_path):
    folder = _copy_folder(tmp_path)
    path = folder / "coin_change.json"
    record = json.loads(path.read_text())
    record["entry_point"] = "coin_change_v2"
    path.write_text(json.dumps(record))
    with pytest.raises(BenchmarkFormatError) as caught:
        load_internal30(folder=folder)
    assert caught.value.source.endswith("coin_change.json")
    assert caught.value.field == "entry_point"
    assert "coinChange" in str(caught.value)


def test_missing_extra_and_malformed_files_are_refused(tmp_path):
    folder = _copy_folder(tmp_path)
    (folder / "fib.json").unlink()
    (folder / "bogus.json").write_text("{}")
    with pytest.raises(BenchmarkFormatError) as caught:
        load_internal30(folder=folder)
    fields = {issue.field: issue.message for issue in caught.value.issues}
    assert fields == {"fib.json": "missing", "bogus.json": "not an internal-30 problem id"}

    folder = _copy_folder(tmp_path / "again")
    path = folder / "lis.json"
    path.write_text(path.read_text().replace('"expected": 4', '"expected": 4,,', 1))
    with pytest.raises(BenchmarkFormatError) as caught:
        load_internal30(folder=folder)
    assert caught.value.field == "(json)" and caught.value.line is not None and caught.value.line > 1


def test_losing_a_visible_flag_is_refused(tmp_path):
    folder = _copy_folder(tmp_path)
    path = folder / "bfs.json"
    record = json.loads(path.read_text())
    for test in record["tests"]:
        test.pop("visible", None)
    path.write_text(json.dumps(record))
    with pytest.raises(BenchmarkFormatError, match="exactly 2 must be visible"):
        load_internal30(folder=folder)
