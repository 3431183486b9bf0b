"""A full disk is one sentence that says so, loses nothing, and leaves the batch to be taken over.

The database lives on a real tmpfs of a few MiB mounted for the test (root only; skipped otherwise);
the disk is filled with a plain file while `batch --wait` runs, as another job filling a shared disk
would.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from execugraph.configuration.settings import PROJECT_ROOT
from standins.ollama_server import OllamaStandIn, scripted_responder
from tests.batch.test_runner import GOOD, MODEL
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration


@pytest.fixture
def small_disk(tmp_path: Path):
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(disk)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here (needs root): {mounted.stderr.decode().strip()}")
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


def fill(disk: Path) -> Path:
    """Write a file until the disk refuses another byte (none, if the disk is full already)."""
    filler = disk / "filler"
    try:
        with open(filler, "wb") as out:  # a plain file of its own, not the database
            while True:
                out.write(b"\0" * 65536)
                out.flush()
    except OSError:  # full: the loop's end, or a batch under load filled the disk before this began
        pass
    return filler


def ballast(disk: Path, size: int = 1024**2) -> Path:
    """Space set aside before a test fills the disk, so deleting it gives space back whoever filled it."""
    reserve = disk / "ballast"
    reserve.write_bytes(b"\0" * size)
    return reserve


def cli(db: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "execugraph", "--db", str(db), *args], cwd=PROJECT_ROOT,
                          env=os.environ | (env or {}), capture_output=True, text=True, timeout=600)


def end_dead_lease(db: Path) -> int:
    """End the lease the stopped batch left (30 s, `batch --wait`'s) now: the next worker takes over at once.

    Waiting a lease out is proven in tests/batch/test_runner_faults.py; here it would only cost 30 s.
    """
    from execugraph.store import Store, utcnow

    with Store.open(str(db)) as store:
        held = [run.id for run in store.list_runs(kind="batch", limit=5) if run.status == "running" and run.worker_id]
        for run_id in held:
            store.update_run(run_id, lease_expires_at=utcnow())
    return len(held)


def done_trials(db: Path) -> int:
    shown = cli(db, "status", "--json")
    assert shown.returncode == 0, shown.stderr
    return sum(row["done"] for row in json.loads(shown.stdout))


def test_a_disk_filling_under_a_batch_ends_it_in_one_sentence_and_loses_nothing(small_disk: Path) -> None:
    db = small_disk / "runs.db"
    reserve = ballast(small_disk)
    with OllamaStandIn(responder=scripted_responder([GOOD], cycle=True), models=[MODEL], latency_s=0.05) as server:
        env = {"OLLAMA_HOST": server.url}
        batch = subprocess.Popen(
            [sys.executable, "-m", "execugraph", "--db", str(db), "batch", "--conditions", "single-oneshot",
             "--seeds", "0-2", "--model", f"ollama:{MODEL}", "--wait"],
            cwd=PROJECT_ROOT, env=os.environ | env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        try:
            wait_until(lambda: batch.poll() is not None or (db.exists() and done_trials(db) >= 5), 600,
                       "5 finished trials")
            assert batch.poll() is None, f"the batch ended before the disk was filled: {batch.communicate()[1][-3000:]}"
            filler = fill(small_disk)
            _out, err = batch.communicate(timeout=600)
        finally:
            if batch.poll() is None:
                batch.kill()
        assert batch.returncode == 2, err[-3000:]
        assert "Traceback" not in err, err[-3000:]
        last = err.strip().splitlines()[-1]
        assert last.startswith("batch: the disk holding the database") and "is full" in last, last
        assert "nothing already stored was lost" in last and "takes it over" in last

        shown = cli(db, "status")  # still readable on the full disk (read-only, with a note, when it must be)
        assert shown.returncode == 0 and "Traceback" not in shown.stderr, shown.stderr
        kept = done_trials(db)
        assert kept >= 5
        refused = cli(db, "batch", "--problems", "fib", "--conditions", "single-oneshot", env=env)
        assert refused.returncode == 2 and "is full" in refused.stderr and "Traceback" not in refused.stderr

        filler.unlink(missing_ok=True)  # space again: a worker takes the run over and carries on from what was kept
        reserve.unlink()
        assert end_dead_lease(db) == 1  # left running under the stopped batch's lease
        cli(db, "worker", "--once", env=env)
        assert done_trials(db) > kept


def test_a_closed_database_on_a_full_disk_opens_read_only_and_says_why(small_disk: Path) -> None:
    from execugraph.store import Store

    db = small_disk / "runs.db"
    with Store.open(str(db)) as store:
        store.create_run("batch", "kept", {}, status="done")
    fill(small_disk)  # no room left for the write-ahead log a new connection needs
    shown = cli(db, "status")
    assert shown.returncode == 0 and "kept" in shown.stdout, shown.stderr
    assert "is full" in shown.stderr and "read-only" in shown.stderr
    refused = cli(db, "batch", "--problems", "fib", "--conditions", "single-oneshot")
    assert refused.returncode == 2 and "is full" in refused.stderr and "Traceback" not in refused.stderr


def test_a_cancel_after_a_disk_full_stop_is_finished_by_the_next_worker(small_disk: Path) -> None:
    """Issue 40: the stopped batch is left `running` under its lease; `cancel` then, with nobody to finish
    the trials it left in flight, used to leave it `running` for ever. The next worker ends it."""
    from execugraph.store import Store

    db = small_disk / "runs.db"
    reserve = ballast(small_disk)
    with OllamaStandIn(responder=scripted_responder([GOOD], cycle=True), models=[MODEL], latency_s=0.05) as server:
        env = {"OLLAMA_HOST": server.url}
        batch = subprocess.Popen(
            [sys.executable, "-m", "execugraph", "--db", str(db), "batch", "--conditions", "single-oneshot",
             "--seeds", "0-9", "--model", f"ollama:{MODEL}", "--concurrency", "2", "--wait"],
            cwd=PROJECT_ROOT, env=os.environ | env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        try:
            wait_until(lambda: batch.poll() is not None or (db.exists() and done_trials(db) >= 3), 600,
                       "3 finished trials")
            assert batch.poll() is None, f"the batch ended before the disk was filled: {batch.communicate()[1][-3000:]}"
            filler = fill(small_disk)
            out, err = batch.communicate(timeout=600)
        finally:
            if batch.poll() is None:
                batch.kill()
        assert batch.returncode == 2 and "is full" in err, err[-3000:]
        run_id = json.loads(out.splitlines()[0])["run_id"]
        filler.unlink(missing_ok=True)
        reserve.unlink()
        cancelled = cli(db, "cancel", str(run_id))
        assert cancelled.returncode == 0, cancelled.stderr
        end_dead_lease(db)
        once = cli(db, "worker", "--once", "--poll-s", "0.2", env=env)
        assert once.returncode == 0 and "Traceback" not in once.stderr, once.stderr[-3000:]
    with Store.open(str(db)) as store:
        run = store.get_run(run_id)
        assert run.status == "cancelled" and run.worker_id is None
        assert not store.trials_for_run(run_id, status="running")
        assert not store.trials_for_run(run_id, status="queued")
