"""One claimed run from claim to release: the lease loop every executor runs its trials inside.

A worker that has claimed a run (`runner.Worker`, or `batch --wait`) hands it
to an executor as a `LeasedRun`: the local one (`local.LocalExecutor`) or Ray's
(`execugraph.scaleout`). Each executor only decides which trial runs where;
what they have in common lives here, once:

- the lease (`lease.RunLease`), heart-beaten in the background from `serve()`
  until the release, and `wait_for_lease()` while it is in doubt;
- the cancel check (`check_cancel`, a read at most every `cancel_every_s`);
- the progress counters stored on the run (`refresh_progress`) and reported to
  a caller that follows the run (`report`);
- the end: trials cut short are queued again, a cancelled run's queued trials
  are cancelled, and the run is released with its status; unless the lease was
  lost (the new owner has the run) or the database stayed unusable past its
  retry budget (the run is left for a later worker, once its lease runs out).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from execugraph.batch.lease import HEARTBEAT_S, LEASE_S, LOST, SUSPENDED, RunLease
from execugraph.batch.progress import BatchProgress, progress
from execugraph.store import StoreBusyError, SupersededError, leases
from execugraph.store.errors import StoreDiskFullError
from execugraph.store.opening import disk_full_error
from execugraph.store.retry import run_with_retry

if TYPE_CHECKING:
    from execugraph.store import Store

log = logging.getLogger("execugraph.batch")

# An executor's loop: runs the claimed run's trials; returns (status, error), with status one of
# done, cancelled, failed, queued (paused: stopped), lost (another worker holds the run now).
Body = Callable[["LeasedRun"], tuple[str, str | None]]


class LeasedRun:
    """Run `run_id`, claimed by `worker_id` at monotonic time `claimed_at`, held until `serve()` releases it."""

    def __init__(
        self,
        store: Store,
        run_id: int,
        worker_id: str,
        *,
        lease_s: float = LEASE_S,
        heartbeat_s: float = HEARTBEAT_S,
        claimed_at: float | None = None,
        stop: threading.Event | None = None,
        on_progress: Callable[[BatchProgress], None] | None = None,
        cancel_every_s: float = 0.5,
        progress_every_s: float = 1.0,
    ) -> None:
        self.store = store
        self.run_id = run_id
        self.worker_id = worker_id
        self.lease = RunLease(
            store,
            run_id,
            worker_id,
            lease_s=lease_s,
            heartbeat_s=heartbeat_s,
            claimed_at=time.monotonic() if claimed_at is None else claimed_at,
        )
        self.stop = stop or threading.Event()  # set: pause after the trials in flight (the run goes back to queued)
        self.on_progress = on_progress
        self.cancel_every_s = cancel_every_s
        self.progress_every_s = progress_every_s
        self.cancelled = False  # a cancel was seen; it stays seen for this hold of the run
        self.after_progress: Callable[[bool], object] | None = None  # e.g. a sequential batch's looks (arg: final)
        self._next_cancel_check = 0.0
        self._last_report: float | None = None

    # -- the frame

    def serve(self, body: Body, *, teardown: Callable[[], None] | None = None) -> str:
        """Run `body` under the lease, then settle and release the run; returns the status it was left in.

        "lost" when another worker took the run over (nothing is released: it is
        theirs); "queued" when the database stayed unusable past its retry budget
        (not released: a later worker takes it over once the lease runs out), and
        on Ctrl-C (released as queued, then KeyboardInterrupt is raised again).
        A body that raises anything else leaves the run `failed` with the reason.
        `teardown` runs before the lease stops being renewed.
        """
        self.lease.start()
        status, error = "done", None
        interrupted: KeyboardInterrupt | None = None
        disk_full: StoreDiskFullError | None = None
        busy = False
        try:
            leases.requeue_inflight(self.store, self.run_id)  # trials left running by a worker that died
            status, error = body(self)
        except KeyboardInterrupt as exc:  # Ctrl-C on `batch --wait`: pause; a later worker resumes the run
            status, interrupted = "queued", exc
        except (SupersededError, leases.LeaseLostError) as exc:
            self.lease.lose(str(exc))
        except StoreBusyError as exc:  # the database stayed locked past the budget: leave the run to resume
            log.error("run %s: %s; leaving it for a later worker", self.run_id, exc)
            busy = True
        except Exception as exc:  # a broken batch is marked failed, never left hanging
            full = disk_full_error(exc, self.store.url, self.store.engine.dialect.name)
            if full is None:
                log.exception("run %s failed", self.run_id)
                status, error = "failed", f"{type(exc).__name__}: {exc}"
            else:  # nothing can be written, so nothing is released: a worker takes the run over later
                log.error("run %s: %s", self.run_id, full)
                busy, disk_full = True, full
        finally:
            try:
                if teardown is not None:
                    teardown()
            finally:
                self.lease.close()
        if self.lease.lost:
            status = "lost"
        elif busy:
            status = "queued"
        else:
            leases.requeue_inflight(self.store, self.run_id)  # attempts cut short run again on resume
            if status == "cancelled":
                leases.cancel_queued(self.store, self.run_id)
            self.refresh_progress(final=True)
            leases.release_run(self.store, self.run_id, self.worker_id, status, error)
        if not busy:
            self.report(force=True)
        if interrupted is not None:
            raise interrupted
        if disk_full is not None:
            raise StoreDiskFullError(f"{disk_full}; run {self.run_id} is left as it was, and a worker takes it over "
                                     "once its lease runs out (start one with `python -m execugraph worker`)")
        return status

    def give_up(self, reason: str) -> str:
        """Release the claimed run as failed with `reason` (shown by `status` and the dashboard, and logged)."""
        log.error("run %s: %s", self.run_id, reason)
        leases.release_run(self.store, self.run_id, self.worker_id, "failed", reason)
        return "failed"

    # -- what an executor's loop calls

    def check_cancel(self) -> bool:
        """Whether a cancel was requested: read at most every `cancel_every_s`; once seen it stays seen."""
        now = time.monotonic()
        if not self.cancelled and not self.lease.lost and now >= self._next_cancel_check:
            self._next_cancel_check = now + self.cancel_every_s
            run = run_with_retry(lambda: self.store.get_run(self.run_id), what=f"read run {self.run_id}")
            self.cancelled = run is None or bool(run.cancel_requested)
        return self.cancelled

    @property
    def halted(self) -> bool:
        """Start nothing new: cancelled, or this worker was asked to stop."""
        return self.cancelled or self.stop.is_set()

    def wait_for_lease(self) -> None:
        """While the lease is in doubt: return once it is renewed; raise once it is lost or stays in doubt
        past the store's retry budget (`serve` then leaves the run to a later worker)."""
        state = self.lease.wait_decided(self.lease.wait_budget_s)
        if state == LOST:
            raise leases.LeaseLostError(self.lease.lost_reason or f"run {self.run_id}: the lease was lost")
        if state == SUSPENDED:
            raise StoreBusyError(
                f"run {self.run_id}: the lease could not be renewed for {self.lease.wait_budget_s:.0f} s"
            )

    def refresh_progress(self, *, final: bool = False) -> None:
        """Store the run's finished and passed counts on the run (what the run lists show).

        `final`: the run is about to be released, so whatever follows progress must not wait.
        """
        p = run_with_retry(lambda: self.store.run_progress(self.run_id), what=f"count the trials of run {self.run_id}")
        self.store.update_run(
            self.run_id, progress_done=p.get("done", 0) + p.get("error", 0), progress_passed=p.get("passed", 0)
        )
        if self.after_progress is not None and not self.lease.lost:
            try:
                self.after_progress(final)
            except (StoreBusyError, SupersededError, leases.LeaseLostError):
                raise
            except Exception:  # a look that cannot be taken leaves the batch running its full grid
                log.exception("run %s: the sequential look failed; the batch runs on without stopping early",
                              self.run_id)

    def report(self, *, force: bool = False) -> None:
        """Tell the caller following the run (`batch --wait`) where it stands, at most every `progress_every_s`."""
        if self.on_progress is None:
            return
        now = time.monotonic()
        if force or self._last_report is None or now - self._last_report >= self.progress_every_s:
            self._last_report = now
            self.on_progress(progress(self.store, self.run_id))
