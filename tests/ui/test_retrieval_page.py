"""Retrieval: the library table, validation of edits, the per-run heatmap, and (slow) live queries and edits
with the real embedding model on a copy of the library."""

from __future__ import annotations

import json
import shutil

import pytest

from execugraph.retrieval import DEFAULT_LIBRARY_PATH, load_library
from tests.ui.conftest import no_exception, texts
from ui.keys import Retr


@pytest.fixture
def library_copy(tmp_path, monkeypatch):
    """Point the page at a copy of the technique library, so edits never touch data/."""
    path = tmp_path / "techniques.jsonl"
    shutil.copyfile(DEFAULT_LIBRARY_PATH, path)
    monkeypatch.setattr("ui.resources.LIBRARY_PATH", path)
    return path


def test_the_library_is_listed_and_filtered(app, library_copy):
    techniques = load_library(library_copy)
    at = app("retrieval")
    no_exception(at)
    assert len(at.dataframe[0].value) == len(techniques)
    category = techniques[0].category
    at.selectbox(key=Retr.CATEGORY).set_value(category).run()
    assert set(at.dataframe[0].value["category"]) == {category}
    assert len(at.dataframe[0].value) == sum(t.category == category for t in techniques)


def test_a_bad_technique_is_refused_naming_the_field(app, library_copy):
    before = library_copy.read_bytes()
    at = app("retrieval")
    for name, value in {
        "id": "Not An Id!",
        "name": "x",
        "category": "graph",
        "when_to_use": "w",
        "key_idea": "k",
        "complexity": "O(n)",
        "pitfalls": "p",
        "tags": "a",
    }.items():
        _field(at, name).input(value)
    at.button(key=Retr.SAVE).click().run()
    errors = texts(at, "error")
    assert any(e.startswith("Not saved - field 'id':") for e in errors), errors
    assert library_copy.read_bytes() == before


def test_choosing_a_technique_loads_it_into_the_form(app, library_copy):
    first = load_library(library_copy)[0]
    at = app("retrieval")
    at.selectbox(key=Retr.EDIT).set_value(first.id).run()
    assert at.text_input(key=Retr.FIELD + "name").value == first.name
    assert at.text_input(key=Retr.FIELD + "tags").value == ", ".join(first.tags)
    assert at.text_input(key=Retr.FIELD + "id").disabled


def test_the_heatmap_shows_a_runs_hit_scores(app, seeded_db, db_store):
    at = app("retrieval")
    no_exception(at)
    assert at.selectbox(key=Retr.HEATMAP_RUN).value == seeded_db.batch
    heatmap = next(
        json.loads(c.proto.spec)
        for c in at.get("plotly_chart")
        if json.loads(c.proto.spec)["data"][0]["type"] == "heatmap"
    )
    data = heatmap["data"][0]
    assert sorted(data["x"]) == ["bfs", "dp-1d", "memo"] and sorted(data["y"]) == ["bfs", "climb_stairs", "dfs", "fib"]
    cell = data["z"][data["y"].index("fib")][data["x"].index("dp-1d")]
    assert cell == pytest.approx(0.66)  # the seeded rank-1 score (0.71 - 0.05), the mean over fib's multi-rag trials


def test_empty_heatmap_says_how_to_get_hits(app):
    at = app("retrieval")
    assert any("No run has retrieval hits yet" in i for i in texts(at, "info"))


@pytest.mark.slow
def test_live_query_and_adding_a_technique_with_the_real_model(app, library_copy):
    at = app("retrieval")
    at.text_input(key=Retr.QUERY).input("shortest path between two cities on a weighted road map").run()
    no_exception(at)
    hits = at.dataframe[1].value
    assert len(hits) == at.slider(key=Retr.K).value and list(hits["rank"]) == list(range(1, len(hits) + 1))
    assert list(hits["score"]) == sorted(hits["score"], reverse=True)
    assert any("path" in name.lower() or "dijkstra" in name.lower() for name in hits["name"][:3])

    new = {
        "id": "ui-test-bogosort",
        "name": "Bogosort shuffling",
        "category": "search-sort",
        "when_to_use": "Sorting a deck of playing cards by throwing them in the air until they land in order.",
        "key_idea": "Shuffle until sorted.",
        "complexity": "O(n * n!) expected",
        "pitfalls": "Never use it.",
        "tags": "sorting, shuffle, joke",
    }
    for name, value in new.items():
        _field(at, name).input(value)
    at.button(key=Retr.SAVE).click().run()
    no_exception(at)
    assert any("Saved ui-test-bogosort" in s for s in texts(at, "success")), texts(at, "error")
    assert load_library(library_copy)[-1].id == "ui-test-bogosort"
    at.text_input(key=Retr.QUERY).input("throw playing cards in the air until they land sorted").run()
    assert at.dataframe[1].value["id"][0] == "ui-test-bogosort"


def _field(at, name: str):
    """The library form's widget for one technique field (long texts are text areas)."""
    long_text = name in ("when_to_use", "key_idea", "pitfalls")
    return at.text_area(key=Retr.FIELD + name) if long_text else at.text_input(key=Retr.FIELD + name)
