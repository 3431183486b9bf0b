"""The batch worker: claims queued runs from the store and hands each to the executor its spec names.

A batch is a Run of kind `batch` whose every trial is inserted `queued` up front
(unique key: run, problem, condition, seed, trial index), so progress is exact
and a resumed batch only runs what is left. A worker leases one run at a time
(`leased_run.LeasedRun`) and gives it to an executor: `local` (this process,
`local.LocalExecutor`) is always there; others, such as `ray`, are passed in by
whoever builds the worker (the CLI), so this package never imports them.
`Worker.process_run` is the one place a run's executor is chosen.
"""

from __future__ import annotations

import logging
import os
import socket
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Protocol

from execugraph.batch.lease import HEARTBEAT_S, LEASE_S
from execugraph.batch.leased_run import LeasedRun
from execugraph.batch.local import LocalExecutor
from execugraph.batch.progress import BatchProgress, progress, wait_for
from execugraph.batch.spec import BatchSpec, batch_spec_of
from execugraph.store import StoreBusyError, leases

if TYPE_CHECKING:
    from datetime import datetime

    from execugraph.domain.config import RunConfig
    from execugraph.store import Store
    from execugraph.workflow.trial import TrialDeps

log = logging.getLogger("execugraph.batch")

STALE_AFTER_S = LEASE_S  # the CLI's `worker --stale-after-s` default


class Executor(Protocol):
    """Runs a claimed run's trials inside `run.serve(...)`; returns the status the run was left in."""

    def execute(self, run: LeasedRun, spec: BatchSpec) -> str: ...


class Worker:
    """Claims queued batch runs from the store and runs each with the executor its spec names."""

    def __init__(
        self,
        store: Store,
        *,
        worker_id: str | None = None,
        deps_factory: Callable[[], TrialDeps] | None = None,
        executors: Mapping[str, Executor] | None = None,
        stale_after_s: float = STALE_AFTER_S,
        heartbeat_s: float = HEARTBEAT_S,
        preload: bool = True,
    ) -> None:
        """`preload`: warm this process (`warmup.warm_worker`) for each local batch before its trials start."""
        self.store = store
        self.worker_id = worker_id or f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"
        self.local = LocalExecutor(deps_factory, warm=self.warm_for)
        self.executors: dict[str, Executor] = {"local": self.local, **(executors or {})}
        self.stale_after_s = stale_after_s  # this worker's lease length
        self.heartbeat_s = heartbeat_s
        self.stop = threading.Event()
        self.preload = preload
        self.warm_s: float | None = None  # seconds the warm-ups took, once one was needed
        self.warmed: set[str] = set()  # the providers warmed so far
        self.warmed_all = False

    def prepare(self, configs: Iterable[RunConfig] | None = None) -> None:
        """Warm this process, synchronously, for a batch about to run its trials here (see `warmup`): the trial
        graph and the providers its conditions call that no earlier batch did (None: every installed one)."""
        if not self.preload or self.warmed_all:
            return
        from execugraph.batch.warmup import providers_of, warm_worker

        if configs is None:
            took, self.warmed_all = warm_worker(), True
        else:
            missing = [p for p in providers_of(configs) if p not in self.warmed]
            if self.warm_s is not None and not missing:
                return
            took = warm_worker(missing)
            self.warmed.update(missing)
        self.warm_s = (self.warm_s or 0.0) + took

    def run_forever(self, poll_s: float = 1.0, exit_when_idle: bool = False, idle_exit_s: float | None = None) -> int:
        """Serve queued runs until stopped (or when idle, or after `idle_exit_s` without work).

        A worker that waits for work warms itself first (`prepare`); one that exits when idle (`worker --once`)
        warms only for a batch it claims, with that batch's providers.

        With `exit_when_idle`, runs still leased to another worker are waited for
        until their lease either runs out (then this worker takes them over) or is
        renewed (their worker is alive). Returns 0, or 1 when `exit_when_idle` and
        the database stayed unusable past the retry budget.
        """
        if not exit_when_idle:  # a worker that waits for batches is warm when one arrives (every provider)
            self.prepare()
        idle_since = time.monotonic()
        watch = TakeoverWatch(self.store, self.worker_id, self.stale_after_s)
        while not self.stop.is_set():
            claimed_at = time.monotonic()
            try:
                for ended in leases.finish_orphaned_cancels(self.store, self.stale_after_s):
                    log.info("run %s: its worker stopped after a cancel; cancelled the trials it left running", ended)
                run_id = leases.claim_run(self.store, self.worker_id, self.stale_after_s)
                if run_id is not None:
                    self.process_run(run_id, claimed_at=claimed_at)
                    idle_since = time.monotonic()
                    continue
            except StoreBusyError as exc:  # the database stayed unusable past the retry budget
                log.error("worker %s: %s", self.worker_id, exc)
                if exit_when_idle:
                    return 1
                self.stop.wait(poll_s)
                continue
            if exit_when_idle and watch.pending():
                self.stop.wait(poll_s)
                continue
            if exit_when_idle or (idle_exit_s is not None and time.monotonic() - idle_since > idle_exit_s):
                return 0
            self.stop.wait(poll_s)
        return 0

    def process_run(
        self,
        run_id: int,
        *,
        claimed_at: float | None = None,
        on_progress: Callable[[BatchProgress], None] | None = None,
    ) -> str:
        """Run a claimed run with the executor its spec names; returns the status the run was left in.

        `claimed_at` is the monotonic time just before the claim was sent (the
        lease is trusted from then); "lost" means another worker took the run over.
        A run whose executor this worker lacks is released as failed, saying so.
        """
        run = LeasedRun(
            self.store,
            run_id,
            self.worker_id,
            lease_s=self.stale_after_s,
            heartbeat_s=self.heartbeat_s,
            claimed_at=claimed_at,
            stop=self.stop,
            on_progress=on_progress,
        )
        spec = batch_spec_of(self.store.get_run(run_id))
        if spec.sequential is not None:
            from execugraph.sequential.monitor import SequentialMonitor

            run.after_progress = SequentialMonitor(self.store, run_id, spec).update
        executor = self.executors.get(spec.executor)
        if executor is None:
            return run.give_up(
                f"executor {spec.executor!r} is not available in this worker (it has {', '.join(sorted(self.executors))})"
            )
        return executor.execute(run, spec)

    def warm_for(self, configs: Iterable[RunConfig]) -> None:
        """`prepare` for a batch whose trials are about to run here (the local executor calls it). A failure is only
        logged: the trials import the same modules themselves, and a trial that cannot says why."""
        try:
            self.prepare(configs)
        except Exception as exc:  # noqa: BLE001 - see above
            log.warning("warm-up skipped: %s", exc)

    def run_here(self, run_id: int, on_progress: Callable[[BatchProgress], None] | None = None) -> str:
        """`batch --wait`: run `run_id` in this process and return its final status.

        If another worker holds the run, its progress is followed instead, and the
        run is taken over should that worker die (its lease runs out).
        """
        while (claimed_at := claim_or_wait(self.store, run_id, self.worker_id, self.stale_after_s,
                                           on_progress=on_progress)) is not None:
            self.process_run(run_id, claimed_at=claimed_at, on_progress=on_progress)
        return wait_for(self.store, run_id, on_progress=on_progress)


