"""TrialWorker: the code a Ray worker process runs, one trial per actor call, several at once.

The driver creates a few of these as Ray actors (a threaded actor per node by
default). Each one lives in its own process for the whole batch and keeps, per
process: one store engine on the shared database, one warm `sandbox.SandboxPool`
(so every candidate program runs on the node that runs its trial) and the
imported agent graph. Calls run in the actor's thread pool, like the local
runner's threads. Plain class, no Ray import: the driver wraps it with
`ray.remote`, and tests can call it directly.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from execugraph.scaleout.messages import TrialOutcome, TrialTask, WarmRequest, WorkerInfo
from execugraph.store.fencing import SupersededError

if TYPE_CHECKING:
    from execugraph.providers.outages import TrialInterrupted
    from execugraph.store import Store
    from sandbox import SandboxPool


class TrialWorker:
    """Runs trials against the shared store; the driver decides which and where their LLM calls go."""

    def __init__(self, db_url: str, sandbox_workers: int = 1) -> None:
        self.db_url = db_url
        self.sandbox_workers = max(1, sandbox_workers)
        self._lock = threading.Lock()
        self._store: Store | None = None
        self._pool: SandboxPool | None = None
        self._warmed = False

    # -- per-process resources, created on first use and reused by every call

    def _resources(self) -> tuple[Store, SandboxPool]:
        with self._lock:
            if self._store is None:
                from execugraph.store import open_store

                # The driver migrated the database already; N workers migrating at once would only contend.
                self._store = open_store(self.db_url, "worker")
            if self._pool is None:
                from sandbox import SandboxPool

                self._pool = SandboxPool(workers=min(self.sandbox_workers, os.cpu_count() or 1))
            return self._store, self._pool

    def ready(self, warm: WarmRequest | None = None) -> WorkerInfo:
        """Warm up and say where this worker runs: imports and providers (as a batch worker does before its
        first claim, `batch.warmup`), engine, sandbox pool, and the shared model clients of `warm`'s
        conditions on each of its endpoints, so no trial builds one."""
        with self._lock:
            first = not self._warmed
            self._warmed = True
        if first:
            _warm_imports(warm)
        store, _ = self._resources()
        store.check_connection()
        if warm is not None:
            from execugraph.providers.clients import warm_models
            from execugraph.workflow.trial import TrialDeps

            for url in warm.endpoints:
                where = TrialDeps(ollama_host=url if warm.kind == "ollama" else None,
                                  openai_base_url=url if warm.kind == "openai" else None)
                warm_models(warm.configs, where)
        return WorkerInfo(host=socket.gethostname(), pid=os.getpid(), node=_ray_node_id())

    def run(self, task: TrialTask) -> TrialOutcome:
        """Run one attempt of one claimed trial; returns its outcome (status, verdict, message, where it ran).

        Provider failures come back as status "error" with error_class "llm_error"; a
        superseded attempt comes back with superseded=True and has written nothing after
        it was superseded.
        """
        from execugraph.workflow.trial import TrialDeps, run_trial

        store, pool = self._resources()
        fenced = store.fenced(task.trial_id, task.token)
        host, pid = socket.gethostname(), os.getpid()
        config = task.config
        reroute = task.reroute_after_s
        if reroute is not None and reroute < config.outage_budget_s:  # the driver moves it elsewhere instead
            config = config.model_copy(update={"outage_budget_s": reroute})
        deps = TrialDeps(pool=pool, ollama_host=task.ollama_host, openai_base_url=task.openai_base_url,
                         interrupted=_superseded_check(fenced))
        try:
            fenced.check_attempt()
            result = run_trial(
                task.problem,
                config,
                fenced,
                run_id=task.run_id,
                seed=task.seed,
                trial_index=task.trial_index,
                trial_id=task.trial_id,
                deps=deps,
            )
        except SupersededError as exc:
            return TrialOutcome(superseded=True, message=str(exc), host=host, pid=pid)
        if result.status == "abandoned":
            return TrialOutcome(superseded=True, message=result.message, host=host, pid=pid)
        error_class = None if result.passed else result.verdict
        return TrialOutcome(superseded=False, message=result.message, host=host, pid=pid, status=result.status,
                            passed=result.passed, error_class=error_class, unreachable=result.unreachable)

    def pid(self) -> int:
        """The operating-system process id of this worker (tests kill it to simulate a crash)."""
        return os.getpid()

    def close(self) -> None:
        """Stop the sandbox pool and close database connections before the actor is killed."""
        with self._lock:
            pool, store = self._pool, self._store
            self._pool = self._store = None
        if pool is not None:
            pool.close()
        if store is not None:
            store.close()


def _warm_imports(warm: WarmRequest | None) -> None:
    """Import the trial graph and the providers the batch's conditions use (every installed one when not told).

    An actor serves one batch, so a provider none of its roles names is never called in this process;
    preloading it anyway (langchain_openai and the OpenAI SDK: about 1 CPU-s) would cost every worker start.
    """
    from execugraph.batch.warmup import providers_of, warm_worker

    warm_worker(None if warm is None else providers_of(warm.configs))


def _superseded_check(fenced: Store, every_s: float = 2.0) -> Callable[[], TrialInterrupted | None]:
    """While a trial waits for its endpoint: stop waiting (writing nothing) once the driver has moved on."""
    from execugraph.providers.outages import TrialInterrupted

    last = [time.monotonic()]

    def interrupted() -> TrialInterrupted | None:
        now = time.monotonic()
        if now - last[0] < every_s:
            return None
        last[0] = now
        try:
            fenced.check_attempt()  # `fenced` is a Store.fenced(...) view
        except SupersededError as exc:
            return TrialInterrupted("abandoned", str(exc))
        return None

    return interrupted


def _ray_node_id() -> str | None:
    """The Ray node this process runs on, when it runs under Ray (None when called directly)."""
    import sys

    ray = sys.modules.get("ray")
    if ray is None or not ray.is_initialized():
        return None
    return ray.get_runtime_context().get_node_id()
