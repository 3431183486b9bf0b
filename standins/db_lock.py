"""Hold a run store's write lock from another process for N seconds, like a backup job would.

SQLite: a separate connection runs `BEGIN IMMEDIATE` (the database's one write
lock) and keeps the transaction open. PostgreSQL: a separate session locks every
store table `IN EXCLUSIVE MODE`, which blocks all writes and lets plain reads
through, as SQLite's write lock does.

    with DatabaseLock(db_url, seconds=45) as lock:   # returns once the lock is held
        ...                                          # the batch keeps running meanwhile
        lock.wait_released()

Also a script: `python -m standins.db_lock URL SECONDS` prints `locked` once it holds the
lock and `released` when it lets go (used by the class, and by `bench/faults.py`).
"""

from __future__ import annotations

import subprocess
import sys
import time

from standins.loopback import StartStop, spawn_until_ready

STORE_TABLES = ("run", "trial", "step", "llm_call", "execution", "retrieval_hit", "problem", "llm_cache")


class DatabaseLock(StartStop):
    """The write lock of the store at `db_url`, held by a child process for `seconds` once started."""

    def __init__(self, db_url: str, seconds: float) -> None:
        self.db_url = db_url
        self.seconds = seconds
        self.proc: subprocess.Popen[str] | None = None
        self.locked_at: float | None = None
        self.released_at: float | None = None

    def start(self) -> DatabaseLock:
        """Start the holder and return once it holds the lock (it may first wait, up to 120 s, for a writer)."""
        self.proc, _ = spawn_until_ready("standins.db_lock", [self.db_url, str(self.seconds)], "locked",
                                         "the lock holder did not take the lock")
        self.locked_at = time.monotonic()
        return self

    def wait_released(self, timeout_s: float | None = None) -> float:
        """Block until the holder has released the lock; returns how long it was held."""
        assert self.proc is not None and self.locked_at is not None
        out, err = self.proc.communicate(timeout=timeout_s if timeout_s is not None else self.seconds + 120)
        if self.proc.returncode != 0 or "released" not in out:
            raise RuntimeError(f"the lock holder failed ({self.proc.returncode}): {err[-2000:]}")
        self.released_at = time.monotonic()
        return self.released_at - self.locked_at

    def __enter__(self) -> DatabaseLock:
        return self.start() if self.proc is None else self

    def stop(self) -> None:
        """Kill the holder if it still runs (the lock goes with it)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def _hold(db_url: str, seconds: float) -> None:
    from sqlalchemy.engine import make_url

    url = make_url(db_url)
    if url.get_backend_name() == "sqlite":
        import sqlite3

        conn = sqlite3.connect(url.database, timeout=120, isolation_level=None)
        conn.execute("BEGIN IMMEDIATE")
    else:
        import psycopg

        conn = psycopg.connect(url.set(drivername="postgresql").render_as_string(hide_password=False))
        conn.execute(f"LOCK TABLE {', '.join(STORE_TABLES)} IN EXCLUSIVE MODE")
    print("locked", flush=True)
    time.sleep(seconds)  # the point of this process: hold the lock for exactly this long
    conn.rollback()
    conn.close()
    print("released", flush=True)


if __name__ == "__main__":
    _hold(sys.argv[1], float(sys.argv[2]))
