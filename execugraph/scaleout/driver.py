"""The Ray batch driver: holds the run lease and decides which trial runs where, and again where needed.

The store stays the single source of truth, exactly as with the local runner:
the driver claims queued trials one by one with the same atomic UPDATE,
hands each to a Ray worker actor together with an LLM endpoint, and the worker
writes the trace and result straight into the shared database (see
docs/scale-out.md for why workers write rather than stream to the driver). The
driver runs inside the same lease loop as the local executor
(`execugraph.batch.leased_run.LeasedRun`: heartbeat, cancel check, progress,
release) and settles every attempt:

- the worker process died or its node was lost (Ray raises) -> the trial's
  partial trace is wiped (`leases.reset_trial`, which also supersedes the lost
  attempt) and the trial is resubmitted to a live worker, reason noted;
- the trial ended with an LLM error and its endpoint now fails its health
  check, or the endpoint stayed unreachable past the trial's wait (with several
  endpoints a worker waits only `reroute_after_s` before giving a trial back)
  -> the endpoint is drained and the trial rerun on another, reason noted;
- anything else is the trial's result, as the local runner would store it.

After `max_attempts` a trial is stored as an error naming every attempt, so a
trial that kills its worker every time cannot stall the batch. A driver that
dies leaves the run `running` with a stale lease; the next claimant re-queues
its in-flight trials, so none is lost and the unique key keeps any from
being duplicated.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

import ray
from ray.exceptions import RayError, RayTaskError

from execugraph.batch.lease import HEARTBEAT_S, LEASE_S
from execugraph.batch.leased_run import LeasedRun
from execugraph.batch.order import tail_order
from execugraph.batch.spec import BatchSpec, batch_spec_of, condition_configs
from execugraph.configuration.settings import load_settings
from execugraph.domain.config import ROLES, RunConfig
from execugraph.domain.json_types import JsonObject
from execugraph.providers.model_spec import parse_spec
from execugraph.scaleout.endpoints import Endpoint, EndpointBalancer
from execugraph.scaleout.messages import TrialOutcome, TrialTask, WarmRequest
from execugraph.scaleout.workers import WorkerPool, WorkerSlot
from execugraph.store import StoreBusyError, leases, utcnow

if TYPE_CHECKING:
    from execugraph.domain.problem import Problem
    from execugraph.store import Store, Trial

log = logging.getLogger("execugraph.scaleout")


@dataclass
class ScaleOptions:
    """Timing and sizing of a Ray batch. Defaults suit real clusters; tests shorten the timings."""

    heartbeat_s: float = HEARTBEAT_S  # run lease renewal (for `run_on_ray`; a Worker's run uses the Worker's)
    stale_after_s: float = LEASE_S  # take over a run whose driver stopped heart-beating this long ago
    health_every_s: float = 5.0  # periodic GET /api/tags of every endpoint
    probe_timeout_s: float = 2.0
    max_attempts: int = 4  # per trial, counting the first
    # no healthy endpoint this long with work left -> run failed; None: the batch's outage budget
    all_down_grace_s: float | None = None
    # with several endpoints, a trial waits this long for an unreachable one, then moves to another
    reroute_after_s: float = 20.0
    worker_cpus: float = 1.0  # Ray CPU resource each worker actor reserves
    worker_start_timeout_s: float = 180.0
    poll_s: float = 0.25


@dataclass
class Attempt:
    """A claimed trial on its way through one or more attempts."""

    trial: Trial  # the claimed trial, as claimed
    token: datetime | None  # the trial's started_at for the current attempt (fencing token)
    number: int = 1
    history: list[str] = field(default_factory=list)
    endpoint: Endpoint | None = None
    worker: WorkerSlot | None = None


def served_models(configs: dict[str, RunConfig], kind: str = "ollama") -> list[str]:
    """The model names of provider `kind` any role of any condition uses (what a healthy endpoint must serve)."""
    names = set()
    for config in configs.values():
        for role in ROLES:
            spec = parse_spec(config.model_for(role))
            if spec.provider == kind:
                names.add(spec.name)
    return sorted(names)


def batch_endpoints(spec: BatchSpec, configs: dict[str, RunConfig]) -> tuple[str, list[str]]:
    """(kind, urls) of the endpoints to balance over: the batch's own, else the configured server its models use."""
    listed = spec.endpoint_list()
    if listed:
        return listed[0][0], [url for _, url in listed]
    settings = load_settings()
    if served_models(configs, "openai") and not served_models(configs, "ollama"):
        return "openai", [settings.openai_base_url]
    return "ollama", [settings.ollama_host]


