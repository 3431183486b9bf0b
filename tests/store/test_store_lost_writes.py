"""A process that keeps the database open never loses what it writes, whoever else opens and closes the file.

The sequence a long-lived dashboard meets, with the real code paths: its store
open, the sidebar's health check (which opens a second Store), a worker it
autostarted that exits idle, a `status` typed in a terminal; then it writes
again, and other processes count what is on disk. Before the fix the health
check read the file header with open()/close(), which drops every POSIX lock
the process holds on the file (SQLite's included); the idle worker, believing
itself the last connection, then checkpointed and deleted `runs.db-wal`, and
the dashboard's next writes went into the deleted file: 1 of 2 rows seen.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from execugraph.batch.worker_process import ensure_worker, worker_alive
from execugraph.configuration.settings import PROJECT_ROOT, load_settings
from execugraph.providers.health import check_database
from execugraph.store import Store
from execugraph.store.wal_watch import file_id, wal_path
from tests.support import db_files
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration


def cli(db: Path, *args: str) -> subprocess.CompletedProcess:
    """`python -m execugraph --db DB ...` in a process of its own, which opens and closes the database."""
    argv = [sys.executable, "-m", "execugraph", "--db", str(db), *args]
    env = os.environ | {"OLLAMA_HOST": "http://127.0.0.1:9"}
    done = subprocess.run(argv, cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return done


def titles_on_disk(db: Path) -> list[str]:
    """The batch titles another process finds, through the CLI users type."""
    return sorted(row["title"] for row in json.loads(cli(db, "status", "--json").stdout))


def count_elsewhere(db: Path) -> int:
    """Runs counted by a third process with plain sqlite3."""
    code = f"import sqlite3; c = sqlite3.connect({str(db)!r}); print(c.execute('SELECT count(*) FROM run').fetchone()[0])"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return int(done.stdout)


def is_zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:  # the kernel's view of another process, not a database file
            return stat.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return False


def test_the_dashboards_writes_survive_health_checks_an_idle_worker_and_a_status(tmp_path, monkeypatch) -> None:
    db = tmp_path / "runs.db"
    monkeypatch.setenv("EXECUGRAPH_CACHE_DIR", str(tmp_path / "cache"))
    settings = load_settings(str(db))
    dashboard = Store.open(str(db))  # the dashboard's cached store, held for the whole session
    try:
        dashboard.create_run("batch", "before", {}, status="done")
        with db_files.python_opens(db) as opened:
            assert check_database(settings).level == "ok"  # the sidebar's check, every 30 s
            Store.open(str(db)).close()  # a page opening the store
        log_before = file_id(wal_path(db))

        pid = ensure_worker(str(db), idle_exit_s=0.5)  # autostarted as the dashboard does; exits idle
        assert pid is not None
        wait_until(lambda: not os.path.exists(f"/proc/{pid}") or is_zombie(pid), 600, "the idle worker to exit")
        assert not worker_alive(str(db))
        wait_until(lambda: not is_zombie(pid), 60, f"the exited worker {pid} to be reaped, not left a zombie")
        assert titles_on_disk(db) == ["before"]  # `status` in a terminal: open, read, close

        assert file_id(wal_path(db)) == log_before, "the write-ahead log was deleted under an open connection"
        dashboard.create_run("batch", "after", {}, status="done")
        assert check_database(settings).level == "ok"
        assert titles_on_disk(db) == ["after", "before"]
        assert count_elsewhere(db) == 2
    finally:
        dashboard.close()
    assert count_elsewhere(db) == 2
    assert opened == [], f"Python file APIs opened the database behind SQLite's back: {opened}"


def test_a_store_whose_locks_were_lost_reconnects_instead_of_writing_into_a_deleted_log(tmp_path, caplog) -> None:
    """The second line of defence: a dropped lock and a deleted log are noticed at the next write."""
    db = tmp_path / "runs.db"
    store = Store.open(str(db))
    try:
        store.create_run("batch", "one", {}, status="done")
        db_files.drop_posix_locks(db)  # what the old header check did
        cli(db, "status")  # believes itself the last: checkpoints and deletes the log
        assert not wal_path(db).exists(), "the stand-in for the hazard did not happen; the test proves nothing"
        with caplog.at_level(logging.WARNING, logger="execugraph.store.wal_watch"):
            store.create_run("batch", "two", {}, status="done")
        assert "was deleted while this process had it open" in caplog.text
        assert count_elsewhere(db) == 2
        store.create_run("batch", "three", {}, status="done")
        assert titles_on_disk(db) == ["one", "three", "two"]
    finally:
        store.close()
    assert count_elsewhere(db) == 3


@pytest.mark.parametrize("content", [b"this is no database " * 200, b"SQLite format 3\x00" + b"\xff" * 84])
def test_the_header_check_reads_through_sqlite_and_still_refuses_a_foreign_file(tmp_path, content) -> None:
    from execugraph.store import StoreUnavailableError

    db = db_files.write_bytes(tmp_path / "runs.db", content)
    with db_files.python_opens(db) as opened, pytest.raises(StoreUnavailableError, match="corrupt or not a database"):
        Store.open(str(db))
    assert opened == []
    assert db_files.read_bytes(db) == content, "the file is left as it was"


def test_the_header_check_keeps_another_connections_locks(tmp_path) -> None:
    """A connection held, the header checked, another process opening and closing: the log is still there."""
    db = tmp_path / "runs.db"
    with Store.open(str(db)) as store:
        store.create_run("batch", "held", {}, status="done")
        held = sqlite3.connect(db)
        try:
            held.execute("SELECT count(*) FROM run").fetchone()
            before = file_id(wal_path(db))
            for _ in range(3):
                Store.open(str(db)).close()
            cli(db, "status")
            assert file_id(wal_path(db)) == before
        finally:
            held.close()
