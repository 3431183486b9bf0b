"""Endpoint waits in the store, on SQLite and PostgreSQL: written by one process, read by another."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from execugraph.store import Store, utcnow
from execugraph.store.engine import writer
from execugraph.store.waits import WAIT

pytestmark = pytest.mark.integration


def test_a_wait_is_recorded_refreshed_and_cleared(store: Store, db_url: str) -> None:
    run_id = store.create_run("batch", "waits", {})
    other = store.create_run("batch", "other", {})
    since = utcnow() - timedelta(seconds=30)
    store.note_endpoint_down(run_id, "http://a:11434", since, "ConnectError: refused")
    store.note_endpoint_down(run_id, "http://a:11434", utcnow(), "HTTP 503: down")  # refresh keeps the first since
    store.note_endpoint_down(run_id, "http://b:11434", utcnow(), "ReadTimeout")
    with Store.open(db_url) as reader:  # another connection pool, as `status` in another process has
        waits = reader.endpoint_waits([run_id, other])
    assert list(waits) == [run_id]
    (a, b) = waits[run_id]
    assert a.endpoint == "http://a:11434" and a.since == since and a.last_error == "HTTP 503: down"
    assert b.endpoint == "http://b:11434"
    store.note_endpoint_up(run_id, "http://a:11434")
    assert [w.endpoint for w in store.endpoint_waits([run_id])[run_id]] == ["http://b:11434"]
    store.clear_endpoint_waits(run_id)
    assert store.endpoint_waits([run_id]) == {}


def test_a_wait_nobody_refreshes_is_not_shown(store: Store) -> None:
    run_id = store.create_run("batch", "stale", {})
    store.note_endpoint_down(run_id, "http://a:11434", utcnow(), "refused")
    with writer(store.engine).begin() as conn:  # the waiting worker died ten minutes ago
        conn.execute(WAIT.update().values(updated_at=utcnow() - timedelta(minutes=10)))
    assert store.endpoint_waits([run_id]) == {}


def test_deleting_a_run_deletes_its_waits(store: Store) -> None:
    run_id = store.create_run("batch", "doomed", {})
    store.note_endpoint_down(run_id, "http://a:11434", utcnow(), "refused")
    assert store.delete_run(run_id)
    with store.engine.connect() as conn:
        assert conn.execute(WAIT.select()).first() is None


def test_a_naive_timestamp_is_refused(store: Store) -> None:
    run_id = store.create_run("batch", "naive", {})
    with pytest.raises(ValueError, match="timezone-aware"):
        store.note_endpoint_down(run_id, "http://a:11434", datetime(2026, 1, 1), "refused")
