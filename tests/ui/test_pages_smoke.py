"""Every page runs without an exception on an empty database and on a seeded one, and says something useful."""

from __future__ import annotations

import json

import pytest

from tests.ui.conftest import PAGES, no_exception, texts


@pytest.mark.parametrize("page", PAGES)
def test_every_page_renders_on_an_empty_database(app, page):
    at = app(page)
    no_exception(at)
    assert at.title and at.title[0].value.startswith(page.capitalize()[:5])
    assert not at.error, texts(at, "error")


EMPTY_STATE = {
    "runs": "No runs yet",
    "trace": "No runs yet",
    "ablations": "No runs yet",
    "statistics": "No runs yet",
    "export": "No runs to export yet",
    "batch": "No batches yet",
    "synthesize": "Results appear here",
}


@pytest.mark.parametrize("page", sorted(EMPTY_STATE))
def test_empty_states_say_what_to_do_next(app, page):
    at = app(page)
    assert any(EMPTY_STATE[page] in text for text in texts(at, "info")), texts(at, "info")


@pytest.mark.parametrize("page", PAGES)
def test_every_page_renders_on_a_seeded_database(app, seeded_db, page):
    at = app(page)
    no_exception(at)
    assert not at.error or page == "trace", texts(at, "error")  # a failed trial's grade step is an error box


def test_sidebar_reports_health_and_the_database(app, tmp_path):
    at = app("synthesize")  # AppTest keeps the sidebar of the first run only
    sidebar = " ".join(str(m.value) for m in at.sidebar.markdown) + " ".join(str(c.value) for c in at.sidebar.caption)
    assert "database" in sidebar and str(tmp_path / "runs.db") in sidebar
    assert "ollama" in sidebar and "not reachable at http://127.0.0.1:9" in sidebar


def test_the_app_starts_a_worker_for_its_database_once(app, worker_starts, tmp_path):
    at = app("runs")
    at.switch_page("pages/batch.py").run()
    assert worker_starts == [f"sqlite:///{tmp_path / 'runs.db'}"]


def test_the_first_page_of_a_session_loads_the_chart_frontend_once(app):
    """A blank static chart in the sidebar on the first run only: the page with the first real chart
    then does not wait for the browser to load plotly (bench/pages.py: Trace 1.49 s -> 0.71 s)."""
    at = app("synthesize")
    blank = at.sidebar.get("plotly_chart")
    assert len(blank) == 1 and len(at.main.get("plotly_chart")) == 0
    spec = json.loads(blank[0].proto.spec)
    assert spec["layout"]["height"] == 10 and spec["layout"]["xaxis"]["visible"] is False
    at.run()
    assert len(at.sidebar.get("plotly_chart")) == 0
