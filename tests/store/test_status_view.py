"""`status`'s Core-only view of the store reads what the ORM Store reads: the same runs, columns, values and counts."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import JSON, Boolean, DateTime, Float, Integer, String

from execugraph.store import Run, Store, Trial
from execugraph.store.status_view import RUN, TRIAL, AwareUTC, RunView, StatusView

# What each model column type reads as: the view's type must read the same Python values.
KINDS = {"Integer": Integer, "AutoString": String, "MessageText": String, "JSON": JSON, "UTCDateTime": AwareUTC,
         "Boolean": Boolean, "Float": Float}


def _kind(column_type) -> type:
    return KINDS[type(column_type).__name__]


def test_view_tables_hold_the_models_columns_with_the_same_kinds():
    model = Run.__table__  # type: ignore[attr-defined]
    assert [c.name for c in RUN.c] == [c.name for c in model.c]  # a column added to Run must be added here
    for column in model.c:
        assert isinstance(RUN.c[column.name].type, _kind(column.type)), column.name
    trial = Trial.__table__  # type: ignore[attr-defined]
    for column in TRIAL.c:
        assert isinstance(column.type, _kind(trial.c[column.name].type)), column.name
    assert isinstance(AwareUTC().impl, DateTime)


@pytest.fixture
def filled(tmp_path):
    """A store with three batch runs (one running and cancelling, with a lease and a sequential state) and a rescore."""
    db = str(tmp_path / "runs.db")
    with Store.open(db) as store:
        done = store.create_run("batch", "first", {"batch": {"concurrency": 2}}, benchmark="humaneval", status="done")
        running = store.create_run("batch", "second ünïcode", {"sequential_state": {"arms": {}, "baseline": "a"},
                                                                "batch": {"sequential": {"alpha": 0.1}}},
                                   status="running")
        store.create_run("rescore", "not a batch", {}, status="done")
        empty = store.create_run("batch", "", {}, status="queued")
        lease = datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)
        store.update_run(running, worker_id="w1", lease_expires_at=lease, cancel_requested=True,
                         heartbeat_at=lease - timedelta(seconds=5), models={"generator": "m"}, tags=["x", "y"])
        for i, (status, passed) in enumerate([("done", True), ("done", False), ("error", None), ("queued", None),
                                              ("running", None), ("cancelled", None), ("done", True)]):
            run = done if i < 3 else running
            trial = store.create_trial(run, f"p{i}", "c", 0, 0, status=status)
            if passed is not None:
                store.update_trial(trial, passed=passed)
    return db, (done, running, empty)


def test_runs_and_progress_read_as_the_store_reads_them(filled):
    db, ids = filled
    with Store.open(db) as store, StatusView.open(db) as view:
        assert [r.id for r in view.list_runs(kind="batch", limit=20)] == [r.id for r in
                                                                          store.list_runs(kind="batch", limit=20)]
        assert [r.id for r in view.list_runs(kind="batch", limit=2)] == [ids[2], ids[1]]
        for run_id in ids:
            mine, theirs = view.get_run(run_id), store.get_run(run_id)
            assert isinstance(mine, RunView)
            assert vars(mine) == theirs.model_dump(), run_id  # every column, JSON decoded, timestamps aware UTC
            assert view.run_progress(run_id) == store.run_progress(run_id)
        assert view.get_run(9999) is None
        assert view.get_run(ids[1]).lease_expires_at == datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)
        assert view.run_progress(ids[0])["passed"] == 1 and view.run_progress(ids[1])["total"] == 4
        assert view.endpoint_waits([ids[1]]) == store.endpoint_waits([ids[1]])
