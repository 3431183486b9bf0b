"""When the dashboard's server stops (Ctrl-C on `make run`, SIGTERM), the batch worker it started stops too,
unless that worker is running a batch: then one line says it keeps running, its pid, and how to stop it.

The worker is a detached process (`execugraph.batch.worker_process.ensure_worker`) so that a batch outlives a
restarted dashboard; an idle one left behind would only wait for its idle timeout, unseen.
"""

from __future__ import annotations

import atexit
import os
import signal
import sys
import time
from typing import TextIO

_STARTED: dict[str, int] = {}  # database URL -> pid of the worker this server process started
_INSTALLED: list[bool] = []


def install() -> None:
    """Run `on_stop` when this process exits (once, however often it is called)."""
    if not _INSTALLED:
        _INSTALLED.append(True)
        atexit.register(on_stop)


def started(db_url: str, pid: int) -> None:
    """Remember the worker this process started for `db_url`, to stop it with the server."""
    _STARTED[db_url] = pid
    install()


def alive(pid: int) -> bool:
    """Whether `pid` is a running process (not one that has exited, even if not reaped yet)."""
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return True


def busy_runs(db_url: str, pid: int) -> list[int]:
    """Batches the worker `pid` holds (running, leased to it) or will take (queued), oldest first."""
    from execugraph.store import open_store

    with open_store(db_url, "write") as store:
        running = [r for r in store.list_runs(kind="batch", status="running", limit=1000)
                   if (r.worker_id or "").rsplit(":", 2)[-2:-1] == [str(pid)]]
        queued = store.list_runs(kind="batch", status="queued", limit=1000)
    return sorted(r.id for r in [*running, *queued])


def stop_or_tell(db_url: str, pid: int, timeout_s: float = 10.0) -> str | None:
    """SIGTERM the idle worker `pid` and wait for it; when it has a batch, the line saying it keeps running."""
    if not alive(pid):
        return None
    runs = busy_runs(db_url, pid)
    if runs:
        named = ", ".join(f"#{r}" for r in runs)
        return (f"dashboard stopped: the batch worker (pid {pid}) keeps running batch {named}; stop it with "
                f"`python -m execugraph cancel {runs[0]}` (after its in-flight trials) or `kill {pid}`")
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout_s
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    return None


def on_stop(out: TextIO | None = None) -> None:
    """For each worker this process started: stop it, or print why it keeps running."""
    for db_url, pid in list(_STARTED.items()):
        del _STARTED[db_url]  # once: the server's shutdown hook and the exit handler may both call this
        try:
            line = stop_or_tell(db_url, pid)
        except Exception as exc:  # noqa: BLE001 - at exit: say what could not be checked, never a traceback
            line = f"dashboard stopped: could not check the batch worker (pid {pid}): {type(exc).__name__}: {exc}"
        if line:
            print(line, file=out or sys.stderr, flush=True)
