"""Riding out LLM endpoint outages: backoff with jitter, a per-endpoint outage budget, a visible wait.

When a call fails with a transient fault (see `providers.errors`), the trial does not
end: it sleeps with exponential backoff and full jitter and calls again. Every trial
of a process that talks to the same endpoint for the same run shares one `Outage`
(when it started, the last error), so the outage budget is per endpoint and run, not
per trial: once the endpoint has been unreachable for `budget_s`, calls to it end
their trials as `llm_error` naming the endpoint, the last error and how long it was
tried. The first answer from the endpoint ends the outage for everyone.

The wait is written to the store (`Store.note_endpoint_down`) so `status` and the
dashboard, in other processes, can show `waiting: <endpoint> unreachable since
HH:MM:SS, retrying`.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from execugraph.store.models import utcnow

if TYPE_CHECKING:
    from execugraph.store import Store

log = logging.getLogger("execugraph.providers.outages")

DEFAULT_BUDGET_S = 600.0
PERSIST_EVERY_S = 5.0  # refresh a stored wait at most this often per endpoint (and process)


class TrialInterrupted(Exception):  # noqa: N818 - a control-flow signal, not an error
    """The trial stopped waiting because its worker is stopping or its batch was cancelled.

    `status` is what the trial should go back to: "queued" (a later worker reruns it),
    "cancelled" (resume reruns it) or "abandoned" (another worker owns it now: write nothing).
    """

    def __init__(self, status: str, reason: str) -> None:
        super().__init__(reason)
        self.status = status


@dataclass(frozen=True)
class Backoff:
    """Exponential backoff with jitter: attempt n sleeps uniform(c / 2, c), c = min(cap, first * 2**n)."""

    first_s: float = 0.5
    cap_s: float = 15.0

    def delay(self, attempt: int, rng: random.Random | None = None) -> float:
        ceiling = min(self.cap_s, self.first_s * (2 ** min(attempt, 30)))
        return (rng or random).uniform(ceiling / 2, ceiling)


@dataclass
class Outage:
    """One endpoint being down for one run, as this process sees it."""

    endpoint: str
    since: datetime  # wall clock (UTC) of the first failed call
    started: float  # monotonic twin of `since`, for the budget
    last_error: str
    failures: int = 1
    persisted_at: float | None = None  # monotonic time the wait was last written to the store

    def elapsed(self) -> float:
        return time.monotonic() - self.started


@dataclass
class OutageTracker:
    """The outages this process knows of, keyed by (run id, endpoint); shared by all its trials."""

    _outages: dict[tuple[int | None, str], Outage] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def failed(self, run_id: int | None, endpoint: str, error: str) -> Outage:
        """Note a transient failure; returns the outage it belongs to (started now if there was none)."""
        with self._lock:
            outage = self._outages.get((run_id, endpoint))
            if outage is None:
                outage = Outage(endpoint, utcnow(), time.monotonic(), error)
                self._outages[(run_id, endpoint)] = outage
            else:
                outage.last_error, outage.failures = error, outage.failures + 1
            return outage

    def answered(self, run_id: int | None, endpoint: str) -> Outage | None:
        """The endpoint answered: end its outage; returns the outage that just ended, if any."""
        if not self._outages:  # the common case, without the lock
            return None
        with self._lock:
            return self._outages.pop((run_id, endpoint), None)

    def current(self, run_id: int | None, endpoint: str) -> Outage | None:
        with self._lock:
            return self._outages.get((run_id, endpoint))


TRACKER = OutageTracker()


def format_duration(seconds: float) -> str:
    """12 s, 4 min 05 s, 1 h 02 min."""
    seconds = max(0, int(round(seconds)))
    if seconds < 60:
        return f"{seconds} s"
    minutes, rest = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {rest:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


def waiting_line(endpoint: str, since: datetime) -> str:
    """The one line `status` and the dashboard show for a wait (local time of the viewer)."""
    return f"waiting: {endpoint} unreachable since {since.astimezone().strftime('%H:%M:%S')}, retrying"


def waiting_lines(store: Store, run_ids: list[int]) -> dict[int, list[str]]:
    """The wait lines of each run (only runs with live waits appear)."""
    return {
        run_id: [waiting_line(w.endpoint, w.since) for w in found]
        for run_id, found in store.endpoint_waits(run_ids).items()
    }


@dataclass
class EndpointWaiter:
    """Calls one endpoint for one trial, waiting out transient faults within the outage budget.

    `call()` returns the answer, or raises: `GiveUp` when the fault is permanent or the
    budget is spent (its message says why), `TrialInterrupted` when `interrupted()`
    asks the trial to stop while it waits.
    """

    endpoint: str
    run_id: int | None
    budget_s: float = DEFAULT_BUDGET_S
    store: Store | None = None
    interrupted: Callable[[], TrialInterrupted | None] | None = None
    backoff: Backoff = field(default_factory=Backoff)
    tracker: OutageTracker = field(default_factory=lambda: TRACKER)
    sleep_step_s: float = 0.25

    def call(self, attempt: Callable[[], Any]) -> Any:
        from execugraph.providers.errors import classify

        tries = 0
        while True:
            try:
                answer = attempt()
            except Exception as exc:
                fault = classify(exc)
                if not fault.transient:
                    raise GiveUp(fault.summary, permanent=True) from exc
                outage = self.tracker.failed(self.run_id, self.endpoint, fault.summary)
                self._persist(outage)
                elapsed = outage.elapsed()
                if elapsed >= self.budget_s:
                    raise GiveUp(
                        f"{self.endpoint} unreachable for {format_duration(elapsed)} "
                        f"(outage budget {format_duration(self.budget_s)}, {outage.failures} failed calls); "
                        f"last error: {fault.summary}",
                        permanent=False,
                    ) from exc
                if tries == 0:
                    log.warning("%s unreachable (%s); trials wait for it, retrying", self.endpoint, fault.summary)
                self._sleep(min(self.backoff.delay(tries), max(0.0, self.budget_s - elapsed) + 0.05))
                tries += 1
                continue
            ended = self.tracker.answered(self.run_id, self.endpoint)
            if ended is not None:
                log.warning("%s answers again after %s", self.endpoint, format_duration(ended.elapsed()))
                self._unpersist()
            return answer

    def _sleep(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while True:
            if self.interrupted is not None:
                stop = self.interrupted()
                if stop is not None:
                    raise stop
            left = deadline - time.monotonic()
            if left <= 0:
                return
            time.sleep(min(self.sleep_step_s, left))

    def _persist(self, outage: Outage) -> None:
        """Write the wait for other processes to see (at most every PERSIST_EVERY_S); never fails the call."""
        if self.store is None or self.run_id is None:
            return
        now = time.monotonic()
        if outage.persisted_at is not None and now - outage.persisted_at < PERSIST_EVERY_S:
            return
        outage.persisted_at = now
        try:
            self.store.note_endpoint_down(self.run_id, self.endpoint, outage.since, outage.last_error)
        except Exception:  # a busy or unreachable database must not end a trial that is only waiting
            log.exception("could not record the wait on %s for run %s", self.endpoint, self.run_id)

    def _unpersist(self) -> None:
        if self.store is None or self.run_id is None:
            return
        try:
            self.store.note_endpoint_up(self.run_id, self.endpoint)
        except Exception:
            log.exception("could not clear the wait on %s for run %s", self.endpoint, self.run_id)


class GiveUp(Exception):  # noqa: N818 - the waiter's verdict, turned into an LLMError by the caller
    """The call cannot succeed: a permanent fault, or the outage budget is spent."""

    def __init__(self, message: str, *, permanent: bool) -> None:
        super().__init__(message)
        self.permanent = permanent
