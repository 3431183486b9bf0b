"""Planning many problems' candidate inputs in worker processes: `in_workers`, and the worker itself
(`python -m execugraph.amplify.plan_worker`).

Why: Hypothesis's draws are most of amplify's time (and of the distinguishability search's)
and hold the GIL, so with many problems they run in a few worker processes, one per core.
Plain subprocesses, not multiprocessing, so the caller's `__main__` is never imported again (a
script without a main guard, the dashboard). The work and its results travel as pickles over
stdin/stdout between our own two processes. Every draw is seeded by (seed, problem) alone and
Hypothesis draws no constants from our modules (`properties`), so where a problem is planned
never changes its inputs; a share whose worker fails is planned in the caller instead.
"""

from __future__ import annotations

import importlib
import os
import pickle
import subprocess
import sys
from pathlib import Path
from typing import Any

TASKS = {"plan": ("execugraph.amplify.build", "_plan"),
         "candidates": ("execugraph.amplify.build", "search_candidates")}
PER_WORKER_MIN = 6  # problems per worker process (fewer: all planned in the caller, no process started)
MAX_WORKERS = 8


def run_task(task: str, work: list[tuple]) -> list[Any]:
    """`task`'s function applied to every argument tuple, here, in order."""
    module, name = TASKS[task]
    function = getattr(importlib.import_module(module), name)
    return [function(*args) for args in work]


def _start(share: list[tuple], task: str) -> subprocess.Popen:
    root = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, *filter(None, [os.environ.get("PYTHONPATH")])])}
    proc = subprocess.Popen([sys.executable, "-m", "execugraph.amplify.plan_worker"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    try:
        proc.stdin.write(pickle.dumps((task, share), protocol=pickle.HIGHEST_PROTOCOL))  # type: ignore[union-attr]
        proc.stdin.close()  # type: ignore[union-attr]
    except OSError:
        pass  # it died: its share is planned in the caller
    return proc


def _collect(proc: subprocess.Popen, share: list[tuple], task: str) -> list[Any]:
    out = proc.stdout.read()  # type: ignore[union-attr]
    proc.wait()
    try:
        found = pickle.loads(out) if proc.returncode == 0 else None
    except (pickle.UnpicklingError, EOFError, ValueError):
        found = None
    return found if isinstance(found, list) and len(found) == len(share) else run_task(task, share)


def in_workers(task: str, work: list[tuple]) -> list[Any]:
    """`run_task(task, work)`, spread over one worker process per core (items dealt round-robin) when there are
    enough items; the same results, in the same order, either way."""
    workers = min(len(work) // PER_WORKER_MIN, os.cpu_count() or 1, MAX_WORKERS)
    if workers < 2:
        return run_task(task, work)
    shares = [work[k::workers] for k in range(workers)]
    procs = [_start(share, task) for share in shares]  # every worker has its share before any is read
    out: list[Any] = [None] * len(work)
    for k, (proc, share) in enumerate(zip(procs, shares, strict=True)):
        out[k::workers] = _collect(proc, share, task)
    return out


def main() -> int:
    task, work = pickle.load(sys.stdin.buffer)
    sys.stdout.buffer.write(pickle.dumps(run_task(task, work), protocol=pickle.HIGHEST_PROTOCOL))
    sys.stdout.buffer.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
