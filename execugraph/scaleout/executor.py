"""Run a queued batch on a Ray cluster: `run_on_ray` (CLI `batch --executor ray --wait`) and
`drive_claimed_run` (for a background worker that has already claimed a run whose executor is ray).

Connecting: an already initialised Ray connection in this process is used as
is; otherwise `ray.init(address)` joins the cluster at `address` (the batch's
`ray_address` unless given), or, with none, RAY_ADDRESS, a cluster started on
this machine with `ray start`, or a new local one; a connection made here is
closed again at the end. The machinery lives in `execugraph.scaleout`.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from execugraph.batch.runner import Progress, batch_spec_of, claim_or_wait, progress, wait_for
from execugraph.scaleout.driver import RayBatchDriver, ScaleOptions, cluster_nodes
from execugraph.store import leases

log = logging.getLogger("execugraph.scaleout")

__all__ = ["RayBatchDriver", "ScaleOptions", "connect", "drive_claimed_run", "run_on_ray", "worker_db_url"]


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


def worker_db_url(store: Any) -> str:
    """The URL workers open the store with: the store's own (password included), SQLite made absolute.

    SQLite lives in one file on one machine, so it is refused when the cluster
    spans several machines: use PostgreSQL (`--db postgresql://...`) there.
    """
    url = store.engine.url
    if url.get_backend_name() == "sqlite":
        hosts = {n.get("NodeManagerAddress") for n in cluster_nodes()}
        if len(hosts) > 1:
            raise ValueError(
                f"the run store is SQLite ({url.database}), which workers on {len(hosts)} machines cannot share; "
                "put the history on PostgreSQL: --db postgresql://USER:PASSWORD@HOST/DB (see docs/scale-out.md)"
            )
        database = url.database or ""
        if not database.startswith("file:"):
            url = url.set(database=str(Path(database).expanduser().resolve()))
    return url.render_as_string(hide_password=False)


def drive_claimed_run(
    store: Any,
    run_id: int,
    worker_id: str,
    *,
    options: ScaleOptions | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    stop: threading.Event | None = None,
    ray_address: str | None = None,
    claimed_at: float | None = None,
) -> str:
    """Drive a run already claimed by `worker_id` on Ray until done, cancelled, failed or stopped.

    `claimed_at` is the monotonic time just before the claim was sent (see `run_lease`).

    Same contract as `runner.Worker.process_run`: the lease is heart-beaten and
    released here, and the status the run was left in is returned ("queued"
    when stopped or the lease was lost; "failed", with the reason stored on the
    run, when the cluster cannot be reached or cannot share the store).
    """
    address = ray_address or batch_spec_of(store.get_run(run_id)).ray_address
    try:
        made = connect(address)
    except Exception as exc:  # unreachable cluster, bad address: say so on the run, not only in a traceback
        return _give_up(
            store, run_id, worker_id, f"cannot connect to the Ray cluster at {address or 'the default address'}: {exc}"
        )
    try:
        try:
            db_url = worker_db_url(store)
        except ValueError as exc:
            return _give_up(store, run_id, worker_id, str(exc))
        driver = RayBatchDriver(
            store, run_id, worker_id, db_url, options=options, on_progress=on_progress, stop=stop, claimed_at=claimed_at
        )
        return driver.run()
    finally:
        if made:
            import ray

            ray.shutdown()


def _give_up(store: Any, run_id: int, worker_id: str, reason: str) -> str:
    """Release a claimed run as failed with `reason` (shown by `status` and the dashboard, and logged)."""
    log.error("run %s: %s", run_id, reason)
    leases.release_run(store, run_id, worker_id, "failed", reason)
    return "failed"


def run_on_ray(
    store: Any,
    run_id: int,
    *,
    on_progress: Callable[[Progress], None] | None = None,
    ray_address: str | None = None,
    options: ScaleOptions | None = None,
    worker_id: str | None = None,
) -> str:
    """Claim a queued (or abandoned) batch run and drive it on Ray; returns its final status.

    When another live worker holds the run, waits for it to finish instead (and
    takes it over if that worker's lease runs out), as the local `batch --wait` does.
    """
    if store.get_run(run_id) is None:
        raise LookupError(f"run {run_id} does not exist")
    options = options or ScaleOptions()
    worker_id = worker_id or f"ray-driver:{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"
    claimed_at = claim_or_wait(store, run_id, worker_id, options.stale_after_s, on_progress=on_progress)
    if claimed_at is None:  # another driver or worker finished it
        return wait_for(store, run_id, on_progress=on_progress)
    status = drive_claimed_run(
        store, run_id, worker_id, options=options, on_progress=on_progress, ray_address=ray_address,
        claimed_at=claimed_at,
    )
    if on_progress is not None:
        on_progress(progress(store, run_id))
    return status
