"""Batch execution: enqueue a grid, and a worker that runs it, resumably, N trials at a time.

A batch is a Run of kind `batch` whose every trial is inserted `queued` up front
(unique key: run, problem, condition, seed, trial index), so progress is exact
and a resumed batch only runs what is left. A worker leases one run at a time,
heart-beats it, and claims trials one by one with an atomic UPDATE.
"""

from __future__ import annotations

import logging
import os
import socket
import sys
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any

from execugraph.batch.lease import RunLease
from execugraph.batch.outcome import Counts, status_word
from execugraph.batch.spec import BatchSpec
from execugraph.outages import TrialInterrupted
from execugraph.store import StoreBusyError, SupersededError, leases
from execugraph.store.retry import run_with_retry
from execugraph.trial import TrialDeps, run_trial

log = logging.getLogger("execugraph.batch.runner")

HEARTBEAT_S = 5.0
STALE_AFTER_S = 30.0


def enqueue_batch(store: Any, spec: BatchSpec, problems: list[Any] | None = None) -> int:
    """Store the batch run and queue its whole grid; returns the run id."""
    if problems is None:
        from execugraph.benchmarks import load_benchmark

        problems = load_benchmark(spec.benchmark, **spec.benchmark_options)
    chosen = spec.select(problems)
    for problem in chosen:
        store.upsert_problem(problem)
    configs = {c: spec.run_config(c).model_dump() for c in spec.conditions}
    models = {role: spec.models.get(role, spec.default_model) for role in
              ("planner", "generator", "reviewer", "evaluator", "optimizer", "explainer")}
    title = spec.title or f"{spec.benchmark}: {', '.join(spec.conditions)} x seeds {spec.seeds}"
    config: dict[str, Any] = {"batch": spec.model_dump(), "conditions": configs}
    if spec.benchmark_options.get("path"):  # a suite file: recorded by name and SHA-256 (see suite_files)
        from execugraph.suite_files import suite_identity

        config["suite"] = suite_identity(spec.benchmark_options["path"])
    run_id = store.create_run("batch", title, config, benchmark=spec.benchmark, models=models)
    keys = spec.trial_keys(chosen)
    store.ensure_trials(run_id, keys)
    store.update_run(run_id, progress_total=len(keys))
    return run_id


def batch_spec_of(run: Any) -> BatchSpec:
    return BatchSpec(**run.config["batch"])


@dataclass
class Progress:
    """Where a run stands; `pass_rate` is passed / graded (see `run_outcome`)."""

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


def progress(store: Any, run_id: int) -> Progress:
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


