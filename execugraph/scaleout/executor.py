"""The Ray executor: `RayExecutor` runs a claimed batch run on a Ray cluster, and `run_on_ray` claims one and
runs it there (what `batch --executor ray --wait` does, through a batch Worker).

A batch `Worker` hands every run whose spec says `executor: ray` to the
`RayExecutor` it was given (the CLI gives its workers one, see
`execugraph.cli.batch.executors`); the run is driven by `driver.RayBatchDriver`
inside the same lease loop as a local run (`execugraph.batch.leased_run`).
Ray is imported only once a run is handed over, so a worker that serves local
batches never loads it.

Connecting: an already initialised Ray connection in this process is used as
is; otherwise `ray.init(address)` joins the cluster at `address` (the batch's
`ray_address` unless given), or, with none, RAY_ADDRESS, a cluster started on
this machine with `ray start`, or a new local one; a connection made here is
closed again at the end.
"""

from __future__ import annotations

import logging
import os
import socket
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from execugraph.batch.destinations import check_destinations
from execugraph.batch.leased_run import LeasedRun
from execugraph.batch.progress import BatchProgress
from execugraph.batch.runner import Worker
from execugraph.batch.spec import BatchSpec
from execugraph.configuration.settings import load_settings

if TYPE_CHECKING:
    from execugraph.store import Store

if TYPE_CHECKING:
    from execugraph.scaleout.driver import ScaleOptions

log = logging.getLogger("execugraph.scaleout")

__all__ = ["RayExecutor", "connect", "run_on_ray", "worker_db_url"]


def connect(address: str | None = None) -> bool:
    """Connect this process to Ray unless it already is; True when this call made the connection."""
    import ray

    if ray.is_initialized():
        return False
    if address:
        _check_reachable(address)
    # The dashboard is not needed to run batches; worker logs stay in the session's log
    # directory (/tmp/ray/session_latest/logs) instead of interleaving with the progress bar.
    ray.init(address=address, include_dashboard=False, log_to_driver=False)
    return True


def _check_reachable(address: str) -> None:
    """Fail in seconds when nothing listens at HOST:PORT (ray.init itself retries for minutes)."""
    if address in ("auto", "local"):
        return
    target = address.split("://", 1)[-1]
    host, sep, port = target.rpartition(":")
    if not sep or not port.isdigit():
        raise ValueError(f"bad Ray address {address!r}: use HOST:PORT (e.g. head-host:6379) or ray://HOST:10001")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=5).close()
    except OSError as exc:
        raise ConnectionError(f"nothing answers at {target} ({exc}); is `ray start --head` running there?") from exc


def worker_db_url(store: Store) -> str:
    """The URL workers open the store with: the store's own (password included), SQLite made absolute.

    SQLite lives in one file on one machine, so it is refused when the cluster
    spans several machines: use PostgreSQL (`--db postgresql://...`) there.
    """
    from execugraph.scaleout import driver

    url = store.engine.url
    if url.get_backend_name() == "sqlite":
        hosts = {n.get("NodeManagerAddress") for n in driver.cluster_nodes()}
        if len(hosts) > 1:
            raise ValueError(
                f"the run store is SQLite ({url.database}), which workers on {len(hosts)} machines cannot share; "
                "put the history on PostgreSQL: --db postgresql://USER:PASSWORD@HOST/DB (see docs/scale-out.md)"
            )
        database = url.database or ""
        if not database.startswith("file:"):
            url = url.set(database=str(Path(database).expanduser().resolve()))
    return url.render_as_string(hide_password=False)


@dataclass
class RayExecutor:
    """The `ray` executor of a batch Worker: drives a claimed run on Ray until done, cancelled, failed or stopped.

    `options` size and time the Ray side (the lease timing is the Worker's);
    `ray_address` overrides the batch's own. A cluster that cannot be reached
    or cannot share the store fails the run with the reason stored on it.
    """

    options: ScaleOptions | None = None
    ray_address: str | None = None

    def execute(self, run: LeasedRun, spec: BatchSpec) -> str:
        from execugraph.scaleout.driver import RayBatchDriver

        address = self.ray_address or spec.ray_address
        try:  # the stored configuration may come from anyone's bundle: it chooses no destination of its own
            check_destinations(spec.model_copy(update={"ray_address": address}), load_settings())
        except ValueError as exc:
            return run.give_up(str(exc))
        try:
            made = connect(address)
        except Exception as exc:  # unreachable cluster, bad address: say so on the run, not only in a traceback
            return run.give_up(f"cannot connect to the Ray cluster at {address or 'the default address'}: {exc}")
        try:
            try:
                db_url = worker_db_url(run.store)
            except ValueError as exc:
                return run.give_up(str(exc))
            return RayBatchDriver(run, db_url, options=self.options).run()
        finally:
            if made:
                import ray

                ray.shutdown()


def run_on_ray(
    store: Store,
    run_id: int,
    *,
    on_progress: Callable[[BatchProgress], None] | None = None,
    ray_address: str | None = None,
    options: ScaleOptions | None = None,
    worker_id: str | None = None,
) -> str:
    """Claim a queued (or abandoned) Ray batch run and drive it here; returns its final status.

    When another live worker holds the run, waits for it to finish instead (and
    takes it over if that worker's lease runs out), as `batch --wait` does.
    """
    from execugraph.scaleout.driver import ScaleOptions

    options = options or ScaleOptions()
    worker = Worker(
        store,
        worker_id=worker_id or f"ray-driver:{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}",
        executors={"ray": RayExecutor(options, ray_address)},
        stale_after_s=options.stale_after_s,
        heartbeat_s=options.heartbeat_s,
    )
    return worker.run_here(run_id, on_progress=on_progress)
