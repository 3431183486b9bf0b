"""Where a batch run stands (counts, pass rate of the graded trials, status word, ETA), and waiting for its end."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from execugraph.batch import eta as estimates
from execugraph.batch.outcome import Counts, status_word

if TYPE_CHECKING:
    from datetime import datetime

    from execugraph.store import Run, Store

SETTLED_AFTER = 20  # finished trials of a condition after which earlier runs no longer move its mean


@dataclass
class BatchProgress:
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
    eta: estimates.Estimate | None = None  # time left with its range (None: nothing timed yet, or not running)
    cancelling: bool = False  # cancel requested while trials are still in flight
    finishing: estimates.Estimate | None = None  # after a cancel: until the trials in flight end
    worker_gone: bool = False  # cancelling, but the run's lease ran out: its worker died or stopped

    def eta_text(self) -> str | None:
        """`ETA about 4 min 10 s (3 min 02 s to 5 min 40 s) from this run`, or after a cancel
        `finishing 2 trials in progress (about 40 s, 25 s to 1 min 05 s)`, or, its worker gone,
        `cancelling: its worker stopped; ...`."""
        if self.cancelling:
            n = f"{self.running} trial" + ("" if self.running == 1 else "s")
            if self.worker_gone:
                return (f"cancelling: its worker stopped with {n} in progress; the next worker (or `cancel` "
                        "again) cancels them")
            about = f" ({self.finishing.about()}, {self.finishing.span()})" if self.finishing is not None else ""
            return f"finishing {n} in progress{about}" if self.running else "cancelling"
        if self.eta is None:
            if self.status == "running" and self.done < self.total:
                return f"ETA estimating… (until {estimates.MIN_FINISHED} trials finished)"
            return None
        return f"ETA {self.eta.describe()} from {self.eta.basis}"

    @property
    def counts(self) -> Counts:
        return Counts(total=self.total, graded=self.graded, passed=self.passed, errors=self.error,
                      running=self.running)


def progress(store: Store, run_id: int) -> BatchProgress:
    """Counts, pass rate of the graded trials, status word and, while running, the time left (`eta`)."""
    counts = Counts.from_progress(store.run_progress(run_id))
    run = store.get_run(run_id)
    eta = finishing = None
    cancelling = run is not None and run.status == "running" and bool(run.cancel_requested)
    if run is not None and run.status == "running":
        eta, finishing = time_left(store, run)
        if cancelling:
            eta = None  # what is left will not run: say how long the trials in flight take instead
    word = status_word(run.status, counts) if run is not None else ""
    return BatchProgress(counts.total, counts.finished, counts.passed, counts.running, counts.errors, counts.pass_rate,
                         None if eta is None else eta.seconds, counts.graded, word, eta, cancelling, finishing,
                         cancelling and _lease_over(run))


def _lease_over(run: Run | None) -> bool:
    """The run's lease has run out (nobody renews it: its worker died, or stopped on a full disk)."""
    from execugraph.store import utcnow

    if run is None or run.worker_id is None:
        return True
    end = run.lease_expires_at
    return end is not None and end < utcnow()


def time_left(store: Store, run: Run) -> tuple[estimates.Estimate | None, estimates.Estimate | None]:
    """(time until the run ends, time until its trials in flight end), from per-condition trial costs."""
    from execugraph.store import batch_reads, utcnow

    now = utcnow()
    run_id = int(run.id)
    left = {c: estimates.Left(queued, tuple(_ran(now, s) for s in starts))
            for c, (queued, starts) in batch_reads.trials_left(store, run_id).items()}
    observed = {c: estimates.Durations(*sums) for c, sums in batch_reads.run_durations(store, run_id).items()}
    unsettled = [c for c, rest in left.items() if rest.trials and observed.get(c, estimates.Durations()).n < SETTLED_AFTER]
    history: dict[str, estimates.Durations] = {}
    if unsettled:
        history = {c: estimates.Durations(*sums) for c, sums in
                   batch_reads.history_durations(store, run_id, run.models, unsettled).items()}
    config = run.config or {}
    concurrency = int((config.get("batch") or {}).get("concurrency") or 1)
    running = {c: rest.running for c, rest in left.items()}
    return (estimates.estimate(left, observed, history, concurrency),
            estimates.finishing(running, observed, history))


def _ran(now: datetime, started: datetime | None) -> float:
    return 0.0 if started is None else max((now - started).total_seconds(), 0.0)


def wait_for(store: Store, run_id: int, on_progress: Callable[[BatchProgress], None] | None = None,
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
