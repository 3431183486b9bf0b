"""Technique library and evaluation-set files: validation with line numbers, edits as pure list operations,
the content digest, atomic file writes, shipped data."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from execugraph.retrieval import KNOWN_CATEGORIES, LibraryFormatError, Technique, load_eval_set, load_library
from execugraph.retrieval.evaluation import DEFAULT_EVAL_PATH
from execugraph.retrieval.library import (
    DEFAULT_LIBRARY_PATH,
    apply_edits,
    library_digest,
    save_library,
    serialise_library,
    with_added,
    with_updated,
)

INTERNAL_30 = [
    "fib", "climb_stairs", "coin_change", "lcs", "house_robber", "min_cost_path", "lis", "rod_cutting",
    "matrix_chain", "subset_sum", "topo_sort", "cycle_detect", "bfs", "dfs", "dijkstra", "bellman_ford",
    "connected_components", "scc", "unweighted_shortest", "grid_shortest_path", "lru_cache", "min_stack",
    "stack_using_queue", "reverse_linked_list", "binary_tree_traversal", "priority_queue", "heapify", "avl",
    "adj_list_construct", "valid_parentheses",
]  # fmt: skip


def technique_dict(tid: str = "t-one", **overrides: object) -> dict[str, object]:
    data: dict[str, object] = {
        "id": tid,
        "name": f"Technique {tid}",
        "category": "graph",
        "when_to_use": "when things need doing",
        "key_idea": "do the thing once",
        "complexity": "O(n)",
        "pitfalls": "doing it twice",
        "tags": ["a", "b"],
    }
    data.update(overrides)
    return data


def write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_valid_library_round_trips(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "lib.jsonl", [json.dumps(technique_dict("a")), "", json.dumps(technique_dict("b"))])
    techniques = load_library(path)
    assert [t.id for t in techniques] == ["a", "b"]
    assert techniques[0].tags == ("a", "b")
    save_library(tmp_path / "copy.jsonl", techniques)
    assert load_library(tmp_path / "copy.jsonl") == techniques


def test_bad_json_is_refused_with_its_line_number(tmp_path: Path) -> None:
    path = write_lines(
        tmp_path / "lib.jsonl", [json.dumps(technique_dict("a")), json.dumps(technique_dict("b")), '{"id": "c",']
    )
    with pytest.raises(LibraryFormatError) as info:
        load_library(path)
    assert info.value.line == 3
    assert "line 3" in str(info.value) and "invalid JSON" in str(info.value)
    assert info.value.path == path


def test_missing_field_is_refused_with_line_and_field(tmp_path: Path) -> None:
    broken = technique_dict("b")
    del broken["key_idea"]
    path = write_lines(tmp_path / "lib.jsonl", [json.dumps(technique_dict("a")), json.dumps(broken)])
    with pytest.raises(LibraryFormatError) as info:
        load_library(path)
    assert (info.value.line, info.value.field) == (2, "key_idea")
    assert "line 2, field 'key_idea'" in str(info.value)


def test_duplicate_id_is_refused_naming_both_lines(tmp_path: Path) -> None:
    path = write_lines(
        tmp_path / "lib.jsonl",
        [json.dumps(technique_dict("a")), json.dumps(technique_dict("b")), "", json.dumps(technique_dict("a"))],
    )
    with pytest.raises(LibraryFormatError) as info:
        load_library(path)
    assert (info.value.line, info.value.field) == (4, "id")
    assert "first defined on line 1" in str(info.value)


@pytest.mark.parametrize(
    ("line", "field"),
    [
        (json.dumps(technique_dict("a", tags=[])), "tags"),
        (json.dumps(technique_dict("a", tags=["ok", "  "])), "tags"),
        (json.dumps(technique_dict("Bad Id")), "id"),
        (json.dumps(technique_dict("a", name="")), "name"),
        (json.dumps(technique_dict("a", when_to_use=7)), "when_to_use"),
        (json.dumps(technique_dict("a", colour="blue")), "colour"),
        ("[1, 2, 3]", None),
    ],
)
def test_invalid_values_are_refused(tmp_path: Path, line: str, field: str | None) -> None:
    path = write_lines(tmp_path / "lib.jsonl", [json.dumps(technique_dict("ok")), line])
    with pytest.raises(LibraryFormatError) as info:
        load_library(path)
    assert info.value.line == 2
    assert info.value.field == field


def test_empty_or_missing_library_is_refused(tmp_path: Path) -> None:
    (tmp_path / "empty.jsonl").write_text("\n\n", encoding="utf-8")
    with pytest.raises(LibraryFormatError, match="no techniques"):
        load_library(tmp_path / "empty.jsonl")
    with pytest.raises(LibraryFormatError, match="not found"):
        load_library(tmp_path / "nope.jsonl")


def test_add_and_update_return_a_new_library_in_order() -> None:
    library = [Technique(**technique_dict("a")), Technique(**technique_dict("b"))]
    added = with_added(library, Technique(**technique_dict("c")))
    assert [t.id for t in added] == ["a", "b", "c"] and [t.id for t in library] == ["a", "b"]
    updated = with_updated(added, Technique(**technique_dict("a", name="Renamed")))
    assert [t.id for t in updated] == ["a", "b", "c"] and updated[0].name == "Renamed"
    assert added[0].name == "Technique a"


def test_refused_edits_name_the_id_field() -> None:
    library = [Technique(**technique_dict("a"))]
    with pytest.raises(LibraryFormatError, match="already exists") as exists:
        with_added(library, Technique(**technique_dict("a")))
    with pytest.raises(LibraryFormatError, match="no technique with id 'zzz'") as missing:
        with_updated(library, Technique(**technique_dict("zzz")))
    assert exists.value.field == missing.value.field == "id"


def test_edits_replace_their_id_in_place_or_append_in_order() -> None:
    seed = [Technique(**technique_dict("a")), Technique(**technique_dict("b"))]
    edits = [Technique(**technique_dict("c")), Technique(**technique_dict("a", name="A2")),
             Technique(**technique_dict("c", name="C2"))]
    merged = apply_edits(seed, edits)
    assert [(t.id, t.name) for t in merged] == [("a", "A2"), ("b", "Technique b"), ("c", "C2")]
    assert apply_edits(seed, []) == seed


def test_digest_is_the_sha256_of_the_canonical_lines_and_sees_order_and_content() -> None:
    import hashlib

    a, b = Technique(**technique_dict("a")), Technique(**technique_dict("b"))
    assert library_digest([a, b]) == hashlib.sha256(serialise_library([a, b]).encode()).hexdigest()
    assert library_digest([a, b]) != library_digest([b, a])
    assert library_digest([a, b]) != library_digest([a, Technique(**technique_dict("b", pitfalls="other"))])
    assert library_digest([a, b]) == library_digest([Technique(**technique_dict("a")), b])


def test_saving_a_file_is_atomic_and_refuses_duplicates(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "lib.jsonl", [json.dumps(technique_dict("a"))])
    before = path.read_bytes()
    with pytest.raises(LibraryFormatError, match="duplicate id"):
        save_library(path, [Technique(**technique_dict("x")), Technique(**technique_dict("x"))])
    assert path.read_bytes() == before
    save_library(path, [Technique(**technique_dict("a")), Technique(**technique_dict("b"))])
    assert [t.id for t in load_library(path)] == ["a", "b"]
    assert [p.name for p in tmp_path.iterdir()] == ["lib.jsonl"]  # no temporary files left behind


def test_embedding_views_are_the_problem_description_and_the_name_with_tags() -> None:
    t = Technique(**technique_dict("a", when_to_use="shortest routes", tags=["graph", "heap"]))
    views = t.embedding_texts()
    assert views[0] == "shortest routes"
    assert t.name in views[1] and "graph, heap" in views[1]


def test_shipped_library_is_valid_and_covers_every_category() -> None:
    techniques = load_library(DEFAULT_LIBRARY_PATH)
    assert len(techniques) >= 40
    categories = {t.category for t in techniques}
    assert set(KNOWN_CATEGORIES) <= categories
    backend_tags = {tag for t in techniques if t.category == "backend" for tag in t.tags}
    assert {"cache", "rate limiting", "pagination", "idempotency"} <= backend_tags


def test_shipped_eval_set_is_labelled_with_existing_techniques() -> None:
    library = load_library(DEFAULT_LIBRARY_PATH)
    cases = load_eval_set(DEFAULT_EVAL_PATH, library)
    ids = [c.id for c in cases]
    assert len(cases) >= 40
    assert set(INTERNAL_30) <= set(ids)
    assert len(set(ids) - set(INTERNAL_30)) >= 10


def test_eval_statements_do_not_quote_technique_names() -> None:
    """Honesty check: a statement must describe a problem, not name the technique it is labelled with."""
    by_id = {t.id: t for t in load_library(DEFAULT_LIBRARY_PATH)}
    for case in load_eval_set(DEFAULT_EVAL_PATH):
        for tid in case.expected:
            name = by_id[tid].name.lower()
            core = name.split(" (")[0]
            assert core not in case.statement.lower(), (case.id, name)


def test_eval_set_errors_name_the_line(tmp_path: Path) -> None:
    library = [Technique(**technique_dict("a"))]
    path = write_lines(
        tmp_path / "eval.jsonl",
        [
            json.dumps({"id": "p1", "statement": "x", "expected": ["a"]}),
            json.dumps({"id": "p2", "statement": "y", "expected": ["nope"]}),
        ],
    )
    with pytest.raises(LibraryFormatError) as info:
        load_eval_set(path, library)
    assert (info.value.line, info.value.field) == (2, "expected")
    path = write_lines(tmp_path / "eval2.jsonl", [json.dumps({"id": "p1", "statement": "x"})])
    with pytest.raises(LibraryFormatError) as info:
        load_eval_set(path)
    assert (info.value.line, info.value.field) == (1, "expected")
