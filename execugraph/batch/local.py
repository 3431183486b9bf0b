"""The local executor: a claimed run's trials on threads in this process, `concurrency` at a time.

Trials are claimed one by one with the store's atomic UPDATE and written through
`Store.fenced` with the lease's `guard`, so a trial whose worker lost the run
writes nothing more; the lease, cancel check, progress and release are the
`LeasedRun`'s, shared with the Ray executor.

After a cancel, trials taken away from their attempts (`control.request_cancel(now=True)`)
are no longer waited for: their threads are left to end on their own, and every write
they still try is refused by the fence.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import TYPE_CHECKING

from execugraph.batch.leased_run import LeasedRun
from execugraph.batch.order import tail_order
from execugraph.batch.spec import BatchSpec, condition_configs
from execugraph.providers.outages import TrialInterrupted
from execugraph.store import SupersededError, leases
from execugraph.store.retry import run_with_retry

if TYPE_CHECKING:
    from datetime import datetime

    from execugraph.domain.config import RunConfig
    from execugraph.domain.problem import Problem
    from execugraph.store import Store, Trial
    from execugraph.workflow.trial import TrialDeps

log = logging.getLogger("execugraph.batch")


class LocalExecutor:
    """The `local` executor: runs a claimed batch's trials in this process."""

    def __init__(self, deps_factory: Callable[[], TrialDeps] | None = None,
                 warm: Callable[[Iterable[RunConfig]], None] | None = None) -> None:
        """`deps_factory`: what each trial calls models through; None: `TrialDeps` (imported with the first batch,
        so a worker that never runs one here never loads the trial graph). `warm`: called with a batch's conditions
        before its trial threads start (the worker's warm-up, `Worker.warm_for`)."""
        self.deps_factory = deps_factory
        self.warm = warm
        self.abandoned: list[int] = []  # trials given up because the lease was lost (for logs and tests)

    def execute(self, run: LeasedRun, spec: BatchSpec) -> str:
        """Run every queued trial of `run` (see `LeasedRun.serve` for the status returned)."""
        return run.serve(lambda leased: (self._drain(leased, spec), None))

    def _drain(self, run: LeasedRun, spec: BatchSpec) -> str:
        from execugraph.providers.clients import warm_models
        from execugraph.workflow.trial import TrialDeps

        configs = condition_configs(run.store.get_run(run.run_id), spec)  # as recorded when queued
        if self.warm is not None:
            self.warm(configs.values())
        if self.deps_factory is None:  # one shared client per endpoint, before any thread (a caller's own
            warm_models(configs.values(), TrialDeps())  # factory may count its calls, so it is not asked here)
        lease, store = run.lease, run.store
        order = tail_order(spec, configs, spec.concurrency)  # the last waves heaviest first (batch.order)
        problems: dict[tuple[str, str], Problem | None] = {}
        running: dict[Future[None], int] = {}
        tokens: dict[int, datetime | None] = {}  # trial id -> its attempt's fencing token
        orphaned = False
        pool = ThreadPoolExecutor(max_workers=spec.concurrency, thread_name_prefix=f"run{run.run_id}")
        try:
            while True:
                cancelled = run.check_cancel()
                stopping = run.stop.is_set() or lease.lost
                while lease.held() and not (stopping or cancelled) and len(running) < spec.concurrency:
                    try:
                        trial = leases.claim_trial(store, run.run_id, run.worker_id, order)
                    except leases.LeaseLostError as exc:
                        lease.lose(str(exc))
                        break
                    if trial is None:
                        break
                    key = (trial.benchmark, trial.problem_id)
                    if key not in problems:
                        problems[key] = store.get_problem(*key)
                    attempt = store.fenced(trial.id, trial.started_at, guard=lease.guard)
                    job = pool.submit(self._run_one, attempt, run, trial, problems[key], configs[trial.condition])
                    running[job], tokens[trial.id] = trial.id, trial.started_at
                if cancelled and running and self._drop_taken(store, running, tokens):
                    orphaned = True
                    continue
                if not running:
                    if lease.lost or lease.held() or stopping or cancelled:
                        break
                    run.wait_for_lease()  # nothing in flight and the lease in doubt: wait until it is decided
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
                    run.refresh_progress()
                run.report()
        finally:
            pool.shutdown(wait=not orphaned, cancel_futures=True)  # an orphan's writes are refused: don't wait
        if lease.lost:
            return "lost"
        if run.cancelled:
            return "cancelled"
        if run.stop.is_set():
            return "queued"  # paused: a later worker resumes it
        return "done"

    def _drop_taken(self, store: Store, running: dict[Future[None], int], tokens: dict[int, datetime | None]) -> bool:
        """Stop waiting for trials whose attempts no longer own them (cancelled now); True if there were any."""
        attempts = {tid: tokens[tid] for tid in running.values()}
        held = run_with_retry(lambda: leases.attempts_still_held(store, attempts), what="check the trials in flight")
        taken = [future for future, tid in running.items() if tid not in held and not future.done()]
        for future in taken:
            trial_id = running.pop(future)
            self.abandoned.append(trial_id)
            log.warning("trial %s abandoned: cancelled while in flight", trial_id)
        return bool(taken)

    def _run_one(self, store: Store, run: LeasedRun, trial: Trial, problem: Problem | None, config: RunConfig) -> None:
        if problem is None:
            store.finish_trial(trial.id, status="error", error_class="harness_error",
                               message=f"problem {trial.problem_id!r} of {trial.benchmark!r} is not in the store")
            return
        from execugraph.workflow.trial import TrialDeps, run_trial

        deps = (self.deps_factory or TrialDeps)()
        if deps.interrupted is None:
            deps.interrupted = lambda: interruption(run)
        run_trial(problem, config, store, run_id=run.run_id, seed=trial.seed, trial_index=trial.trial_index,
                  trial_id=trial.id, deps=deps)


def interruption(run: LeasedRun) -> TrialInterrupted | None:
    """Why a trial waiting for an LLM endpoint should stop waiting now, if it should."""
    if run.lease.lost:  # another worker owns the run now and reruns the trial: write nothing more
        return TrialInterrupted("abandoned", "this worker lost the run's lease")
    if run.cancelled:
        return TrialInterrupted("cancelled", "the batch was cancelled while the trial waited for its LLM endpoint")
    if run.stop.is_set():
        return TrialInterrupted("queued", "the worker stopped while the trial waited for its LLM endpoint")
    return None
