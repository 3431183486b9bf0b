"""A bad `--db` is one line and exit 2 for every command; a database on read-only storage can still be read.

Every case drives `python -m execugraph` as a subprocess, the way a user meets
it: a corrupt file (garbage, and a real database with scribbled pages), a
folder, a folder that cannot be written (a real read-only bind mount, since the
suite may run as root), a PostgreSQL URL with nothing listening, a wrong
password and a missing database on the real server, a scheme nobody serves.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from execugraph.batch.control import enqueue_batch
from execugraph.batch.spec import BatchSpec
from execugraph.configuration.settings import PROJECT_ROOT
from execugraph.store import Store, StoreReadOnlyError, StoreUnavailableError, make_engine, migrations
from tests.support import db_files
from tests.support.postgres import free_port
from tests.support.readonly import read_only_argv, unavailable_reason

pytestmark = pytest.mark.integration

COMMANDS = [
    ["status"],
    ["status", "--json"],
    ["stats", "--runs", "1"],
    ["export", "--run", "1", "--out", "OUT/bundle.zip"],
    ["import", "OUT/missing.zip"],
    ["rescore", "--run", "1"],
    ["cancel", "1"],
    ["resume", "1"],
    ["worker", "--once"],
    ["batch", "--problems", "fib", "--conditions", "single-oneshot"],
    ["run", "--problem", "internal30/fib", "--condition", "single-oneshot"],
]


def cli(db: str, args: list[str], tmp_path: Path, *, read_only: Path | None = None) -> subprocess.CompletedProcess:
    argv = [sys.executable, "-m", "execugraph", "--db", db, *(a.replace("OUT", str(tmp_path)) for a in args)]
    if read_only is not None:
        argv = read_only_argv(read_only, argv)
    env = os.environ | {"OLLAMA_HOST": "http://127.0.0.1:9"}
    return subprocess.run(argv, cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=300)


def assert_one_line(done: subprocess.CompletedProcess, *expected: str) -> str:
    """Exit 2, one line on stderr that names the command and says each expected thing, no traceback."""
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    line = done.stderr.strip()
    assert "\n" not in line and "Traceback" not in line, done.stderr
    for part in expected:
        assert part in line, (part, line)
    return line


def _garbage(path: Path) -> Path:
    return db_files.write_bytes(path, b"this is no database " * 200)


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: " ".join(a[:2]))
def test_every_command_names_a_corrupt_database_in_one_line(tmp_path: Path, args: list[str]) -> None:
    db = _garbage(tmp_path / "runs.db")
    line = assert_one_line(cli(str(db), args, tmp_path), str(db), "corrupt", "--db")
    assert line.startswith(f"{args[0]}: ")
    assert db_files.read_bytes(db) == b"this is no database " * 200, "the file is left as it was"


def _batch_db(path: Path) -> int:
    spec = BatchSpec(benchmark="internal30", problem_ids=["fib", "climb_stairs"], conditions=["single-oneshot"])
    with Store.open(str(path)) as store:
        run_id = enqueue_batch(store, spec)
        store.update_run(run_id, status="done")
    with closing(sqlite3.connect(path)) as conn:  # fold the WAL into the file, as a closed database is
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return run_id


def test_a_database_with_damaged_pages_is_named_when_read(tmp_path: Path) -> None:
    db = tmp_path / "damaged.db"
    _batch_db(db)
    with Store.open(str(db)) as store:
        for i in range(40):
            store.create_run("batch", f"filler {i}" * 200, {"pad": "x" * 3000}, status="done")
    with closing(sqlite3.connect(db)) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = bytearray(db_files.read_bytes(db))
    for offset in range(4096 * 2, len(data), 4096):  # every page after the schema's
        data[offset : offset + 64] = b"\xff" * 64
    db_files.write_bytes(db, bytes(data))
    assert_one_line(cli(str(db), ["status"], tmp_path), str(db), "corrupt", "malformed")


def test_a_folder_a_bad_scheme_and_an_in_memory_url_are_refused(tmp_path: Path) -> None:
    assert_one_line(cli(str(tmp_path), ["status"], tmp_path), "is a folder", str(tmp_path / "runs.db"))
    line = assert_one_line(cli("foo://ann:hunter22@host/db", ["status"], tmp_path), "'foo'", "SQLite or PostgreSQL")
    assert "hunter22" not in line
    assert_one_line(cli("sqlite:///:memory:", ["stats", "--runs", "1"], tmp_path), "in-memory")


def test_a_postgresql_url_with_no_server_hides_the_password(tmp_path: Path) -> None:
    port = free_port()  # nothing listens there
    line = assert_one_line(
        cli(f"postgresql://ann:hunter22@127.0.0.1:{port}/runs", ["status"], tmp_path),
        "PostgreSQL",
        f"127.0.0.1:{port}",
        "ann:***@",
        "start the server",
    )
    assert "hunter22" not in line


@pytest.mark.postgres
def test_a_wrong_password_and_a_missing_database_on_a_real_server(pg_url: str, tmp_path: Path) -> None:
    url = make_url(pg_url)
    wrong = url.set(password="not-the-password").render_as_string(hide_password=False)
    line = assert_one_line(cli(wrong, ["status"], tmp_path), "password", "user name and password")
    assert "not-the-password" not in line
    missing = url.set(database="no_such_database_here").render_as_string(hide_password=False)
    line = assert_one_line(cli(missing, ["stats", "--runs", "1"], tmp_path), "no_such_database_here", "does not exist")
    assert f":{url.password}@" not in line


# -- read-only storage -----------------------------------------------------------------------------


@pytest.fixture
def read_only_mounts() -> None:
    reason = unavailable_reason()
    if reason:
        pytest.skip(reason)


def _digest(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def test_a_read_only_folder_cannot_take_a_new_database(tmp_path: Path, read_only_mounts: None) -> None:
    folder = tmp_path / "shelf"
    folder.mkdir()
    db = folder / "runs.db"
    assert_one_line(
        cli(str(db), ["batch", "--problems", "fib"], tmp_path, read_only=folder),
        f"cannot create the database {db}",
        "not writable",
        "writable folder",
    )
    assert not db.exists()


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores permissions; the read-only mount cases cover root")
def test_a_folder_without_write_permission_cannot_take_a_new_database(tmp_path: Path) -> None:
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        assert_one_line(cli(str(folder / "runs.db"), ["status"], tmp_path), "not writable")
    finally:
        folder.chmod(0o755)


def test_a_database_on_read_only_storage_is_read_and_never_written(tmp_path: Path, read_only_mounts: None) -> None:
    folder = tmp_path / "archive"
    folder.mkdir()
    db = folder / "runs.db"
    run_id = _batch_db(db)
    before = _digest(folder)

    status = cli(str(db), ["status", "--json"], tmp_path, read_only=folder)
    assert status.returncode == 0, status.stderr
    assert json.loads(status.stdout)[0]["id"] == run_id and json.loads(status.stdout)[0]["total"] == 2
    assert "read-only" in status.stderr and status.stderr.count("\n") == 1
    stats = cli(str(db), ["stats", "--runs", str(run_id), "--json"], tmp_path, read_only=folder)
    assert stats.returncode == 0, stats.stderr
    assert json.loads(stats.stdout)["runs"]
    out = tmp_path / "bundle.zip"
    export = cli(str(db), ["export", "--run", str(run_id), "--out", str(out)], tmp_path, read_only=folder)
    assert export.returncode == 0, export.stderr
    assert out.stat().st_size > 0

    for args in (["cancel", str(run_id)], ["import", str(out)], ["worker", "--once"], ["resume", str(run_id)]):
        assert_one_line(cli(str(db), args, tmp_path, read_only=folder), "read-only", "copy it to writable storage")
    assert _digest(folder) == before, "nothing was written: no -wal or -shm file, the database unchanged"


def test_an_older_schema_on_read_only_storage_is_explained(tmp_path: Path, read_only_mounts: None) -> None:
    folder = tmp_path / "old"
    folder.mkdir()
    db = folder / "runs.db"
    engine = make_engine(f"sqlite:///{db}")
    migrations.migrate(engine, target=migrations.MIGRATIONS[0].name)
    engine.dispose()
    assert_one_line(
        cli(str(db), ["status"], tmp_path, read_only=folder),
        "older schema",
        migrations.MIGRATIONS[0].name,
        migrations.LATEST,
        "copy it to writable storage",
    )


def test_uncheckpointed_commits_on_read_only_storage_are_not_silently_dropped(
    tmp_path: Path, read_only_mounts: None
) -> None:
    folder = tmp_path / "live"
    folder.mkdir()
    db = folder / "runs.db"
    _batch_db(db)
    writer = sqlite3.connect(db)  # keeps the log: a copy taken while a worker was writing
    writer.execute("PRAGMA wal_autocheckpoint = 0")
    writer.execute("UPDATE run SET title = 'changed after the last checkpoint'")
    writer.commit()
    assert (folder / "runs.db-wal").stat().st_size > 0
    (folder / "runs.db-shm").unlink()  # a copy without the index, as `cp runs.db runs.db-wal` makes
    try:
        assert_one_line(cli(str(db), ["status"], tmp_path, read_only=folder), "runs.db-wal", "cannot be read there")
    finally:
        writer.close()


def test_store_open_marks_read_only_and_refuses_writes_in_process(tmp_path: Path) -> None:
    """The same through the API, with the file itself read-only through SQLite's own URI (no mount needed)."""
    db = tmp_path / "api.db"
    _batch_db(db)
    engine = make_engine(f"sqlite:///{db}", read_only="ro", read_only_note="no writes here")
    store = Store(engine, read_only=True, read_only_note="read-only for this test")
    try:
        assert store.read_only and store.list_runs(kind="batch")
        with pytest.raises(StoreReadOnlyError, match="no writes here"):
            store.create_run("single", "x", {})
        with pytest.raises(StoreReadOnlyError, match="no writes here"):
            store.require_writable()
        assert isinstance(StoreReadOnlyError("x"), StoreUnavailableError)
    finally:
        store.close()
    with Store.open(str(db)) as writable:
        assert not writable.read_only
        writable.require_writable()
