"""Issue 30's smaller points: `/runs?run=4` opens run 4, one database line in the sidebar, a health line that
follows the embedded model once it is loaded."""

from __future__ import annotations

import pytest

from execugraph.providers import embedded, llm
from tests.ui.conftest import no_exception, texts
from ui.keys import Runs


def _sidebar(at) -> str:
    return " ".join(str(m.value) for m in at.sidebar.markdown) + " " + " ".join(str(c.value) for c in at.sidebar.caption)


def test_a_run_link_opens_that_runs_detail(app, seeded_db):
    at = app("runs", run=str(seeded_db.single))
    no_exception(at)
    assert at.selectbox(key=Runs.DETAIL).value == seeded_db.single
    assert not at.warning
    at.selectbox(key=Runs.DETAIL).set_value(seeded_db.batch).run()  # the link is applied once, not over a choice
    assert at.selectbox(key=Runs.DETAIL).value == seeded_db.batch


@pytest.mark.parametrize("raw", ["9999", "abc"])
def test_an_unknown_run_in_the_link_is_named_in_a_warning(app, seeded_db, raw):
    at = app("runs", run=raw)
    no_exception(at)
    assert any(raw in w and "not found" in w for w in texts(at, "warning")), texts(at, "warning")
    assert at.selectbox(key=Runs.DETAIL).value in {seeded_db.batch, seeded_db.single, seeded_db.running,
                                                   seeded_db.cancelled}


def test_a_linked_run_the_filters_hide_is_named_in_a_warning(app, seeded_db):
    at = app("runs", state={Runs.KIND: "single"}, run=str(seeded_db.batch))
    no_exception(at)
    assert any(f"#{seeded_db.batch}" in w and "filters" in w for w in texts(at, "warning")), texts(at, "warning")


def test_the_sidebar_names_the_database_once(app, tmp_path):
    at = app("synthesize")
    assert _sidebar(at).count(str(tmp_path / "runs.db")) == 1


def test_the_health_line_follows_the_embedded_model(app, monkeypatch):
    path = str(llm.embedded_model_path())
    monkeypatch.setattr(embedded, "LLAMAS", {})
    at = app("synthesize")
    assert "loads on first use" in _sidebar(at) and "not loaded" not in _sidebar(at)
    embedded.LLAMAS[(path, 4096, 1)] = (object(), None)  # a trial loaded it in this process
    at = app("synthesize")  # a new session within the 30 s the health checks are cached for
    assert f"{llm.EMBEDDED_NAME} loaded" in _sidebar(at), _sidebar(at)
