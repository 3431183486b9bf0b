"""A worker's hold on one run: renewed in the background, trusted only within its lease period.

The lease protocol (shared by every executor through `leased_run.LeasedRun`):

- Claiming or renewing writes `lease_expires_at = sent + lease_s`, where `sent`
  is when the write was *sent*; the worker trusts the lease only until
  `sent + lease_s - margin` by its own monotonic clock. A renewal that waited
  on a lock therefore never extends the lease past what other workers see.
- The heartbeat thread survives every database error: it logs, waits a little
  and tries again with a fresh time. It stops only when the run is released or
  another worker holds it (then the lease is `lost`).
- While the lease is not trusted (`suspended`: not renewed within the period)
  the worker starts nothing new, and each in-flight trial's next write waits
  in `guard()`. If a renewal then goes through, nobody else can have taken
  the run (a takeover changes `worker_id`), so the trials carry on. If the run
  was taken over, the lease is `lost`: `guard()` raises SupersededError and
  the trials are abandoned; the new owner has re-queued them, and the atomic
  token check in every fenced write (`store.fencing`) refuses anything the
  old attempts still try to write.
- Another worker may claim the run only after `lease_expires_at`, by which
  time this worker has stopped trusting it.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import TYPE_CHECKING

from execugraph.store import SupersededError, leases, utcnow
from execugraph.store.retry import StoreBusyError, describe, is_transient

if TYPE_CHECKING:
    from execugraph.store import Store

log = logging.getLogger("execugraph.batch")

HELD, SUSPENDED, LOST = "held", "suspended", "lost"
LEASE_S = 30.0  # how long a claim or renewal holds the run (`worker --stale-after-s`)
HEARTBEAT_S = 5.0  # how often the lease is renewed


def safety_margin(lease_s: float) -> float:
    """How long before the stored end the holder stops trusting its lease (room for clock skew)."""
    return min(0.2 * lease_s, 5.0)


class RunLease:
    """The lease on `run_id` held by `worker_id`, claimed at monotonic time `claimed_at`."""

    def __init__(
        self,
        store: Store,
        run_id: int,
        worker_id: str,
        *,
        lease_s: float,
        heartbeat_s: float,
        claimed_at: float,
        wait_budget_s: float | None = None,
    ) -> None:
        self.store = store
        self.run_id = run_id
        self.worker_id = worker_id
        self.lease_s = lease_s
        self.heartbeat_s = heartbeat_s
        self.wait_budget_s = wait_budget_s if wait_budget_s is not None else store.retry_policy.budget_s
        self._trust_s = lease_s - safety_margin(lease_s)
        self._valid_until = claimed_at + self._trust_s
        self._lost_reason: str | None = None
        self._cond = threading.Condition()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.renewal_failures = 0  # consecutive; for logs and tests

    # -- state

    @property
    def state(self) -> str:
        with self._cond:
            if self._lost_reason is not None:
                return LOST
            return HELD if time.monotonic() < self._valid_until else SUSPENDED

    def held(self) -> bool:
        """True while the lease is trusted: renewed within the period and not lost."""
        return self.state == HELD

    @property
    def lost(self) -> bool:
        return self.state == LOST

    @property
    def lost_reason(self) -> str | None:
        return self._lost_reason

    def lose(self, reason: str) -> None:
        """Mark the lease lost (another worker holds the run); in-flight writes are refused from now on."""
        with self._cond:
            if self._lost_reason is None:
                self._lost_reason = reason
                log.warning("run %s: lease lost (%s); abandoning its in-flight trials", self.run_id, reason)
            self._cond.notify_all()

    def _renewed(self, sent: float) -> None:
        with self._cond:
            was_suspended = time.monotonic() >= self._valid_until
            self._valid_until = max(self._valid_until, sent + self._trust_s)
            if was_suspended and time.monotonic() < self._valid_until:
                log.warning("run %s: lease renewed again; resuming its trials", self.run_id)
            self._cond.notify_all()

    # -- what trials call before each write

    def guard(self) -> None:
        """Return while the lease is held; wait while it is in doubt; raise SupersededError once it is lost
        or closed (the run was released, and any attempt still writing was left behind)."""
        deadline = time.monotonic() + self.wait_budget_s
        announced = False
        with self._cond:
            while True:
                if self._lost_reason is not None:
                    raise SupersededError(f"run {self.run_id}: {self._lost_reason}; this attempt was abandoned")
                if self._stop.is_set():  # released: only an attempt left behind (cancelled now) still writes
                    raise SupersededError(f"run {self.run_id}: released by this worker; this attempt was abandoned")
                now = time.monotonic()
                if now < self._valid_until:
                    return
                if now >= deadline:
                    raise StoreBusyError(
                        f"run {self.run_id}: the lease could not be renewed for {self.wait_budget_s:.0f} s"
                    )
                if not announced:
                    announced = True
                    log.info("run %s: lease not renewed in time; a trial write waits for the lease", self.run_id)
                self._cond.wait(min(deadline - now, 1.0))

    def wait_decided(self, timeout_s: float) -> str:
        """Wait up to `timeout_s` for a suspended lease to be renewed or lost; returns the state."""
        deadline = time.monotonic() + timeout_s
        with self._cond:
            while self._lost_reason is None and time.monotonic() >= self._valid_until:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._cond.wait(min(left, 1.0))
        return self.state

    # -- the heartbeat thread

    def start(self) -> RunLease:
        self._thread = threading.Thread(target=self._beat, name=f"lease-{self.run_id}", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        """Stop renewing (the caller releases the run, or leaves it to expire)."""
        self._stop.set()
        with self._cond:
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join()

    def _beat(self) -> None:
        delay = self.heartbeat_s if self.held() else 0.0
        while not self._stop.wait(delay):
            sent, at = time.monotonic(), utcnow()
            try:
                renewed = leases.heartbeat(self.store, self.run_id, self.worker_id, lease_s=self.lease_s, at=at)
            except Exception as exc:  # the heartbeat must outlive any database error
                self.renewal_failures += 1
                level = logging.WARNING if is_transient(exc) else logging.ERROR
                if self.renewal_failures == 1 or self.renewal_failures % 10 == 0:
                    log.log(level, "run %s: lease renewal failed (%s); retrying", self.run_id, describe(exc))
                delay = min(self.heartbeat_s, 1.0)
                continue
            self.renewal_failures = 0
            if not renewed:
                self.lose("another worker took the run over")
                return
            self._renewed(sent)
            # a renewal that waited past its own period is already stale: send a fresh one at once
            delay = self.heartbeat_s if self.held() else 0.0
