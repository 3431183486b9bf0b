"""The Reproduce tab runs its study in the background: progress moves, a visit elsewhere (or a new session) finds it
again, Cancel stops it and says so with the sandbox pool closed and the finished rescores kept for the next time,
a finished one offers its downloads, and a failing one shows why.

The sandbox is real; `sandbox.SandboxPool` is wrapped so a test can hold the job at a batch of sandbox jobs
(`Gate`) and know it is there, instead of guessing with sleeps.
"""

from __future__ import annotations

import io
import json
import threading
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from execugraph.configuration.settings import load_settings
from execugraph.store import Store, run_reads
from tests.support import published_study as S
from tests.support.waiting import wait_until
from tests.ui.conftest import no_exception
from ui import reproduce_job
from ui.keys import Reproduce
from ui.reproduce_job import ReproduceJob

SHORT_S = 120.0  # what a test waits for a state before failing


class Gate:
    """Holds the first batch of sandbox jobs, then the first batch after a rescore run is stored, until released."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.first = threading.Event()
        self.second = threading.Event()
        self.waiting: str | None = None

    def turn(self) -> None:
        if not self.first.is_set():
            self._hold("first", self.first)
        elif not self.second.is_set() and run_reads.latest_finished_run(self.store, "rescore") is not None:
            self._hold("second", self.second)

    def _hold(self, name: str, event: threading.Event) -> None:
        self.waiting = name
        event.wait(SHORT_S * 3)
        self.waiting = None

    def open(self) -> None:
        self.first.set()
        self.second.set()


@pytest.fixture
def gate(monkeypatch: pytest.MonkeyPatch, db_store: Store) -> Iterator[tuple[Gate, list[Any]]]:
    """Every SandboxPool the reproduction starts is a real one behind `Gate`; yields the gate and the pools."""
    import sandbox

    real = sandbox.SandboxPool
    held = Gate(db_store)
    pools: list[Any] = []

    class GatedPool:
        def __init__(self, workers: int | None = None, **kwargs: Any) -> None:
            self.real = real(2, **kwargs)
            self.closed = False
            pools.append(self)

        def run_many(self, jobs: Any) -> Any:
            held.turn()
            return self.real.run_many(jobs)

        def close(self) -> None:
            self.closed = True
            self.real.close()

        def __getattr__(self, name: str) -> Any:
            return getattr(self.real, name)

    monkeypatch.setattr(sandbox, "SandboxPool", GatedPool)
    yield held, pools
    held.open()
    job = reproduce_job.current(load_settings().db_url)
    if job is not None:
        assert job.wait(SHORT_S * 3), "the reproduction did not end"
        reproduce_job.forget(load_settings().db_url)


def _job() -> ReproduceJob:
    job = reproduce_job.current(load_settings().db_url)
    assert job is not None
    return job


def _upload(at: AppTest, results: Path, dataset: Path | None) -> None:
    at.file_uploader(key=Reproduce.RESULTS).set_value((results.name, results.read_bytes(), "application/zip")).run()
    if dataset is not None:
        at.file_uploader(key=Reproduce.DATASET).set_value((dataset.name, dataset.read_bytes(),
                                                           "application/jsonl")).run()
    at.checkbox(key=Reproduce.FIGURES).uncheck().run()


def _zip(folder: Path, target: Path) -> Path:
    with zipfile.ZipFile(target, "w") as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                archive.write(path, f"{folder.name}/{path.relative_to(folder).as_posix()}")
    return target


def _progress(at: AppTest) -> list[tuple[int, str]]:
    return [(int(p.proto.value), p.proto.text) for p in at.get("progress")]


def _rerun_until(at: AppTest, condition: Callable[[], bool], what: str) -> None:
    wait_until(lambda: (at.run(), condition())[1], SHORT_S, what)


def _warnings(at: AppTest) -> str:
    return " ".join(str(w.value) for w in at.warning)


@pytest.fixture
def study(tmp_path: Path) -> tuple[Path, Path]:
    folder, dataset = S.write_study(tmp_path / "published")
    return _zip(folder, tmp_path / "study.zip"), dataset


def test_a_reproduction_runs_in_the_background_survives_navigation_and_cancels(app, gate, study, db_store) -> None:
    held, pools = gate
    results, dataset = study
    at = app("export")
    _upload(at, results, dataset)
    at.button(key=Reproduce.RUN).click().run()
    no_exception(at)
    wait_until(lambda: held.waiting == "first", SHORT_S, "the first batch of sandbox jobs")
    at.run()
    first = _progress(at)
    assert len(first) == 1 and first[0][0] >= 8, first  # the import is done: its share of the bar is filled
    assert at.button(key=Reproduce.RUN).disabled  # one reproduction per database at a time

    at.switch_page("pages/runs.py").run()
    at.switch_page("pages/export.py").run()
    assert _progress(at) and at.button(key=Reproduce.CANCEL)  # found again after a visit elsewhere
    other = app("export")  # a reloaded tab: a new session on the same database
    assert _progress(other) and other.button(key=Reproduce.CANCEL)

    held.first.set()
    wait_until(lambda: held.waiting == "second", SHORT_S, "a batch after the first rescore was stored")
    _rerun_until(at, lambda: bool(_progress(at)) and _progress(at)[0][0] > first[0][0], "the bar to move")
    assert "rescoring" in _progress(at)[0][1]

    at.button(key=Reproduce.CANCEL).click().run()
    no_exception(at)
    assert _job().cancelling
    held.second.set()
    assert _job().wait(SHORT_S)
    at.run()
    no_exception(at)
    assert _job().state == "cancelled"
    assert "Cancelled the reproduction of study.zip" in _warnings(at)
    assert "rescores that finished are stored" in _warnings(at)
    assert not _progress(at) and not at.get("download_button")
    assert pools and all(pool.closed for pool in pools)
    assert run_reads.latest_finished_run(db_store, "rescore") is not None  # what was rescored stays

    held.open()  # again, unhindered: the stored rescore is reused, the report comes with its downloads
    _upload(at, results, dataset)  # the visit to the Runs page dropped the uploads
    at.button(key=Reproduce.RUN).click().run()
    assert _job().wait(SHORT_S * 3)
    at.run()
    no_exception(at)
    assert _job().state == "done"
    assert [label for label in (b.proto.label for b in at.get("download_button"))] == [
        "Download the report (report.html)", f"Download everything (zip, {len(_job().result.archive) / 1024:.0f} KiB)"]
    assert _progress(at) == [(100, "Reproduced 6 run(s), 88 trials")]
    assert any(str(s.value).startswith("Reproduced study:") for s in at.success)
    done = at.session_state[Reproduce.DONE]
    with zipfile.ZipFile(io.BytesIO(done.archive)) as archive:
        data = json.loads(archive.read("reproduce.json"))
        assert {"report.md", "report.html"} <= set(archive.namelist())
    reused = [flag for run in data["local"]["runs"] for flag in run["reused_earlier_rescore"].values()]
    assert any(reused) and not all(reused)
    assert all(pool.closed for pool in pools)


def test_a_refused_study_says_nothing_was_imported(app, tmp_path: Path) -> None:
    empty = tmp_path / "empty.zip"
    with zipfile.ZipFile(empty, "w") as archive:
        archive.writestr("readme.txt", "no trials here")
    at = app("export")
    _upload(at, empty, None)
    at.button(key=Reproduce.RUN).click().run()
    assert _job().wait(SHORT_S)
    at.run()
    no_exception(at)
    errors = [str(e.value) for e in at.error]
    assert len(errors) == 1 and errors[0].startswith("Nothing was imported: "), errors
    reproduce_job.forget(load_settings().db_url)


def test_a_failing_reproduction_shows_its_error(app, study, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("the <b>disk</b> is full")

    monkeypatch.setattr("ui.reproduce_job.run_study", broken)
    at = app("export")
    _upload(at, study[0], None)
    at.button(key=Reproduce.RUN).click().run()
    assert _job().wait(SHORT_S)
    at.run()
    no_exception(at)
    errors = [str(e.value) for e in at.error]
    assert len(errors) == 1 and "failed: RuntimeError: the \\<b>disk\\</b> is full" in errors[0], errors  # text
    assert not at.get("download_button")
    reproduce_job.forget(load_settings().db_url)