class Worker:
    """Claims queued batch runs from the store and executes their trials."""

    def __init__(
        self,
        store: Any,
        *,
        worker_id: str | None = None,
        deps_factory: Callable[[], TrialDeps] | None = None,
        stale_after_s: float = STALE_AFTER_S,
        heartbeat_s: float = HEARTBEAT_S,
    ) -> None:
        self.store = store
        self.worker_id = worker_id or f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"
        self.deps_factory = deps_factory or TrialDeps
        self.stale_after_s = stale_after_s  # this worker's lease length
        self.heartbeat_s = heartbeat_s
        self.stop = threading.Event()
        self._halted: set[int] = set()  # runs whose cancel this worker has seen
        self.abandoned: list[int] = []  # trials given up because the lease was lost (for logs and tests)

    def run_forever(self, poll_s: float = 1.0, exit_when_idle: bool = False, idle_exit_s: float | None = None) -> int:
        """Serve queued runs until stopped (or when idle, or after `idle_exit_s` without work).

        With `exit_when_idle`, runs still leased to another worker are waited for
        until their lease either runs out (then this worker takes them over) or is
        renewed (their worker is alive). Returns 0, or 1 when `exit_when_idle` and
        the database stayed unusable past the retry budget.
        """
        idle_since = time.monotonic()
        watch = TakeoverWatch(self.store, self.worker_id, self.stale_after_s)
        while not self.stop.is_set():
            claimed_at = time.monotonic()
            try:
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

    def process_run(self, run_id: int, *, claimed_at: float | None = None) -> str:
        """Run every queued trial of a claimed run; returns the status the run was left in.

        `claimed_at` is the monotonic time just before the claim was sent (the
        lease is trusted from then); "lost" means another worker took the run over.
        """
        claimed_at = time.monotonic() if claimed_at is None else claimed_at
        spec = batch_spec_of(self.store.get_run(run_id))
        if spec.executor == "ray":  # the Ray driver keeps the same lease, resume and cancel contract
            from execugraph.scaleout.executor import ScaleOptions, drive_claimed_run

            options = ScaleOptions(heartbeat_s=self.heartbeat_s, stale_after_s=self.stale_after_s)
            return drive_claimed_run(
                self.store, run_id, self.worker_id, stop=self.stop, options=options, claimed_at=claimed_at
            )
        lease = RunLease(
            self.store,
            run_id,
            self.worker_id,
            lease_s=self.stale_after_s,
            heartbeat_s=self.heartbeat_s,
            claimed_at=claimed_at,
        ).start()
        self._halted.discard(run_id)  # a resumed run starts without the cancel this worker saw before
        status, error = "done", None
        try:
            leases.requeue_inflight(self.store, run_id)
            status = self._drain(run_id, spec, lease)
        except (SupersededError, leases.LeaseLostError) as exc:
            lease.lose(str(exc))
        except StoreBusyError as exc:  # the database stayed locked past the budget: leave the run to resume
            log.error("run %s: %s; leaving it for a later worker", run_id, exc)
            return "queued"
        except Exception as exc:  # a broken batch is marked failed, never left hanging
            log.exception("run %s failed", run_id)
            status, error = "failed", f"{type(exc).__name__}: {exc}"
        finally:
            lease.close()
        if lease.lost:
            return "lost"
        self._refresh_progress(run_id)
        leases.release_run(self.store, run_id, self.worker_id, status, error)
        return status

    def _cancelled(self, run_id: int) -> bool:
        run = run_with_retry(lambda: self.store.get_run(run_id), what=f"read run {run_id}")
        return run is None or bool(run.cancel_requested)

    def _drain(self, run_id: int, spec: BatchSpec, lease: RunLease) -> str:
        configs = {c: spec.run_config(c) for c in spec.conditions}
        if any(config.retrieval for config in configs.values()):
            from execugraph.retrieval import get_retriever

            get_retriever().reload_if_changed()  # pick up library edits made in the UI; fixed for this batch
        problems: dict[tuple[str, str], Any] = {}
        running: dict[Future[Any], int] = {}
        cancelled = False
        with ThreadPoolExecutor(max_workers=spec.concurrency, thread_name_prefix=f"run{run_id}") as pool:
            while True:
                stopping = self.stop.is_set() or lease.lost
                cancelled = cancelled or (not lease.lost and self._cancelled(run_id))
                if cancelled:
                    self._halted.add(run_id)  # trials waiting for an LLM endpoint stop waiting
                while lease.held() and not (stopping or cancelled) and len(running) < spec.concurrency:
                    try:
                        trial = leases.claim_trial(self.store, run_id, self.worker_id)
                    except leases.LeaseLostError as exc:
                        lease.lose(str(exc))
                        break
                    if trial is None:
                        break
                    key = (trial.benchmark, trial.problem_id)
                    if key not in problems:
                        problems[key] = self.store.get_problem(*key)
                    attempt = self.store.fenced(trial.id, trial.started_at, guard=lease.guard)
                    job = pool.submit(self._run_one, attempt, run_id, trial, problems[key], configs[trial.condition],
                                      lease)
                    running[job] = trial.id
                if not running:
                    if lease.lost or lease.held() or stopping or cancelled:
                        break
                    # nothing in flight and the lease in doubt: wait until it is renewed or lost
                    if lease.wait_decided(lease.wait_budget_s) == "suspended":
                        raise StoreBusyError(f"run {run_id}: the lease could not be renewed "
                                             f"for {lease.wait_budget_s:.0f} s")
                    continue
                done, _ = wait(set(running), timeout=1.0, return_when=FIRST_COMPLETED)
                for future in done:
                    trial_id = running.pop(future)
                    try:
                        future.result()
                    except SupersededError as exc:
                        self.abandoned.append(trial_id)
                        log.warning("trial %s abandoned: %s", trial_id, exc)
                if done and not lease.lost:
                    self._refresh_progress(run_id)
        if lease.lost:
            return "lost"
        if cancelled:
            leases.cancel_queued(self.store, run_id)
            return "cancelled"
        if self.stop.is_set():
            return "queued"  # paused: a later worker resumes it
        return "done"

    def _run_one(self, store: Any, run_id: int, trial: Any, problem: Any, config: Any, lease: RunLease) -> None:
        if problem is None:
            store.finish_trial(trial.id, status="error", error_class="harness_error",
                               message=f"problem {trial.problem_id!r} of {trial.benchmark!r} is not in the store")
            return
        deps = self.deps_factory()
        if deps.interrupted is None:
            deps.interrupted = lambda: self._interruption(run_id, lease)
        run_trial(problem, config, store, run_id=run_id, seed=trial.seed, trial_index=trial.trial_index,
                  trial_id=trial.id, deps=deps)

    def _interruption(self, run_id: int, lease: RunLease) -> TrialInterrupted | None:
        """Why a trial waiting for an LLM endpoint should stop waiting now, if it should."""
        if lease.lost:  # another worker owns the run now and reruns the trial: write nothing more
            return TrialInterrupted("abandoned", "this worker lost the run's lease")
        if run_id in self._halted:
            return TrialInterrupted("cancelled", "the batch was cancelled while the trial waited for its LLM endpoint")
        if self.stop.is_set():
            return TrialInterrupted("queued", "the worker stopped while the trial waited for its LLM endpoint")
        return None

    def _refresh_progress(self, run_id: int) -> None:
        p = run_with_retry(lambda: self.store.run_progress(run_id), what=f"count the trials of run {run_id}")
        self.store.update_run(run_id, progress_done=p.get("done", 0) + p.get("error", 0),
                              progress_passed=p.get("passed", 0))


