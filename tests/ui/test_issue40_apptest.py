"""Issue 40 through AppTest: a forged sign-in role is signed out (and no error detail reaches any browser of a
shared dashboard), dropdowns show stored bidirectional controls as `<U+202E>`, and a viewer's technique form says
it is disabled before anything is typed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from streamlit import config as streamlit_config

from execugraph.publication import import_path
from execugraph.safety.inert_text import BIDI_CONTROLS
from execugraph.store import Store
from execugraph.store.models import utcnow
from tests.support import hostile_study as H
from tests.ui.conftest import no_exception, texts
from ui import access
from ui.keys import Retrieval, Runs, Statistics, Trace

OPERATOR, VIEWER = "op-token-40a1c9e2b7", "view-token-40f3d8a6c1"
RLO = "\u202e"


class Impostor(str):
    """A str subclass that claims to equal every role."""

    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = str.__hash__


@pytest.mark.parametrize("forged", [{"role": "operator"}, ["operator"], "admin", "viewer", Impostor("x"), b"operator"],
                         ids=["dict", "list", "unknown-role", "viewer-without-a-viewer-token", "str-subclass", "bytes"])
def test_a_forged_role_gets_only_the_sign_in_form(app, seeded_db, monkeypatch, forged: Any) -> None:
    monkeypatch.setenv("EXECUGRAPH_DASHBOARD_TOKEN", OPERATOR)
    monkeypatch.delenv("EXECUGRAPH_DASHBOARD_VIEWER_TOKEN", raising=False)
    at = app("synthesize", state={access.ROLE_KEY: forged})
    no_exception(at)
    assert at.text_input(key=access.TOKEN_INPUT) is not None  # the sign-in form ...
    assert not at.sidebar.get("page_link") and not at.dataframe  # ... and nothing else
    assert not any("Problem statement" in t for t in texts(at, "markdown"))
    assert streamlit_config.get_option("client.showErrorDetails") == "none"


def test_signed_in_roles_still_work_and_a_loopback_dashboard_keeps_error_details(app, seeded_db, monkeypatch) -> None:
    streamlit_config.set_option("client.showErrorDetails", "full")
    at = app("runs")  # no token: the person at this machine, who wants the traceback
    no_exception(at)
    assert streamlit_config.get_option("client.showErrorDetails") == "full"
    monkeypatch.setenv("EXECUGRAPH_DASHBOARD_TOKEN", OPERATOR)
    monkeypatch.setenv("EXECUGRAPH_DASHBOARD_VIEWER_TOKEN", VIEWER)
    for role in ("operator", "viewer"):
        at = app("runs", state={access.ROLE_KEY: role})
        no_exception(at)
        assert access.TOKEN_INPUT not in [t.key for t in at.text_input] and at.selectbox(key=Runs.DETAIL).value
        assert streamlit_config.get_option("client.showErrorDetails") == "none"


@pytest.fixture
def rlo_runs(tmp_path: Path) -> tuple[list[int], int]:
    """The hostile study (run titles, problem ids and categories with U+202E) and a run whose condition has one."""
    folder, _ = H.write_study(tmp_path / "hostile")
    with Store.open(str(tmp_path / "runs.db")) as store:
        hostile = [run.id for run in import_path(store, folder).runs]
        own = store.create_run("batch", f"mine {RLO}evil", {"conditions": [f"multi{RLO}full", "single-oneshot"]},
                               benchmark="internal30", status="running")
        for condition in (f"multi{RLO}full", "single-oneshot"):
            for i in range(3):
                trial = store.create_trial(own, f"p{i}{RLO}x", condition, 0, 0, category="dp", benchmark="internal30")
                store.finish_trial(trial, passed=i % 2 == 0)
        store.update_run(own, status="done", progress_total=6, progress_done=6, finished_at=utcnow())
    return hostile, own


def _options(at: Any) -> list[str]:
    """Every option of every select box and multiselect the page draws (as the browser is given them)."""
    return [str(o) for box in [*at.selectbox, *at.multiselect] for o in box.options]


def _no_raw_controls(at: Any) -> list[str]:
    no_exception(at)
    options = _options(at)
    assert not [o for o in options if set(o) & BIDI_CONTROLS], options
    return options


def test_dropdowns_show_a_stored_rlo_as_its_code_point(app, rlo_runs) -> None:
    hostile, own = rlo_runs
    at = app("trace", run=str(own))
    options = _no_raw_controls(at)
    assert any(o.startswith("#") and "p0<U+202E>x" in o for o in at.selectbox(key=Trace.TRIAL).options)
    assert "multi<U+202E>full" in at.selectbox(key=Trace.CONDITION).options
    assert "p1<U+202E>x" in at.selectbox(key=Trace.PROBLEM).options
    assert any("mine <U+202E>evil" in o for o in at.selectbox(key=Trace.RUN).options), options

    at = app("trace", run=str(hostile[0]))
    assert any("<U+202E>" in o for o in _no_raw_controls(at))

    at = app("statistics", runs=str(own))
    _no_raw_controls(at)
    assert "multi<U+202E>full" in at.multiselect(key=Statistics.CONDITIONS).options

    at = app("runs")
    _no_raw_controls(at)
    assert any("mine <U+202E>evil" in o for o in at.selectbox(key=Runs.DETAIL).options)
    assert any("mine <U+202E>evil" in o for o in at.multiselect(key=Runs.SELECT).options)

    for page in ("ablations", "export", "retrieval"):
        _no_raw_controls(app(page, runs=",".join(map(str, [*hostile, own]))))


def test_a_viewer_is_told_the_technique_form_is_disabled(app, seeded_db, monkeypatch) -> None:
    monkeypatch.setenv("EXECUGRAPH_DASHBOARD_TOKEN", OPERATOR)
    monkeypatch.setenv("EXECUGRAPH_DASHBOARD_VIEWER_TOKEN", VIEWER)
    at = app("retrieval", state={access.ROLE_KEY: "viewer"})
    no_exception(at)
    assert any(i.startswith("Adding and editing techniques is disabled: you are signed in as a viewer")
               for i in texts(at, "info")), texts(at, "info")
    assert at.button(key=Retrieval.SAVE).disabled
    assert all(at.text_input(key=Retrieval.FIELD + name).disabled for name in ("id", "name", "category", "tags"))

    at = app("retrieval", state={access.ROLE_KEY: "operator"})  # an operator's form is open
    assert not at.button(key=Retrieval.SAVE).disabled
    assert not any("techniques is disabled" in i for i in texts(at, "info"))
