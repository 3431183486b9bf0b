"""The batch's pool of Ray worker actors and the slots the driver hands trials to.

One `TrialWorker` actor per node by default, spread over the cluster. Each runs
up to `slots` trials at once in its own thread pool (Ray's threaded actors), so
a node serves many LLM-bound trials from one process with one sandbox pool.
Actors restart themselves when their process dies (max_restarts=-1), but Ray
never re-runs a call (max_task_retries=0): the driver resubmits a lost trial
itself, after wiping its partial trace and noting why, on a worker that is up.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

import ray

from execugraph.scaleout.messages import TrialTask, WarmRequest, WorkerInfo
from execugraph.scaleout.trial_worker import TrialWorker

if TYPE_CHECKING:
    from ray.actor import ActorHandle

log = logging.getLogger("execugraph.scaleout")
ASK_AGAIN_S = 0.5  # how often to ask a restarting actor whether it is back


@dataclass
class WorkerSlot:
    """One actor as the driver books it."""

    index: int
    actor: ActorHandle  # the TrialWorker actor
    slots: int
    in_flight: int = 0
    info: WorkerInfo | None = None  # host and pid, as of the last ready() answer
    losses: int = 0
    available: bool = True  # False from a crash until the restarted process answers ready()
    down_since: float | None = None
    pending_info: ray.ObjectRef | None = None  # ready() asked of a restarting actor, not answered yet
    next_ask: float = 0.0

    @property
    def where(self) -> str:
        pid, host = (self.info.pid, self.info.host) if self.info is not None else ("?", "?")
        return f"Ray worker {self.index} (pid {pid} on {host})"


class WorkerPool:
    """Creates the actors, books their slots (least busy first) and tears them down."""

    def __init__(
        self, count: int, slots: int, db_url: str, *, cpus: float = 1.0, warm: WarmRequest | None = None
    ) -> None:
        """`warm`: the clients each actor builds in `ready()`, before its first trial (and again after a restart)."""
        if count < 1 or slots < 1:
            raise ValueError(f"need at least one worker with one slot, got {count} x {slots}")
        self.count, self.slots, self.db_url, self.cpus = count, slots, db_url, cpus
        self.warm = warm
        self.workers: list[WorkerSlot] = []

    def check_fits(self) -> None:
        """Refuse up front (ValueError) a pool the cluster cannot hold, rather than time out starting it."""
        cpus = ray.cluster_resources().get("CPU", 0)
        if self.count * self.cpus > cpus:
            raise ValueError(
                f"{self.count} Ray workers x {self.cpus:g} CPU each do not fit on this cluster ({cpus:g} CPUs in all): "
                "use fewer --ray-workers or add nodes"
            )

    def start(self, timeout_s: float) -> None:
        """Create the actors and wait until each has warmed up (imports, store, sandbox pool)."""
        self.check_fits()
        remote = ray.remote(TrialWorker)
        for index in range(self.count):
            actor = remote.options(
                max_restarts=-1,
                max_task_retries=0,
                max_concurrency=self.slots,
                num_cpus=self.cpus,
                scheduling_strategy="SPREAD",
            ).remote(self.db_url, self.slots)
            self.workers.append(WorkerSlot(index, actor, self.slots))
        refs = [w.actor.ready.remote(self.warm) for w in self.workers]
        ready, pending = ray.wait(refs, num_returns=len(refs), timeout=timeout_s)
        if pending:
            cpus = ray.cluster_resources().get("CPU", 0)
            raise RuntimeError(
                f"only {len(ready)} of {self.count} Ray workers started within {timeout_s:.0f} s; each needs "
                f"{self.cpus} CPU and the cluster has {cpus:g} CPUs in all (see `ray status`)"
            )
        for worker, info in zip(self.workers, ray.get(refs), strict=True):
            worker.info = info
        log.info("Ray workers ready: %s", ", ".join(w.where for w in self.workers))

    def acquire(self) -> WorkerSlot | None:
        """The least busy worker with a free slot (slot taken), or None."""
        free = [w for w in self.workers if w.available and w.in_flight < w.slots]
        if not free:
            return None
        best = min(free, key=lambda w: (w.in_flight, w.index))
        best.in_flight += 1
        return best

    def release(self, worker: WorkerSlot) -> None:
        worker.in_flight -= 1

    def submit(self, worker: WorkerSlot, task: TrialTask) -> ray.ObjectRef:
        """Send the task to the worker; the ref resolves to its TrialOutcome."""
        return worker.actor.run.remote(task)

    def note_lost(self, worker: WorkerSlot) -> None:
        """A call died with the actor's process. Ray restarts the actor; until the new process
        answers ready(), the worker gets no trials (calls sent meanwhile would fail too)."""
        worker.losses += 1
        if worker.available:
            worker.available = False
            worker.down_since = time.monotonic()
        self._ask(worker)

    def _ask(self, worker: WorkerSlot) -> None:
        if worker.pending_info is None:
            worker.pending_info = worker.actor.ready.remote(self.warm)
            worker.next_ask = time.monotonic() + ASK_AGAIN_S

    def refresh(self) -> None:
        """Bring restarted actors back into service once they answer (never blocks)."""
        for worker in self.workers:
            if worker.available:
                continue
            if worker.pending_info is None:
                if time.monotonic() >= worker.next_ask:
                    self._ask(worker)
                continue
            done, _ = ray.wait([worker.pending_info], timeout=0)
            if not done:
                continue
            worker.pending_info = None
            try:
                worker.info = ray.get(done[0])
            except Exception as exc:  # still restarting: ask again shortly
                log.debug("%s not back yet: %s", worker.where, exc)
                continue
            worker.available, worker.down_since = True, None
            log.warning("%s is back after a crash", worker.where)

    def unavailable_for(self) -> float:
        """Seconds since the last worker became unavailable when none is available, else 0."""
        if not self.workers or any(w.available for w in self.workers):
            return 0.0
        return time.monotonic() - max(w.down_since or 0.0 for w in self.workers)

    def pids(self, timeout_s: float = 30.0) -> list[int]:
        """The current process id of every worker."""
        return ray.get([w.actor.pid.remote() for w in self.workers], timeout=timeout_s)

    def shutdown(self) -> None:
        """Close each actor's sandbox pool and store, then kill it."""
        closing = [w.actor.close.remote() for w in self.workers]
        if closing:
            ray.wait(closing, num_returns=len(closing), timeout=10)
        for worker in self.workers:
            try:
                ray.kill(worker.actor, no_restart=True)
            except Exception as exc:  # already dead
                log.debug("killing %s: %s", worker.where, exc)
        self.workers = []
