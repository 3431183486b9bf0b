"""Engine factory: URL handling, SQLite connection settings and locking, JSON serialisation."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import insert
from sqlalchemy.exc import IntegrityError

from execugraph.store import Store, StoreUnavailableError, Trial, make_engine
from execugraph.store.engine import BUSY_TIMEOUT_MS, display_url, json_dumps, normalise_url, writer
from tests.support.postgres import free_port


def test_postgres_urls_use_psycopg3() -> None:
    assert normalise_url("postgresql://u:p@db:5432/runs").drivername == "postgresql+psycopg"
    assert normalise_url("postgres://u@db/runs").drivername == "postgresql+psycopg"
    assert normalise_url("postgresql+psycopg://u@db/runs").drivername == "postgresql+psycopg"
    assert normalise_url("sqlite:////tmp/x.db").drivername == "sqlite"


@pytest.mark.parametrize("url", ["sqlite://", "sqlite:///:memory:"])
def test_in_memory_sqlite_is_refused_with_a_reason(url: str) -> None:
    with pytest.raises(ValueError, match="in-memory SQLite"):
        normalise_url(url)


def test_bad_urls_are_named() -> None:
    with pytest.raises(ValueError, match="not a database URL: 'runs db'"):
        normalise_url("runs db")
    with pytest.raises(ValueError, match="no database driver for nonsense://u:\\*\\*\\*@h/db"):
        make_engine("nonsense://u:secret@h/db")


def test_display_url_hides_password() -> None:
    engine = make_engine("postgresql://alice:s3cret@127.0.0.1:1/runs")
    shown = display_url(engine)
    assert "s3cret" not in shown
    assert "alice" in shown and "127.0.0.1" in shown


def test_sqlite_connections_get_wal_foreign_keys_and_busy_timeout(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'nested' / 'dir' / 'runs.db'}")
    assert (tmp_path / "nested" / "dir").is_dir(), "parent directories are created"
    # Two separate pooled connections: the settings must hold on every connection, not just the first.
    with engine.connect() as first, engine.connect() as second:
        for conn in (first, second):
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
            assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == BUSY_TIMEOUT_MS
    engine.dispose()


def test_a_sqlite_url_may_name_its_busy_timeout_in_seconds(tmp_path: Path) -> None:
    """`?timeout=S` (Python's sqlite3 word) sets the busy timeout of every connection, read-only ones included."""
    url = f"sqlite:///{tmp_path / 'runs.db'}?timeout=2.5"
    Store.open(url).engine.dispose()
    for engine in (make_engine(url), make_engine(url, read_only="ro")):
        with engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == 2500
        engine.dispose()


@pytest.mark.parametrize("value", ["abc", "-1", "nan", "inf", "1e9"])
def test_a_busy_timeout_that_is_not_seconds_is_refused_by_name(tmp_path: Path, value: str) -> None:
    url = f"sqlite:///{tmp_path / 'runs.db'}?timeout={value}"
    with pytest.raises(ValueError, match="the database URL's timeout must be seconds from 0 to 86400"):
        normalise_url(url)
    with pytest.raises(StoreUnavailableError, match=f"timeout must be seconds .*got {value!r}"):
        Store.open(url)
    assert not (tmp_path / "runs.db").exists()  # refused before anything was created


def test_sqlite_foreign_keys_are_enforced(sqlite_store: Store) -> None:
    with pytest.raises(IntegrityError), writer(sqlite_store.engine).begin() as conn:
        conn.execute(insert(Trial.__table__).values(run_id=4242, problem_id="p", condition="c", seed=0))


def test_sqlite_writes_take_the_lock_at_begin(tmp_path: Path) -> None:
    """A write transaction holds the write lock from BEGIN, so it can never fail later on a stale snapshot."""
    path = tmp_path / "lock.db"
    store = Store.open(str(path))
    other = sqlite3.connect(path, timeout=0, isolation_level=None)
    try:
        with writer(store.engine).connect() as conn:
            conn.begin()
            with pytest.raises(sqlite3.OperationalError, match="locked"):
                other.execute("BEGIN IMMEDIATE")
            conn.rollback()
        other.execute("BEGIN IMMEDIATE")  # free again once the writer is done
        other.execute("ROLLBACK")
        # Plain reads do not take the write lock.
        with store.engine.connect() as conn:
            conn.exec_driver_sql("SELECT count(*) FROM run").scalar()
            other.execute("BEGIN IMMEDIATE")
            other.execute("ROLLBACK")
    finally:
        other.close()
        store.close()


def test_unreachable_databases_are_named(tmp_path: Path) -> None:
    blocked = tmp_path / "file-not-dir"
    blocked.write_text("x")
    with pytest.raises(StoreUnavailableError, match="cannot use the database sqlite:///.*file-not-dir/runs.db"):
        Store(make_engine(f"sqlite:///{blocked}/runs.db"))
    with pytest.raises(StoreUnavailableError, match="cannot create the database .*file-not-dir/runs.db: .* is a file"):
        Store.open(f"sqlite:///{blocked}/runs.db")
    port = free_port()  # nothing listens there
    with pytest.raises(
        StoreUnavailableError,
        match=f"cannot connect to the PostgreSQL database postgresql\\+psycopg://u:\\*\\*\\*@127.0.0.1:{port}/db",
    ):
        Store.open(f"postgresql://u:pw@127.0.0.1:{port}/db?connect_timeout=3")


def test_store_open_defaults_to_execugraph_db(tmp_path: Path) -> None:
    # conftest points EXECUGRAPH_DB at tmp_path/runs.db for every test.
    with Store.open() as store:
        store.create_run("single", "env db", {})
        assert str(tmp_path / "runs.db") in store.url
    assert (tmp_path / "runs.db").exists()


class _BrokenRepr:
    def __repr__(self) -> str:
        raise RuntimeError("no repr")


def test_json_dumps_stores_what_plain_json_cannot() -> None:
    value = {
        "set": {3, 1, 2},
        "tuple": (1, "a"),
        "bytes": b"ab\xff",
        "nan": float("nan"),
        "inf": float("-inf"),
        "obj": Path("/tmp/x"),
        "broken": _BrokenRepr(),
        1: "int key",
    }
    decoded = json.loads(json_dumps(value))
    assert decoded["set"] == [1, 2, 3]
    assert decoded["tuple"] == [1, "a"]
    assert decoded["bytes"] == "ab\ufffd"
    assert decoded["nan"] == "nan" and decoded["inf"] == "-inf"
    assert decoded["obj"] == "PosixPath('/tmp/x')"
    assert decoded["broken"] == "<unrepresentable _BrokenRepr>"
    assert decoded["1"] == "int key"
    assert "NaN" not in json_dumps(value) and "Infinity" not in json_dumps(value)
