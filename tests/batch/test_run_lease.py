"""The run lease in one process: trusted only within its period, paused while in doubt, lost to a takeover."""

from __future__ import annotations

import threading
import time

import pytest

from execugraph.batch.control import enqueue_batch
from execugraph.batch.lease import HELD, LOST, SUSPENDED, RunLease
from execugraph.store import Store, SupersededError, leases, utcnow
from standins.db_lock import DatabaseLock
from tests.batch.test_runner import problems, spec
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration


def claimed(store: Store, worker: str, lease_s: float) -> tuple[int, float]:
    run_id = enqueue_batch(store, spec(conditions=["single-oneshot"], seeds=[0]), problems(2))
    at = time.monotonic()
    assert leases.claim_run(store, worker, lease_s, only=run_id) == run_id
    return run_id, at


def test_a_lease_in_doubt_holds_writes_until_it_is_renewed(db_url: str) -> None:
    store = Store.open(db_url)
    run_id, at = claimed(store, "w1", 1.5)
    lease = RunLease(store, run_id, "w1", lease_s=1.5, heartbeat_s=0.2, claimed_at=at).start()
    try:
        waited: list[float] = []

        def write() -> None:
            began = time.monotonic()
            lease.guard()
            waited.append(time.monotonic() - began)

        with DatabaseLock(db_url, 4.0) as lock:  # no renewal can go through for 4 s
            wait_until(lambda: lease.state == SUSPENDED, timeout_s=30, what="the lease to fall into doubt")
            writer = threading.Thread(target=write)
            writer.start()
            lock.wait_released()
        writer.join(timeout=60)
        assert waited and waited[0] > 0.2  # the write waited for the lease ...
        assert lease.state == HELD  # ... which came back: nobody else could have taken the run
        assert store.get_run(run_id).worker_id == "w1"
    finally:
        lease.close()


def test_a_lease_taken_over_is_lost_and_its_writes_are_refused(db_url: str) -> None:
    store = Store.open(db_url)
    run_id, at = claimed(store, "frozen", 1.0)
    lease = RunLease(store, run_id, "frozen", lease_s=1.0, heartbeat_s=0.2, claimed_at=at)  # not beating: frozen
    wait_until(lambda: store.get_run(run_id).lease_expires_at < utcnow(), timeout_s=30, what="the lease to expire")
    assert lease.state == SUSPENDED
    assert leases.claim_run(store, "other", 30.0) == run_id  # expired: taken over
    lease.start()
    try:
        wait_until(lambda: lease.state == LOST, timeout_s=30, what="the lease to be known lost")
        with pytest.raises(SupersededError, match="took the run over"):
            lease.guard()
        with pytest.raises(leases.LeaseLostError):
            leases.claim_trial(store, run_id, "frozen")
        leases.release_run(store, run_id, "frozen", "done")  # too late: a no-op
        assert store.get_run(run_id).worker_id == "other" and store.get_run(run_id).status == "running"
    finally:
        lease.close()


def test_a_live_lease_cannot_be_claimed_and_is_listed_with_its_end(sqlite_store: Store) -> None:
    run_id, _ = claimed(sqlite_store, "alive", 60.0)
    assert leases.claim_run(sqlite_store, "other", 1.0) is None  # the holder's 60 s count, not ours
    (held,) = leases.leased_runs(sqlite_store)
    assert (held.run_id, held.worker_id) == (run_id, "alive")
    assert 50 < (held.expires_at - utcnow()).total_seconds() <= 60
    assert leases.heartbeat(sqlite_store, run_id, "alive", lease_s=90.0)
    assert leases.leased_runs(sqlite_store)[0].expires_at > held.expires_at
    assert not leases.heartbeat(sqlite_store, run_id, "other", lease_s=90.0)