class TakeoverWatch:
    """For `worker --once`: runs leased to other workers that this worker should wait for.

    A run whose lease end keeps moving later has a live worker and is left to it;
    one whose lease end stands still (or was moved earlier, as by an operator
    ending a dead worker's lease) will expire, and is waited for so that it can
    be taken over (a worker that died a moment ago must not leave its run
    stranded because a `--once` worker looked too early).
    """

    def __init__(self, store: Store, worker_id: str, stale_after_s: float) -> None:
        self.store = store
        self.worker_id = worker_id
        self.stale_after_s = stale_after_s
        self.first_seen: dict[int, datetime | None] = {}  # run id -> its lease end when first seen
        self.alive: set[int] = set()
        self.announced: set[int] = set()

    def pending(self) -> bool:
        """True while some other worker's run has a lease that has not moved since first seen."""
        waiting = []
        for held in leases.leased_runs(self.store, self.stale_after_s):
            if held.worker_id == self.worker_id or held.run_id in self.alive:
                continue
            first = self.first_seen.setdefault(held.run_id, held.expires_at)
            if held.expires_at != first and not (first and held.expires_at and held.expires_at < first):
                self.alive.add(held.run_id)
                print(f"worker: run {held.run_id} is being served by live worker {held.worker_id}; leaving it",
                      file=sys.stderr, flush=True)
                continue
            if held.run_id not in self.announced:
                self.announced.add(held.run_id)
                until = "now" if held.expires_at is None else f"{held.expires_at.astimezone():%H:%M:%S}"
                print(f"worker: run {held.run_id} is leased to {held.worker_id} until {until}; "
                      "waiting to take it over if that worker is gone", file=sys.stderr, flush=True)
            waiting.append(held.run_id)
        return bool(waiting)


def claim_or_wait(
    store: Store,
    run_id: int,
    worker_id: str,
    stale_after_s: float = STALE_AFTER_S,
    on_progress: Callable[[BatchProgress], None] | None = None,
    poll_s: float = 1.0,
) -> float | None:
    """Claim `run_id` for `worker_id`, waiting while another worker holds it, and taking it over if that
    worker's lease runs out (it died). Returns the monotonic time the claim was sent, or None once the
    run has left queued/running in other hands."""
    while True:
        sent = time.monotonic()
        leases.finish_orphaned_cancels(store, stale_after_s, only=run_id)  # cancelled while its worker was gone
        if leases.claim_run(store, worker_id, stale_after_s, only=run_id) == run_id:
            return sent
        run = store.get_run(run_id)
        if run is None:
            raise LookupError(f"run {run_id} does not exist")
        if on_progress:
            on_progress(progress(store, run_id))
        if run.status not in ("queued", "running"):
            return None
        time.sleep(poll_s)
