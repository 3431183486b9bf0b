"""Where a batch run stands (counts, pass rate of the graded trials, status word, ETA), and waiting for its end."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from execugraph.batch.outcome import Counts, status_word

if TYPE_CHECKING:
    from execugraph.store import Store


@dataclass
class Progress:
    """Where a run stands; `pass_rate` is passed / graded (see `outcome`)."""

    total: int
    done: int  # finished: graded + errors
    passed: int
    running: int
    error: int
    pass_rate: float | None
    eta_s: float | None
    graded: int = 0
    status: str = ""  # the status word shown: queued, running, done, done with errors, failed, cancelled

    @property
    def counts(self) -> Counts:
        return Counts(total=self.total, graded=self.graded, passed=self.passed, errors=self.error,
                      running=self.running)


def progress(store: Store, run_id: int) -> Progress:
    """Counts, pass rate of the graded trials, status word and a rate-based ETA, computed in SQL."""
    counts = Counts.from_progress(store.run_progress(run_id))
    run = store.get_run(run_id)
    eta = None
    if run is not None and run.started_at is not None and counts.finished and run.status == "running":
        from execugraph.store import utcnow

        elapsed = (utcnow() - run.started_at).total_seconds()
        eta = max(0.0, elapsed / counts.finished * (counts.total - counts.finished))
    word = status_word(run.status, counts) if run is not None else ""
    return Progress(counts.total, counts.finished, counts.passed, counts.running, counts.errors, counts.pass_rate,
                    eta, counts.graded, word)


def wait_for(store: Store, run_id: int, on_progress: Callable[[Progress], None] | None = None,
             poll_s: float = 1.0, timeout_s: float | None = None) -> str:
    """Block until the run leaves queued/running; returns its final status."""
    deadline = None if timeout_s is None else time.monotonic() + timeout_s
    while True:
        run = store.get_run(run_id)
        if on_progress:
            on_progress(progress(store, run_id))
        if run.status not in ("queued", "running"):
            return run.status
        if deadline is not None and time.monotonic() > deadline:
            raise TimeoutError(f"run {run_id} still {run.status} after {timeout_s} s")
        time.sleep(poll_s)
