"""SandboxPool: warm workers on the host side, thread-safe, plus the module-level default pool.

A job is one candidate with its suite. The pool validates the suite, hands
the public part to an idle worker, gives assert sources to the job's judge
through a memfd the worker never reads, waits (with a deadline of its own),
and scores the raw statuses here, where the expected values stay. A worker
that dies or overruns is killed with its cgroups and replaced; the job
becomes a harness error, never a pass. After each job the worker sweeps up
and says "ready" or "retire"; the pool hears it before that worker's next
job, so a sweep that failed (a hostile directory tree, say) costs a fresh
worker, logged, and never the next job's verdict.
"""

from __future__ import annotations

import atexit
import logging
import os
import queue
import socket
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from sandbox import cgroups, frames, scoring
from sandbox.limits import Limits
from sandbox.results import SuiteResult
from sandbox.suite import Suite, parse_suite
from sandbox.worker import DISABLEABLE_LAYERS

PACKAGE_PARENT = str(Path(__file__).resolve().parent.parent)
WORKER_ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONHASHSEED": "0"}
START_TIMEOUT_S = 60.0
DEADLINE_SLACK_S = 30.0
CLEANUP_LIMIT_S = 10.0  # a worker whose job directory is not empty by then retires (read at each worker's start)
SETTLE_SLACK_S = 30.0  # the worker's sweep after a job: its cleanup gives up after CLEANUP_LIMIT_S, killing takes seconds

log = logging.getLogger(__name__)


class SandboxUnavailable(RuntimeError):
    """No worker could be started (or the pool is closed)."""


class _Worker:
    """Host-side handle of one worker process."""

    def __init__(self, index: int, n_workers: int, disable: Sequence[str]) -> None:
        self.index = index
        host_end, worker_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        self.log = tempfile.TemporaryFile()
        boot = (
            f"import sys; sys.path.insert(0, {PACKAGE_PARENT!r}); "
            f"from sandbox.worker import main; main({worker_end.fileno()})"
        )
        try:
            self.proc = subprocess.Popen(
                [sys.executable or "python3", "-S", "-s", "-B", "-c", boot],
                env=dict(WORKER_ENV),
                pass_fds=[worker_end.fileno()],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=self.log,
                cwd="/",
                start_new_session=True,
            )
        finally:
            worker_end.close()
        self.sock = host_end
        self.reader = frames.FrameReader()
        self.pid = self.proc.pid
        self.layers: dict[str, str] = {}
        self.cgroup_dirs: list[str] = []
        self.settling = False  # a result came back; the worker's word on its sweep has not yet been read
        self.cleanup_limit_s = CLEANUP_LIMIT_S
        config = {"index": index, "n_workers": n_workers, "disable": list(disable), "limits": Limits().to_dict(),
                  "cleanup_limit_s": self.cleanup_limit_s}
        frames.send_frame(self.sock, config)

    def wait_ready(self, timeout: float = START_TIMEOUT_S) -> None:
        self.sock.settimeout(timeout)
        try:
            frame, _ = frames.recv_frame(self.sock, self.reader)
        except (OSError, EOFError, frames.FrameError) as exc:
            self.kill()
            raise SandboxUnavailable(f"sandbox worker did not start: {exc}\n{self.log_tail()}") from None
        hello = frame.get("hello") or {}
        self.pid = int(hello.get("pid", self.pid))
        self.layers = {str(k): str(v) for k, v in (hello.get("layers") or {}).items()}
        self.cgroup_dirs = [str(d) for d in hello.get("cgroup_dirs") or []]

    def run(self, job: dict[str, Any], fds: list[int], timeout: float) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        self.sock.settimeout(timeout)
        frames.send_frame(self.sock, job, fds)
        self.sock.settimeout(max(0.1, deadline - time.monotonic()))
        frame, stray = frames.recv_frame(self.sock, self.reader)
        for fd in stray:
            os.close(fd)
        result = frame.get("result")
        if not isinstance(result, dict):
            raise frames.FrameError(f"worker answered {str(frame)[:200]}")
        self.settling = True
        return result

    def settle(self) -> str | None:
        """After a job: None once the worker says it swept up and is ready, else why it must be replaced."""
        if not self.settling:
            return None
        self.sock.settimeout(self.cleanup_limit_s + SETTLE_SLACK_S)
        try:
            frame, stray = frames.recv_frame(self.sock, self.reader)
        except (OSError, EOFError, frames.FrameError) as exc:
            return f"no word from the worker after its last job ({type(exc).__name__}: {exc})"
        for fd in stray:
            os.close(fd)
        self.settling = False
        if frame.get("ready") is True:
            return None
        return str(frame.get("retire") or f"unexpected frame after a job: {str(frame)[:200]}")

    def alive(self) -> bool:
        return self.proc.poll() is None

    def log_tail(self, limit: int = 2000) -> str:
        try:
            self.log.seek(0)
            return self.log.read().decode("utf-8", errors="replace")[-limit:]
        except (OSError, ValueError):
            return ""

    def kill(self) -> None:
        """Stop the worker now and kill anything its jobs left in their cgroups."""
        try:
            self.sock.close()
        except OSError:
            pass
        if self.proc.poll() is None:
            self.proc.kill()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        for path in self.cgroup_dirs:
            cgroups.remove_tree(path)
        self.log.close()

    def close(self) -> None:
        """Ask the worker to leave (it cleans its cgroups); kill it if it does not."""
        try:
            self.sock.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for path in self.cgroup_dirs:
            cgroups.remove_tree(path)
        self.log.close()


