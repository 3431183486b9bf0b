"""Retrieval: the database's library (shipped seed + edits kept in the store), validation of edits, the per-run
heatmap, and (slow) live queries and edits with the real embedding model."""

from __future__ import annotations

import json

import pytest

from execugraph.retrieval import DEFAULT_LIBRARY_PATH, load_library
from execugraph.store import Store
from execugraph.store.technique_library import current_library
from tests.ui.conftest import no_exception, texts
from ui.keys import Retrieval

NEW = {
    "id": "ui-test-bogosort",
    "name": "Bogosort shuffling",
    "category": "search-sort",
    "when_to_use": "Sorting a deck of playing cards by throwing them in the air until they land in order.",
    "key_idea": "Shuffle until sorted.",
    "complexity": "O(n * n!) expected",
    "pitfalls": "Never use it.",
    "tags": "sorting, shuffle, joke",
}


@pytest.fixture(autouse=True)
def seed_untouched():
    """Whatever a test does on the page, the shipped library file stays byte-identical."""
    before = DEFAULT_LIBRARY_PATH.read_bytes()
    yield
    assert DEFAULT_LIBRARY_PATH.read_bytes() == before


def test_the_library_is_listed_and_filtered(app):
    techniques = load_library(DEFAULT_LIBRARY_PATH)
    at = app("retrieval")
    no_exception(at)
    assert len(at.dataframe[0].value) == len(techniques)
    category = techniques[0].category
    at.selectbox(key=Retrieval.CATEGORY).set_value(category).run()
    assert set(at.dataframe[0].value["category"]) == {category}
    assert len(at.dataframe[0].value) == sum(t.category == category for t in techniques)


def test_a_bad_technique_is_refused_naming_the_field(app, db_store):
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
    at.button(key=Retrieval.SAVE).click().run()
    errors = texts(at, "error")
    assert any(e.startswith("Not saved - field 'id':") for e in errors), errors
    assert db_store.technique_edits() == []


def test_choosing_a_technique_loads_it_into_the_form(app):
    first = load_library(DEFAULT_LIBRARY_PATH)[0]
    at = app("retrieval")
    at.selectbox(key=Retrieval.EDIT).set_value(first.id).run()
    assert at.text_input(key=Retrieval.FIELD + "name").value == first.name
    assert at.text_input(key=Retrieval.FIELD + "tags").value == ", ".join(first.tags)
    assert at.text_input(key=Retrieval.FIELD + "id").disabled


def test_the_heatmap_shows_a_runs_hit_scores(app, seeded_db, db_store):
    at = app("retrieval")
    no_exception(at)
    assert at.selectbox(key=Retrieval.HEATMAP_RUN).value == seeded_db.batch
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


def test_an_added_technique_is_kept_in_this_database_only(app, db_store, tmp_path, monkeypatch):
    seed = load_library(DEFAULT_LIBRARY_PATH)
    at = app("retrieval")
    for name, value in NEW.items():
        _field(at, name).input(value)
    at.button(key=Retrieval.SAVE).click().run()
    no_exception(at)
    assert any("Saved ui-test-bogosort in this database's library" in s for s in texts(at, "success")), texts(
        at, "error"
    )
    assert [(e.action, e.technique_id) for e in db_store.technique_edits()] == [("add", "ui-test-bogosort")]
    library = current_library(db_store)
    assert library.techniques[-1].tags == ("sorting", "shuffle", "joke") and len(library.techniques) == len(seed) + 1
    at.run()
    assert len(at.dataframe[0].value) == len(seed) + 1
    assert any("+ 1 edit kept in the database" in c and library.ref.digest in c for c in texts(at, "caption"))

    monkeypatch.setenv("EXECUGRAPH_DB", str(tmp_path / "second.db"))
    other = app("retrieval")
    no_exception(other)
    assert len(other.dataframe[0].value) == len(seed)
    with Store.open(str(tmp_path / "second.db")) as second:
        assert second.technique_edits() == [] and current_library(second).techniques == seed


def test_an_edited_technique_is_updated_in_place(app, db_store):
    first = load_library(DEFAULT_LIBRARY_PATH)[0]
    at = app("retrieval")
    at.selectbox(key=Retrieval.EDIT).set_value(first.id).run()
    _field(at, "name").input("Renamed on the page")
    at.button(key=Retrieval.SAVE).click().run()
    no_exception(at)
    assert any(f"Saved {first.id}" in s for s in texts(at, "success")), texts(at, "error")
    assert [(e.action, e.technique_id) for e in db_store.technique_edits()] == [("update", first.id)]
    assert current_library(db_store).techniques[0].name == "Renamed on the page"
    at.run()
    assert at.dataframe[0].value["name"][0] == "Renamed on the page"


@pytest.mark.slow
def test_live_query_and_adding_a_technique_with_the_real_model(app, db_store):
    at = app("retrieval")
    at.text_input(key=Retrieval.QUERY).input("shortest path between two cities on a weighted road map").run()
    no_exception(at)
    hits = at.dataframe[1].value
    assert len(hits) == at.slider(key=Retrieval.K).value and list(hits["rank"]) == list(range(1, len(hits) + 1))
    assert list(hits["score"]) == sorted(hits["score"], reverse=True)
    assert any("path" in name.lower() or "dijkstra" in name.lower() for name in hits["name"][:3])

    for name, value in NEW.items():
        _field(at, name).input(value)
    at.button(key=Retrieval.SAVE).click().run()
    no_exception(at)
    assert any("Saved ui-test-bogosort" in s for s in texts(at, "success")), texts(at, "error")
    assert current_library(db_store).techniques[-1].id == "ui-test-bogosort"
    at.text_input(key=Retrieval.QUERY).input("throw playing cards in the air until they land sorted").run()
    assert at.dataframe[1].value["id"][0] == "ui-test-bogosort"


def _field(at, name: str):
    """The library form's widget for one technique field (long texts are text areas)."""
    long_text = name in ("when_to_use", "key_idea", "pitfalls")
    return at.text_area(key=Retrieval.FIELD + name) if long_text else at.text_input(key=Retrieval.FIELD + name)
