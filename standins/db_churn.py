"""Other processes opening and closing a run store, and health checks inside the process that writes it.

Two stand-ins for what a long-lived dashboard's database meets (bench/faults.py's `churn` phase):

    python -m standins.db_churn churn URL SECONDS [--every-s 2]
        opens the store the ways users do (`Store.open` + the health check, a plain sqlite3
        connection, `python -m execugraph status`), reads, and closes it, every few seconds, for
        SECONDS; prints `churned N` at the end.
    python -m standins.db_churn checked URL [--every-s 2] -- ARGS...
        runs `python -m execugraph ARGS` in this process with the database health check (the
        dashboard sidebar's) repeated on a thread beside it, as the dashboard's process does.

Before the header check went through SQLite, each health check dropped the writing process's
locks and the next churned close deleted the write-ahead log it was writing into.
"""

from __future__ import annotations

import argparse
import sqlite3
import subprocess
import sys
import threading
import time
from contextlib import closing
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _sqlite_path(url: str) -> str | None:
    return url.removeprefix("sqlite:///") if url.startswith("sqlite:///") else None


def churn(url: str, seconds: float, every_s: float) -> int:
    """Open, read and close the store in each way in turn until `seconds` have passed; how many times."""
    from execugraph.configuration.settings import load_settings
    from execugraph.providers.health import check_database
    from execugraph.store import Store

    deadline, count = time.monotonic() + seconds, 0
    while time.monotonic() < deadline:
        way = count % 3
        if way == 0:
            with Store.open(url) as store:
                store.list_runs(limit=1)
            check_database(load_settings(url))
        elif way == 1 and _sqlite_path(url):
            with closing(sqlite3.connect(_sqlite_path(url), timeout=30)) as conn:
                conn.execute("SELECT count(*) FROM trial").fetchone()
        else:
            subprocess.run([sys.executable, "-m", "execugraph", "--db", url, "status"], cwd=ROOT,
                           capture_output=True, timeout=300, check=False)
        count += 1
        time.sleep(every_s)
    return count


def checked(url: str, every_s: float, argv: list[str]) -> int:
    """`python -m execugraph argv` here, with the sidebar's database health check every `every_s` on a thread."""
    from execugraph.cli import main
    from execugraph.configuration.settings import load_settings
    from execugraph.providers.health import check_database

    stop = threading.Event()

    def check() -> None:
        while not stop.wait(every_s):
            check_database(load_settings(url))

    thread = threading.Thread(target=check, name="health-check", daemon=True)
    thread.start()
    try:
        return main(argv)
    finally:
        stop.set()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    one = sub.add_parser("churn")
    one.add_argument("url")
    one.add_argument("seconds", type=float)
    one.add_argument("--every-s", type=float, default=2.0)
    two = sub.add_parser("checked")
    two.add_argument("url")
    two.add_argument("--every-s", type=float, default=2.0)
    two.add_argument("argv", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    if args.command == "churn":
        print(f"churned {churn(args.url, args.seconds, args.every_s)}", flush=True)
        return
    argv = args.argv[1:] if args.argv[:1] == ["--"] else args.argv
    sys.exit(checked(args.url, args.every_s, argv))


if __name__ == "__main__":
    main()
