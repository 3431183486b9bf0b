"""A cancel whose worker is gone still ends (issue 40, item 1), on SQLite and PostgreSQL.

A worker is SIGKILLed with two trials mid-flight (held by a gated stand-in model), then
`cancel ID` without `--now`: no worker will ever finish those trials. Once the dead
worker's lease has run out, the next worker (or `cancel` itself) wipes and cancels them and
the run reaches `cancelled`; until then `status` says the worker stopped instead of
"finishing 2 trials in progress".
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest

from execugraph.batch.control import enqueue_batch
from execugraph.configuration.settings import PROJECT_ROOT
from execugraph.store import Store, utcnow
from standins.ollama_server import OllamaStandIn
from tests.batch.test_runner import MODEL, problems, spec, start_worker
from tests.batch.test_runner_faults import Gate, finish
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration

LEASE_S = 3.0


def cli(db_url: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "execugraph", "--db", db_url, *args], cwd=PROJECT_ROOT,
                          env=os.environ, capture_output=True, text=True, timeout=300)


def kill_mid_trial(store: Store, db_url: str, server: OllamaStandIn, gate: Gate, tmp_path: Path) -> tuple[int, set]:
    """Start a worker, SIGKILL it with two trials waiting on the model; returns (run id, stranded trial ids)."""
    run_id = enqueue_batch(store, spec(conditions=["single-oneshot"], concurrency=2), problems(6))
    first = start_worker(db_url, server.url, lease_s=LEASE_S, heartbeat_s=0.3, log=tmp_path / "first.log")
    try:
        wait_until(lambda: gate.held == 2, what="the first worker with two trials waiting on the model")
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait()
    gate.opened.set()
    stranded = {t.id for t in store.trials_for_run(run_id, status="running")}
    assert len(stranded) == 2 and store.get_run(run_id).status == "running"
    return run_id, stranded


def lease_over(store: Store, run_id: int) -> bool:
    end = store.get_run(run_id).lease_expires_at
    return end is not None and end < utcnow()


def assert_cancelled(store: Store, run_id: int, stranded: set) -> None:
    run = store.get_run(run_id)
    assert run.status == "cancelled" and run.worker_id is None and run.finished_at is not None
    trials = store.trials_for_run(run_id)
    assert not [t for t in trials if t.status in ("running", "queued")]
    assert {t.id for t in trials if t.status == "cancelled"} >= stranded
    assert run.progress_done == len([t for t in trials if t.status in ("done", "error")])
    for trial_id in stranded:  # their partial trace is wiped, as a cancel --now would
        assert store.get_trial(trial_id).started_at is None


def test_the_next_worker_finishes_a_cancel_its_killed_worker_left(db_url: str, tmp_path: Path) -> None:
    store = Store.open(db_url)
    gate = Gate(free=2)
    with OllamaStandIn(responder=gate, models=[MODEL]) as server:
        run_id, stranded = kill_mid_trial(store, db_url, server, gate, tmp_path)
        store.update_run(run_id, lease_expires_at=utcnow() + timedelta(hours=1))  # as if its lease were long
        cancelled = cli(db_url, "cancel", str(run_id))
        assert cancelled.returncode == 0, cancelled.stderr
        assert "finishing 2 trials in progress" in cancelled.stdout  # its worker might still be alive
        store.update_run(run_id, lease_expires_at=utcnow())  # the dead worker's lease runs out
        shown = cli(db_url, "status", str(run_id))
        assert shown.returncode == 0, shown.stderr
        assert "cancelling: its worker stopped with 2 trials in progress" in shown.stdout
        assert "finishing 2 trials" not in shown.stdout
        log = tmp_path / "second.log"
        second = start_worker(db_url, server.url, lease_s=LEASE_S, heartbeat_s=0.3, log=log)
        try:
            text = finish(second, log, timeout_s=120)
        finally:
            second.kill()
    assert "Traceback" not in text
    assert_cancelled(store, run_id, stranded)
    rows = json.loads(cli(db_url, "status", "--json", str(run_id)).stdout)
    assert rows[0]["status"] == "cancelled" and rows[0]["running"] == 0 and not rows[0]["cancelling"]


def test_worker_once_waits_for_the_dead_lease_of_a_cancelled_run(db_url: str, tmp_path: Path) -> None:
    store = Store.open(db_url)
    gate = Gate(free=2)
    with OllamaStandIn(responder=gate, models=[MODEL]) as server:
        run_id, stranded = kill_mid_trial(store, db_url, server, gate, tmp_path)
        store.update_run(run_id, lease_expires_at=utcnow() + timedelta(hours=1))  # far off: cancel cannot end it
        assert cli(db_url, "cancel", str(run_id)).returncode == 0
        assert store.get_run(run_id).status == "running"
        log = tmp_path / "second.log"
        second = start_worker(db_url, server.url, lease_s=LEASE_S, heartbeat_s=0.3, log=log)
        try:
            wait_until(lambda: "waiting to take it over" in log.read_text(), what="the --once worker to wait")
            assert second.poll() is None and store.get_run(run_id).status == "running"
            store.update_run(run_id, lease_expires_at=utcnow())  # the dead lease runs out now
            text = finish(second, log, timeout_s=120)
        finally:
            second.kill()
    assert "Traceback" not in text
    assert_cancelled(store, run_id, stranded)


def test_cancel_after_the_dead_lease_ran_out_ends_the_run_at_once(db_url: str, tmp_path: Path) -> None:
    store = Store.open(db_url)
    gate = Gate(free=2)
    with OllamaStandIn(responder=gate, models=[MODEL]) as server:
        run_id, stranded = kill_mid_trial(store, db_url, server, gate, tmp_path)
        wait_until(lambda: lease_over(store, run_id), what="the dead worker's lease to run out")
        cancelled = cli(db_url, "cancel", str(run_id))
    assert cancelled.returncode == 0, cancelled.stderr
    assert f"run {run_id} cancelled: its worker had stopped (2 trials" in cancelled.stdout
    assert_cancelled(store, run_id, stranded)
