"""Keep one background worker process alive per database, whoever asks (dashboard or CLI)."""

from __future__ import annotations

import fcntl
import hashlib
import os
import subprocess
import sys
import threading
from pathlib import Path

from execugraph.configuration.settings import DB_ENV, PROJECT_ROOT, load_settings


def lock_path(db_url: str) -> Path:
    digest = hashlib.sha256(db_url.encode()).hexdigest()[:16]
    path = load_settings().cache_dir / "workers" / f"{digest}.lock"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def try_singleton_lock(db_url: str) -> int | None:
    """Hold the per-database worker lock for this process's lifetime; None if another worker has it."""
    lock = lock_path(db_url)  # a file of its own beside the cache, never the database
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    os.ftruncate(fd, 0)
    os.write(fd, str(os.getpid()).encode())
    return fd


def worker_alive(db_url: str) -> bool:
    fd = try_singleton_lock(db_url)
    if fd is None:
        return True
    os.close(fd)
    return False


def stop_worker(db_url: str, timeout_s: float = 10.0) -> bool:
    """SIGTERM the singleton worker of `db_url` (it finishes in-flight trials first); True if one was running."""
    import signal
    import time

    path = lock_path(db_url)
    if not worker_alive(db_url):
        return False
    try:
        pid = int(path.read_text().strip())
        os.kill(pid, signal.SIGTERM)
    except (ValueError, ProcessLookupError, OSError):
        return False
    deadline = time.monotonic() + timeout_s
    while worker_alive(db_url) and time.monotonic() < deadline:
        time.sleep(0.1)
    return True


def ensure_worker(db_url: str, idle_exit_s: float = 900.0) -> int | None:
    """Start a detached singleton worker for `db_url` unless one is alive; its pid if one was started, else None.

    It exits after `idle_exit_s` without work, so a closed dashboard leaves nothing running for long.
    """
    if worker_alive(db_url):
        return None
    log = lock_path(db_url).with_suffix(".log")
    with open(log, "ab") as out:
        child = subprocess.Popen(
            [sys.executable, "-m", "execugraph", "worker", "--singleton", "--idle-exit-s", str(idle_exit_s)],
            cwd=PROJECT_ROOT,
            env=os.environ | {DB_ENV: db_url},  # not argv, which any local user can read with `ps`
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # survives the dashboard's process group
        )
    reap_when_done(child)
    return child.pid


def reap_when_done(child: subprocess.Popen) -> None:
    """Wait for `child` on a daemon thread, so a worker that exits idle does not stay a zombie under a
    long-lived parent (the dashboard) that never asks how it ended."""
    threading.Thread(target=child.wait, name=f"reap-worker-{child.pid}", daemon=True).start()