def cluster_nodes() -> list[JsonObject]:
    """Alive Ray nodes that can run workers (a head started with --num-cpus 0 cannot), as `ray.nodes()` lists them."""
    return [n for n in ray.nodes() if n.get("Alive") and n.get("Resources", {}).get("CPU", 0) > 0]


class RayBatchDriver:
    """Drives one claimed batch run on the connected Ray cluster; `run()` returns the status it was left in."""

    def __init__(self, run: LeasedRun, db_url: str, *, options: ScaleOptions | None = None) -> None:
        self.leased = run
        self.store = run.store
        self.run_id = run.run_id
        self.worker_id = run.worker_id
        self.lease = run.lease
        self.db_url = db_url
        self.options = options or ScaleOptions()
        self.pool: WorkerPool | None = None
        self.balancer: EndpointBalancer | None = None
        self.workers_ready = threading.Event()
        self.timings: dict[str, float] = {}  # workers_start_s, trials_s (for bench/scale.py)
        self.concurrency = 1  # trials in flight in total, from the batch spec
        self.claim_order: leases.TailOrder | None = None  # how the last queued trials are claimed
        self._problems: dict[tuple[str, str], Problem | None] = {}
        self.kind = "ollama"  # of the endpoints balanced over (ollama | openai)
        self.grace_s: float = 120.0
        self._down_since: dict[str, datetime] = {}  # url -> when the driver first saw it drained
        self._trials_started = 0.0  # monotonic time the workers were ready (trials_s counts from there)

    @classmethod
    def claimed(
        cls, store: Store, run_id: int, worker_id: str, db_url: str, *, options: ScaleOptions | None = None
    ) -> RayBatchDriver:
        """A driver for a run the caller has just claimed itself, with the lease timing of `options`."""
        options = options or ScaleOptions()
        run = LeasedRun(store, run_id, worker_id, lease_s=options.stale_after_s, heartbeat_s=options.heartbeat_s)
        return cls(run, db_url, options=options)

    @property
    def stop(self) -> threading.Event:
        """Set it to pause: no new attempts, the run goes back to queued and a later worker resumes it."""
        return self.leased.stop

    # -- lifecycle

    def run(self) -> str:
        """Drive the run inside its lease loop (see `LeasedRun.serve` for the status returned)."""
        # teardown kills the worker actors: in-flight attempts are abandoned, their tokens fenced
        return self.leased.serve(lambda _: self._drive(batch_spec_of(self.store.get_run(self.run_id))),
                                 teardown=self._teardown)

    def _teardown(self) -> None:
        if self.balancer is not None:
            self.balancer.stop()
        if self.pool is not None:
            self.pool.shutdown()

    # -- setup

    def _drive(self, spec: BatchSpec) -> tuple[str, str | None]:
        configs = condition_configs(self.store.get_run(self.run_id), spec)
        self.kind, hosts = batch_endpoints(spec, configs)
        models = served_models(configs, self.kind)
        self.concurrency = spec.concurrency
        self.claim_order = tail_order(spec, configs, spec.concurrency)  # the last waves heaviest first (batch.order)
        self.grace_s = self.options.all_down_grace_s
        if self.grace_s is None:
            self.grace_s = spec.outage_budget_s
        self.balancer = EndpointBalancer(
            hosts,
            spec.endpoint_concurrency or spec.concurrency,
            required_models=models,
            checked=bool(models),
            check_every_s=self.options.health_every_s,
            probe_timeout_s=self.options.probe_timeout_s,
            kind=self.kind,
            on_health=self._note_health,
        )
        self.balancer.check_all()
        self.balancer.start()
        count = min(spec.ray_workers or max(1, len(cluster_nodes())), spec.concurrency)
        slots = math.ceil(spec.concurrency / count)
        warm = WarmRequest(tuple(configs.values()), tuple(hosts), self.kind)  # clients built before trial one
        self.pool = WorkerPool(count, slots, self.db_url, cpus=self.options.worker_cpus, warm=warm)
        self.pool.check_fits()  # started in the loop, once an endpoint is healthy
        self._trials_started = time.monotonic()
        try:
            return self._loop(configs)
        finally:
            self.timings["trials_s"] = time.monotonic() - self._trials_started

    def _start_workers(self) -> None:
        """Start the worker actors, once an endpoint is healthy: a run whose endpoints are all down (and that
        may fail after its grace) does not hold cluster CPUs or pay each worker's start-up meanwhile."""
        assert self.pool is not None and self.balancer is not None
        started = time.monotonic()
        self.pool.start(self.options.worker_start_timeout_s)
        self._trials_started = time.monotonic()
        self.timings["workers_start_s"] = self._trials_started - started
        self.workers_ready.set()
        log.info("run %s: %d Ray workers x %d slots, endpoints %s", self.run_id, self.pool.count, self.pool.slots,
                 ", ".join(e.url for e in self.balancer.endpoints))

    # -- the loop

    def _loop(self, configs: dict[str, RunConfig]) -> tuple[str, str | None]:
        assert self.balancer is not None and self.pool is not None
        run = self.leased
        in_flight: dict[ray.ObjectRef, Attempt] = {}
        retry: deque[Attempt] = deque()
        queue_empty = False
        failure: str | None = None
        down_since: float | None = None
        while True:
            now = time.monotonic()
            if self.lease.lost:
                return "lost", None  # the new owner re-queues our trials; teardown kills our attempts
            if not self.lease.held():
                # Not renewed within the lease period: start nothing new, and give up every attempt in
                # flight (serve leaves the run) unless the lease is renewed (then nobody can have taken it).
                run.wait_for_lease()
                continue
            run.check_cancel()
            halted = run.halted or failure is not None
            if not halted and not self.workers_ready.is_set() and self.balancer.healthy():
                self._start_workers()
                continue  # the start took a while: look at the lease and the cancel flag again
            if not halted:
                queue_empty = self._fill(in_flight, retry, configs, queue_empty)
                endpoints_down = not self.balancer.healthy()
                workers_down = self.pool.unavailable_for() > self.options.worker_start_timeout_s
                if (endpoints_down or workers_down) and not retry and not queue_empty:
                    # nothing could be claimed, so nobody has looked: is anything still queued?
                    queue_empty = self.store.run_progress(self.run_id).get("queued", 0) == 0
                work_left = bool(retry) or not queue_empty
                if work_left and endpoints_down:
                    down_since = down_since or now
                    if now - down_since > self.grace_s:
                        failure = (
                            f"no LLM endpoint passed its health check for "
                            f"{self.grace_s:.0f} s: {self.balancer.describe()}"
                        )
                        log.error("run %s: %s", self.run_id, failure)
                else:
                    down_since = None
                if work_left and workers_down:
                    failure = f"no Ray worker came back within {self.options.worker_start_timeout_s:.0f} s of a crash"
                    log.error("run %s: %s", self.run_id, failure)
            self.pool.refresh()
            if not in_flight:
                if halted or failure is not None:
                    break
                if not retry and queue_empty:
                    if self.store.run_progress(self.run_id).get("queued", 0) == 0:
                        break
                    queue_empty = False  # someone queued more trials meanwhile
                    continue
                time.sleep(self.options.poll_s)  # waiting for an endpoint to come back
                continue
            ready, _ = ray.wait(list(in_flight), num_returns=1, timeout=self.options.poll_s)
            if ready:
                ready, _ = ray.wait(list(in_flight), num_returns=len(in_flight), timeout=0)
                for ref in ready:
                    self._settle(in_flight.pop(ref), ref, retry)
                run.refresh_progress()
            run.report()
        if failure is not None:
            return "failed", failure
        if run.cancelled:
            return "cancelled", None
        if self.stop.is_set():
            return "queued", None  # paused: a later driver resumes it
        return "done", None

    def _fill(
        self, in_flight: dict[ray.ObjectRef, Attempt], retry: deque[Attempt], configs: dict[str, RunConfig], queue_empty: bool
    ) -> bool:
        """Start attempts while a trial, an endpoint slot and a worker slot are all available."""
        assert self.balancer is not None and self.pool is not None
        while len(in_flight) < self.concurrency and (retry or not queue_empty):
            endpoint = self.balancer.acquire()
            if endpoint is None:
                break
            worker = self.pool.acquire()
            if worker is None:
                self.balancer.release(endpoint)
                break
            if retry:
                attempt = retry.popleft()
            else:
                trial = leases.claim_trial(self.store, self.run_id, self.worker_id, self.claim_order)
                if trial is None:
                    self.balancer.release(endpoint)
                    self.pool.release(worker)
                    return True
                attempt = Attempt(trial, trial.started_at)
            problem = self._problem(attempt.trial)
            if problem is None:
                self.balancer.release(endpoint)
                self.pool.release(worker)
                self.store.finish_trial(
                    attempt.trial.id,
                    status="error",
                    error_class="harness_error",
                    message=f"problem {attempt.trial.problem_id!r} of {attempt.trial.benchmark!r} is not in the store",
                )
                continue
            attempt.endpoint, attempt.worker = endpoint, worker
            task = TrialTask(
                run_id=self.run_id,
                trial_id=attempt.trial.id,
                token=attempt.token,
                problem=problem,
                config=configs[attempt.trial.condition],
                seed=attempt.trial.seed,
                trial_index=attempt.trial.trial_index,
                ollama_host=endpoint.url if self.kind == "ollama" else None,
                openai_base_url=endpoint.url if self.kind == "openai" else None,
                # with somewhere else to go, an unreachable endpoint is left for another instead of waited out
                reroute_after_s=self.options.reroute_after_s if len(self.balancer.endpoints) > 1 else None,
            )
            in_flight[self.pool.submit(worker, task)] = attempt
        return queue_empty

    def _problem(self, trial: Trial) -> Problem | None:
        """The trial's problem, read once per (benchmark, id); None when the store lacks it."""
        key = (trial.benchmark, trial.problem_id)
        if key not in self._problems:
            self._problems[key] = self.store.get_problem(*key)
        return self._problems[key]

    # -- settling an attempt

    def _settle(self, attempt: Attempt, ref: ray.ObjectRef, retry: deque[Attempt]) -> None:
        assert self.balancer is not None and self.pool is not None
        endpoint, worker = attempt.endpoint, attempt.worker
        assert endpoint is not None and worker is not None
        self.balancer.release(endpoint)
        self.pool.release(worker)
        n = attempt.number
        try:
            outcome: TrialOutcome = ray.get(ref)
        except RayTaskError as exc:  # our code raised inside the worker (e.g. the database went away)
            if isinstance(getattr(exc, "cause", None), StoreBusyError):
                # the store refused writes past its retry budget: nothing about the trial; run it again
                # later without charging an attempt (and never record "database is locked" as its result)
                log.warning("trial %s: %s; queued again", attempt.trial.id, exc.cause)
                attempt.token = leases.reset_trial(self.store, attempt.trial.id)
                retry.append(attempt)
                return
            cause = str(exc.cause) if getattr(exc, "cause", None) is not None else str(exc).splitlines()[0]
            self._retry(attempt, retry, f"attempt {n} crashed in {worker.where}: {cause[:300]}", "harness_error")
            return
        except RayError as exc:  # the worker process or its node died
            self.pool.note_lost(worker)
            self._retry(
                attempt, retry, f"attempt {n} was lost with {worker.where}: {type(exc).__name__}", "harness_error"
            )
            return
        if outcome.superseded:
            log.warning("trial %s: %s", attempt.trial.id, outcome.message)
            return
        if outcome.status == "error" and outcome.error_class == "llm_error" and (
            self.balancer.checked or outcome.unreachable
        ):
            # an endpoint already drained is not probed again for every trial that failed on it
            reason = endpoint.reason if not endpoint.healthy else self.balancer.check(endpoint)
            if reason is None and outcome.unreachable:  # it stopped answering calls: try elsewhere
                reason = f"unreachable from the trial ({outcome.unreachable})"
            if reason is not None:
                first = (outcome.message or "").strip().splitlines()[:1]
                self._retry(
                    attempt,
                    retry,
                    f"attempt {n} failed on {endpoint.url} ({first[0][:300] if first else 'llm_error'}); "
                    f"endpoint drained: {reason}",
                    "llm_error",
                )
                return
        if attempt.history:
            notes = "\n".join([*attempt.history, f"attempt {n} ran on {endpoint.url} in {worker.where}"])
            message = outcome.message
            self.store.update_trial(attempt.trial.id, message=f"{notes}\n{message}" if message else notes)

    def _retry(self, attempt: Attempt, retry: deque[Attempt], reason: str, error_class: str) -> None:
        """Queue another attempt (partial trace wiped), or give up after max_attempts."""
        log.warning("trial %s: %s", attempt.trial.id, reason)
        attempt.history.append(reason)
        if attempt.number >= self.options.max_attempts:
            self.store.finish_trial(
                attempt.trial.id,
                status="error",
                error_class=error_class,
                message="\n".join([*attempt.history, f"gave up after {attempt.number} attempts"]),
            )
            return
        attempt.number += 1
        attempt.token = leases.reset_trial(self.store, attempt.trial.id)  # also fences off the old attempt
        retry.appendleft(attempt)

    # -- status

    def _note_health(self, endpoint: Endpoint, reason: str | None) -> None:
        """Show a drained endpoint as a wait while no endpoint is healthy; clear it when it is back."""
        assert self.balancer is not None
        if reason is None:
            self._down_since.pop(endpoint.url, None)
            self.store.note_endpoint_up(self.run_id, endpoint.url)
            return
        since = self._down_since.setdefault(endpoint.url, utcnow())
        if not self.balancer.healthy():
            self.store.note_endpoint_down(self.run_id, endpoint.url, since, reason)