def _shutdown(workers: list[_Worker], owner_pid: int) -> None:
    if os.getpid() != owner_pid:
        return  # a forked copy of the host process: the workers belong to the parent
    for worker in list(workers):
        worker.close()
    workers.clear()


def _memfd(name: str, data: bytes = b"") -> int:
    fd = os.memfd_create(name, os.MFD_CLOEXEC)
    if data:
        frames.write_all(fd, data)
    return fd


def _read_memfd(fd: int, limit: int = 64 << 20) -> bytes:
    chunks, offset = [], 0
    while offset < limit and (chunk := os.pread(fd, 1 << 20, offset)):
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks)


class SandboxPool:
    """Warm sandbox workers (one per core by default), reusable and safe to share between threads."""

    def __init__(self, workers: int | None = None, *, disable: Iterable[str] = ()) -> None:
        self.disable = tuple(sorted(set(disable)))
        unknown = set(self.disable) - set(DISABLEABLE_LAYERS)
        if unknown:
            raise ValueError(f"unknown layers to disable: {sorted(unknown)}; known: {', '.join(DISABLEABLE_LAYERS)}")
        size = workers if workers is not None else (os.cpu_count() or 1)
        if size < 1:
            raise ValueError(f"workers must be at least 1, got {size}")
        self.size = size
        self._lock = threading.Lock()
        self._idle: queue.Queue[_Worker] = queue.Queue()
        self._workers: list[_Worker] = []
        self._starting = 0
        self._closed = False
        started = [_Worker(i, size, self.disable) for i in range(size)]
        try:
            for worker in started:
                worker.wait_ready()
        except SandboxUnavailable:
            for worker in started:
                worker.kill()
            raise
        for worker in started:
            self._workers.append(worker)
            self._idle.put(worker)
        self._pid = os.getpid()
        self._finalizer = weakref.finalize(self, _shutdown, self._workers, self._pid)

    # -- public API --------------------------------------------------------

    def run_suite(self, code: str, suite: dict[str, Any] | Suite, limits: Limits | None = None) -> SuiteResult:
        """Run one candidate against its suite; raises SuiteError for a malformed suite."""
        parsed = parse_suite(suite)
        return self._run(code, parsed, limits)

    def run_many(self, jobs: Iterable[Sequence[Any]]) -> list[SuiteResult]:
        """Run (code, suite[, limits]) jobs in parallel over the workers; results in input order.

        Every suite is validated before anything runs, so a malformed one
        raises SuiteError without partial work.
        """
        prepared = []
        for position, job in enumerate(jobs):
            if len(job) not in (2, 3):
                raise ValueError(f"jobs[{position}]: expected (code, suite) or (code, suite, limits)")
            code, suite = job[0], job[1]
            limits = job[2] if len(job) == 3 else None
            try:
                prepared.append((code, parse_suite(suite), limits))
            except ValueError as exc:
                raise type(exc)(f"jobs[{position}]: {exc}") from None
        if not prepared:
            return []
        with ThreadPoolExecutor(max_workers=min(self.size, len(prepared)), thread_name_prefix="sandbox") as executor:
            return list(executor.map(lambda item: self._run(*item), prepared))

    def isolation(self) -> dict[str, str]:
        """Layers as the workers prepared them (a job reports what it actually enforced)."""
        with self._lock:
            workers = list(self._workers)
        return dict(sorted(workers[0].layers.items())) if workers else {}

    def worker_pids(self) -> list[int]:
        with self._lock:
            return [w.pid for w in self._workers]

    def close(self) -> None:
        with self._lock:
            self._closed = True
        self._finalizer()

    def __enter__(self) -> SandboxPool:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- internals ---------------------------------------------------------

    def _run(self, code: str, suite: Suite, limits: Limits | None) -> SuiteResult:
        if os.getpid() != self._pid:
            raise SandboxUnavailable("this SandboxPool was created in another process; create one in this process")
        if not isinstance(code, str):
            raise TypeError(f"code must be a str, got {type(code).__name__}")
        limits = limits or Limits()
        if not isinstance(limits, Limits):
            raise TypeError(f"limits must be a sandbox.Limits, got {type(limits).__name__}")
        job, judge_payload = scoring.job_request(code, suite, limits.to_dict())
        fds = [_memfd("judge-src", judge_payload), _memfd("judge-out")] if judge_payload is not None else []
        started = time.monotonic()
        try:
            worker: _Worker | None = self._acquire()
        except BaseException:
            for fd in fds:
                os.close(fd)
            raise
        raw: dict[str, Any]
        try:
            raw = worker.run(job, fds, limits.job_budget_s(len(suite.tests), job["cpu_s"]) + DEADLINE_SLACK_S)
        except (OSError, EOFError, frames.FrameError) as exc:
            tail = worker.log_tail()
            worker = self._replace(worker)
            raw = {"error": f"sandbox worker failed during the job ({type(exc).__name__}: {exc})\n{tail}".strip()}
        except BaseException:
            # Interrupted mid-job (e.g. KeyboardInterrupt): the worker's state is unknown, so it
            # must not serve another job; a replacement starts in the background.
            self._retire(worker)
            worker = None
            for fd in fds:
                os.close(fd)
            raise
        finally:
            if worker is not None:
                self._idle.put(worker)
        judged = scoring.parse_judge_output(_read_memfd(fds[1])) if fds else {}
        for fd in fds:
            os.close(fd)
        layers = worker.layers if worker is not None else {}
        return scoring.score(suite, raw, judged, duration_s=time.monotonic() - started, worker_layers=layers,
                             limits=limits, per_test=(job["cpu_s"], job["wall_s"]))

    def _acquire(self) -> _Worker:
        while True:
            with self._lock:
                if self._closed:
                    raise SandboxUnavailable("the sandbox pool is closed")
                if not self._workers and not self._starting:
                    raise SandboxUnavailable("no sandbox worker is running")
            try:
                worker = self._idle.get(timeout=1.0)
            except queue.Empty:
                continue
            problem = worker.settle() if worker.alive() else "the worker exited"
            if problem is None:
                return worker
            log.warning("sandbox worker %d (pid %d) replaced before its next job: %s\n%s", worker.index, worker.pid,
                        problem, worker.log_tail())
            replacement = self._replace(worker)
            if replacement is not None:
                return replacement

    def _retire(self, worker: _Worker) -> None:
        """Kill a worker now and start its replacement on a background thread."""

        def replace() -> None:
            fresh = self._replace(worker)
            if fresh is not None:
                self._idle.put(fresh)

        threading.Thread(target=replace, name="sandbox-respawn", daemon=True).start()

    def _replace(self, worker: _Worker) -> _Worker | None:
        """Kill a failed worker and start a fresh one in its slot (None if that fails)."""
        worker.kill()
        with self._lock:
            if worker in self._workers:
                self._workers.remove(worker)
            if self._closed:
                return None
            self._starting += 1
        try:
            fresh = _Worker(worker.index, self.size, self.disable)
            fresh.wait_ready()
        except (SandboxUnavailable, OSError):
            with self._lock:
                self._starting -= 1
            return None
        with self._lock:
            self._starting -= 1
            if self._closed:
                fresh.close()
                return None
            self._workers.append(fresh)
        return fresh


