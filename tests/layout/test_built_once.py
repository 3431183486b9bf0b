"""A resource the test processes share is built by one of them: the others wait and reuse it, and a build that
failed halfway is redone, never reused."""

from __future__ import annotations

import multiprocessing
import os
import time
from pathlib import Path

import pytest

from tests.support.built_once import built_once


class _Basetemp:
    """What built_once asks of pytest's TempPathFactory: the process's own basetemp (popen-gwN under xdist)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def getbasetemp(self) -> Path:
        self.path.mkdir(parents=True, exist_ok=True)
        return self.path


def _build(folder: Path) -> dict:
    time.sleep(0.3)  # long enough for the other processes to arrive while it builds
    with (folder.parent / "builds.log").open("a") as log:  # one line per build, whichever process ran it
        log.write(f"{os.getpid()}\n")
    (folder / "data.txt").write_text("built")
    return {"answer": 42}


def _as_worker(run_root: str, name: str) -> tuple[str, dict]:
    os.environ["PYTEST_XDIST_WORKER"] = name
    folder, facts = built_once(_Basetemp(Path(run_root) / f"popen-{name}"), "demo", _build)  # type: ignore[arg-type]
    return str(folder), facts


def test_three_processes_build_it_once_and_see_the_same_folder(tmp_path: Path) -> None:
    with multiprocessing.get_context("fork").Pool(3) as pool:
        results = pool.starmap(_as_worker, [(str(tmp_path), f"gw{i}") for i in range(3)])
    assert {folder for folder, _ in results} == {str(tmp_path / "built-once-demo")}
    assert all(facts == {"answer": 42} for _, facts in results)
    assert len((tmp_path / "builds.log").read_text().splitlines()) == 1
    assert (tmp_path / "built-once-demo" / "data.txt").read_text() == "built"


def test_a_build_that_failed_halfway_is_redone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    base = _Basetemp(tmp_path / "base")

    def broken(folder: Path) -> dict:
        (folder / "half.txt").write_text("half")
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        built_once(base, "demo", broken)  # type: ignore[arg-type]
    folder, facts = built_once(base, "demo", _build)  # type: ignore[arg-type]
    assert facts == {"answer": 42} and folder == tmp_path / "base" / "built-once-demo"
    assert not (folder / "half.txt").exists()
    assert built_once(base, "demo", broken) == (folder, facts)  # type: ignore[arg-type] - reused, not rebuilt