class TakeoverWatch:
    """For `worker --once`: runs leased to other workers that this worker should wait for.

    A run whose lease end keeps moving has a live worker and is left to it; one
    whose lease end stands still will expire, and is waited for so that it can
    be taken over (a worker that died a moment ago must not leave its run
    stranded because a `--once` worker looked too early).
    """

    def __init__(self, store: Any, worker_id: str, stale_after_s: float) -> None:
        self.store = store
        self.worker_id = worker_id
        self.stale_after_s = stale_after_s
        self.first_seen: dict[int, Any] = {}
        self.alive: set[int] = set()
        self.announced: set[int] = set()

    def pending(self) -> bool:
        """True while some other worker's run has a lease that has not moved since first seen."""
        waiting = []
        for held in leases.leased_runs(self.store, self.stale_after_s):
            if held.worker_id == self.worker_id or held.run_id in self.alive:
                continue
            first = self.first_seen.setdefault(held.run_id, held.expires_at)
            if held.expires_at != first:
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


def request_cancel(store: Any, run_id: int) -> None:
    """Ask the owning worker to stop after its in-flight trials; a queued run is cancelled at once."""
    run = store.get_run(run_id)
    if run is None:
        raise LookupError(f"run {run_id} does not exist")
    store.update_run(run_id, cancel_requested=True)
    if run.status == "queued" and run.worker_id is None:
        leases.cancel_queued(store, run_id)
        store.update_run(run_id, status="cancelled")


def resume(store: Any, run_id: int) -> int:
    """Queue a cancelled, failed or interrupted batch again; completed trials are kept."""
    if store.get_run(run_id) is None:
        raise LookupError(f"run {run_id} does not exist")
    return leases.requeue_cancelled(store, run_id)


def claim_or_wait(
    store: Any,
    run_id: int,
    worker_id: str,
    stale_after_s: float = STALE_AFTER_S,
    on_progress: Callable[[Progress], None] | None = None,
    poll_s: float = 1.0,
) -> float | None:
    """Claim `run_id` for `worker_id`, waiting while another worker holds it, and taking it over if that
    worker's lease runs out (it died). Returns the monotonic time the claim was sent, or None once the
    run has left queued/running in other hands."""
    while True:
        sent = time.monotonic()
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


def wait_for(store: Any, run_id: int, on_progress: Callable[[Progress], None] | None = None,
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
