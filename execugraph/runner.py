"""Batch execution: enqueue a grid, and a worker that runs it, resumably, N trials at a time.

A batch is a Run of kind `batch` whose every trial is inserted `queued` up front
(unique key: run, problem, condition, seed, trial index), so progress is exact
and a resumed batch only runs what is left. A worker leases one run at a time,
heart-beats it, and claims trials one by one with an atomic UPDATE.
"""

from __future__ import annotations

import os
import socket
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any

from execugraph.batch_spec import BatchSpec
from execugraph.outages import TrialInterrupted
from execugraph.store import leases
from execugraph.trial import TrialDeps, run_trial

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
    total: int
    done: int
    passed: int
    running: int
    error: int
    pass_rate: float | None
    eta_s: float | None


def progress(store: Any, run_id: int) -> Progress:
    """done/total, pass rate so far and a rate-based ETA, computed in SQL."""
    p = store.run_progress(run_id)
    run = store.get_run(run_id)
    finished = p.get("done", 0) + p.get("error", 0)
    total = p.get("total", 0)
    eta = None
    if run is not None and run.started_at is not None and finished and run.status == "running":
        from execugraph.store import utcnow

        elapsed = (utcnow() - run.started_at).total_seconds()
        eta = max(0.0, elapsed / finished * (total - finished))
    rate = p.get("passed", 0) / p["done"] if p.get("done") else None
    return Progress(total, finished, p.get("passed", 0), p.get("running", 0), p.get("error", 0), rate, eta)


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
        self.stale_after_s = stale_after_s
        self.heartbeat_s = heartbeat_s
        self.stop = threading.Event()
        self._halted: set[int] = set()  # runs whose cancel this worker has seen

    def run_forever(self, poll_s: float = 1.0, exit_when_idle: bool = False, idle_exit_s: float | None = None) -> None:
        """Serve queued runs until stopped (or at once when idle, or after `idle_exit_s` without work)."""
        idle_since = time.monotonic()
        while not self.stop.is_set():
            run_id = leases.claim_run(self.store, self.worker_id, self.stale_after_s)
            if run_id is None:
                if exit_when_idle or (idle_exit_s is not None and time.monotonic() - idle_since > idle_exit_s):
                    return
                self.stop.wait(poll_s)
                continue
            self.process_run(run_id)
            idle_since = time.monotonic()

    def process_run(self, run_id: int) -> str:
        """Run every queued trial of a claimed run; returns the status the run was left in."""
        spec = batch_spec_of(self.store.get_run(run_id))
        if spec.executor == "ray":  # the Ray driver keeps the same lease, resume and cancel contract
            from execugraph.ray_executor import ScaleOptions, drive_claimed_run

            options = ScaleOptions(heartbeat_s=self.heartbeat_s, stale_after_s=self.stale_after_s)
            return drive_claimed_run(self.store, run_id, self.worker_id, stop=self.stop, options=options)
        leases.requeue_inflight(self.store, run_id)
        self._halted.discard(run_id)  # a resumed run starts without the cancel this worker saw before
        lost = threading.Event()
        beat_stop = threading.Event()

        def beat() -> None:
            while not beat_stop.wait(self.heartbeat_s):
                if not leases.heartbeat(self.store, run_id, self.worker_id):
                    lost.set()
                    return

        beater = threading.Thread(target=beat, name=f"heartbeat-{run_id}", daemon=True)
        beater.start()
        status, error = "done", None
        try:
            status = self._drain(run_id, spec, lost)
        except Exception as exc:  # a broken batch is marked failed, never left hanging
            status, error = "failed", f"{type(exc).__name__}: {exc}"
        finally:
            beat_stop.set()
            beater.join()
        if not lost.is_set():
            self._refresh_progress(run_id)
            leases.release_run(self.store, run_id, self.worker_id, status, error)
        return status

    def _cancelled(self, run_id: int) -> bool:
        run = self.store.get_run(run_id)
        return run is None or bool(run.cancel_requested)

    def _drain(self, run_id: int, spec: BatchSpec, lost: threading.Event) -> str:
        configs = {c: spec.run_config(c) for c in spec.conditions}
        if any(config.retrieval for config in configs.values()):
            from execugraph.retrieval import get_retriever

            get_retriever().reload_if_changed()  # pick up library edits made in the UI; fixed for this batch
        problems: dict[tuple[str, str], Any] = {}
        running: set[Future[Any]] = set()
        cancelled = False
        with ThreadPoolExecutor(max_workers=spec.concurrency, thread_name_prefix=f"run{run_id}") as pool:
            while True:
                stopping = self.stop.is_set() or lost.is_set()
                cancelled = cancelled or self._cancelled(run_id)
                if cancelled:
                    self._halted.add(run_id)  # trials waiting for an LLM endpoint stop waiting
                while not (stopping or cancelled) and len(running) < spec.concurrency:
                    trial = leases.claim_trial(self.store, run_id)
                    if trial is None:
                        break
                    key = (trial.benchmark, trial.problem_id)
                    if key not in problems:
                        problems[key] = self.store.get_problem(*key)
                    running.add(pool.submit(self._run_one, run_id, trial, problems[key], configs[trial.condition],
                                            lost))
                if not running:
                    break
                done, running = wait(running, timeout=1.0, return_when=FIRST_COMPLETED)
                for future in done:
                    future.result()
                if done:
                    self._refresh_progress(run_id)
        if cancelled:
            leases.cancel_queued(self.store, run_id)
            return "cancelled"
        if self.stop.is_set() or lost.is_set():
            return "queued"  # paused: a later worker resumes it
        return "done"

    def _run_one(self, run_id: int, trial: Any, problem: Any, config: Any, lost: threading.Event) -> None:
        if problem is None:
            self.store.finish_trial(trial.id, status="error", error_class="harness_error",
                                    message=f"problem {trial.problem_id!r} of {trial.benchmark!r} is not in the store")
            return
        deps = self.deps_factory()
        if deps.interrupted is None:
            deps.interrupted = lambda: self._interruption(run_id, lost)
        run_trial(problem, config, self.store, run_id=run_id, seed=trial.seed, trial_index=trial.trial_index,
                  trial_id=trial.id, deps=deps)

    def _interruption(self, run_id: int, lost: threading.Event) -> TrialInterrupted | None:
        """Why a trial waiting for an LLM endpoint should stop waiting now, if it should."""
        if lost.is_set():  # another worker owns the run now and reruns the trial: write nothing more
            return TrialInterrupted("abandoned", "this worker lost the run's lease")
        if run_id in self._halted:
            return TrialInterrupted("cancelled", "the batch was cancelled while the trial waited for its LLM endpoint")
        if self.stop.is_set():
            return TrialInterrupted("queued", "the worker stopped while the trial waited for its LLM endpoint")
        return None

    def _refresh_progress(self, run_id: int) -> None:
        p = self.store.run_progress(run_id)
        self.store.update_run(run_id, progress_done=p.get("done", 0) + p.get("error", 0),
                              progress_passed=p.get("passed", 0))


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