_default: SandboxPool | None = None
_default_lock = threading.Lock()


def default_pool() -> SandboxPool:
    """The process-wide pool behind run_suite(), started on first use and closed at exit."""
    global _default
    with _default_lock:
        if _default is None or _default._closed or _default._pid != os.getpid():
            _default = SandboxPool()
            atexit.register(_default.close)
        return _default


def run_suite(code: str, suite: dict[str, Any] | Suite, limits: Limits | None = None) -> SuiteResult:
    """Run one candidate against its suite on the default pool."""
    return default_pool().run_suite(code, suite, limits)


PROBE_CODE = "def probe():\n    return [1, (2, 3)]\n"
PROBE_SUITE = {"entry_point": "probe", "tests": [{"kind": "call", "args": [], "expected": [1, [2, 3]]}]}


def isolation_report(pool: SandboxPool | None = None) -> dict[str, str]:
    """Each isolation layer -> 'active' | 'unavailable: why', as enforced on a real probe job."""
    result = (pool or default_pool()).run_suite(PROBE_CODE, PROBE_SUITE, Limits(timeout_s=10.0))
    report = dict(result.isolation)
    report["probe_job"] = (
        "active" if result.passed else f"unavailable: probe job ended {result.verdict} {result.error}".strip()
    )
    return dict(sorted(report.items()))
