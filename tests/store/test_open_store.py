"""`open_store(url, mode)` on a real SQLite file: write creates and migrates, read refuses writes, worker never migrates."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from execugraph.store import StoreReadOnlyError, StoreUnavailableError, open_store
from execugraph.store.migrations import LATEST


def _url(tmp_path: Path, name: str = "runs.db") -> str:
    return f"sqlite:///{tmp_path / name}"


def _tables(path: Path) -> set[str]:
    with closing(sqlite3.connect(path)) as conn:
        return {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def test_write_creates_migrates_and_records(tmp_path: Path) -> None:
    with open_store(_url(tmp_path), "write") as store:
        assert not store.read_only
        assert store.schema_version() == LATEST
        run_id = store.create_run("single", "first", {"condition": "single-oneshot"})
        assert store.get_run(run_id).title == "first"
    assert "run" in _tables(tmp_path / "runs.db")


def test_read_refuses_every_write_with_its_note_and_reads(tmp_path: Path) -> None:
    with open_store(_url(tmp_path), "write") as store:
        run_id = store.create_run("single", "kept", {})
    with open_store(_url(tmp_path), "read", note="viewers may only look") as viewer:
        assert viewer.read_only
        assert viewer.get_run(run_id).title == "kept"
        with pytest.raises(StoreReadOnlyError, match="viewers may only look"):
            viewer.create_run("single", "refused", {})
    with open_store(_url(tmp_path), "write") as store:
        assert [r.title for r in store.list_runs()] == ["kept"]  # nothing stored was lost, nothing added


def test_worker_uses_the_drivers_database_and_never_migrates(tmp_path: Path) -> None:
    fresh = tmp_path / "fresh.db"
    with open_store(_url(tmp_path, "fresh.db"), "worker") as worker:
        assert worker.schema_version() is None  # a worker does not create the schema
    assert "run" not in _tables(fresh)
    with open_store(_url(tmp_path), "write") as store:
        run_id = store.create_run("batch", "driven", {})
    with open_store(_url(tmp_path), "worker") as worker:
        assert not worker.read_only
        assert worker.get_run(run_id).title == "driven"


def test_a_bad_mode_or_url_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown mode 'append'; use one of write, read, worker"):
        open_store(_url(tmp_path), "append")  # type: ignore[arg-type]
    folder = tmp_path / "a-folder"
    folder.mkdir()
    with pytest.raises(StoreUnavailableError, match="a-folder"):
        open_store(str(folder), "write")


def test_the_cli_the_dashboard_and_ray_open_stores_only_through_open_store() -> None:
    import re

    repo = Path(__file__).resolve().parents[2]
    other_ways = re.compile(r"Store\.open(_for_reading)?\(|\bStore\(\s*(make_engine|engine)\b")
    files = [p for base in ("execugraph", "ui", "pages") for p in (repo / base).rglob("*.py")] + [repo / "app.py"]
    found = [f"{p.relative_to(repo)}:{n}" for p in files if "execugraph/store/" not in p.as_posix()
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if other_ways.search(line)]
    assert not found, f"open the store with execugraph.store.open_store(url, mode) instead: {found}"
