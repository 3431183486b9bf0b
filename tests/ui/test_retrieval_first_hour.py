"""Retrieval page (issue 41): the library's count updates right after an addition, and a run that used retrieval
but recorded no hits is named with the reason instead of missing without a word."""

from __future__ import annotations

from execugraph.retrieval import DEFAULT_LIBRARY_PATH, load_library
from tests.ui.conftest import no_exception, texts
from tests.ui.test_retrieval_page import NEW, _field, seed_untouched  # noqa: F401 - the fixture
from ui.keys import Retrieval
from ui.views.retrieval_gaps import silent_retrieval_runs, uses_retrieval


def test_the_count_shows_an_added_technique_without_a_reload(app, db_store):
    seed = load_library(DEFAULT_LIBRARY_PATH)
    at = app("retrieval")
    assert any(c.startswith(f"{len(seed)} of {len(seed)} techniques")
               for c in texts(at, "caption"))
    for name, value in NEW.items():
        _field(at, name).input(value)
    at.button(key=Retrieval.SAVE).click().run()  # one click, no further rerun or reload
    no_exception(at)
    count = len(seed) + 1
    assert any(c.startswith(f"{count} of {count} techniques") for c in texts(at, "caption")), texts(at, "caption")
    assert len(at.dataframe[0].value) == count
    assert any("Saved ui-test-bogosort" in s for s in texts(at, "success"))


def test_a_published_rag_run_without_retrieval_fields_says_why_it_shows_no_hits(app, db_store):
    quiet = db_store.create_run("import", "e4_rag_on", {"conditions": {"rag_on": {}}}, status="done")
    db_store.create_run("import", "e1_so", {"conditions": {"so": {}}}, status="done")
    lines = silent_retrieval_runs(db_store)
    assert len(lines) == 1 and f"#{quiet}" in lines[0], lines
    assert lines[0].endswith("this run recorded no retrieval hits (its logs carry no retrieval fields)")
    at = app("retrieval")
    no_exception(at)
    assert any("e4_rag_on" in c and "its logs carry no retrieval fields" in c for c in texts(at, "caption"))


def test_which_configs_use_retrieval():
    assert uses_retrieval({"conditions": ["single-oneshot", "multi-rag"]})
    assert uses_retrieval({"conditions": {"custom": {"retrieval": True}}})
    assert not uses_retrieval({"conditions": ["single-oneshot", "multi-full"]})
    assert not uses_retrieval({"condition": "drag-and-drop"})  # `rag` inside a word is not retrieval
