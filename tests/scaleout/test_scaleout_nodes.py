"""A whole Ray node lost mid-batch: its in-flight trials are retried on the other node, none lost or doubled.

The cluster is three raylets on this machine (ray.cluster_utils.Cluster): a head
that runs nothing (0 CPUs) and two worker nodes, so "one worker per node" puts
an actor on each. Killing a node's raylet and every process it started is what
a machine dropping out looks like to Ray.
"""

from __future__ import annotations

import time

import pytest
import ray
from ray._common.utils import reset_ray_address
from ray.cluster_utils import Cluster

from execugraph.batch.control import enqueue_batch
from execugraph.batch.progress import progress
from execugraph.store import Store
from tests.batch.test_runner import assert_complete_and_unique, problems
from tests.scaleout.test_scaleout_ray import DriverThread, ray_spec, standin, wait_until

pytestmark = pytest.mark.integration


def test_a_node_lost_mid_batch_has_its_trials_retried_on_the_other_node(tmp_path):
    if ray.is_initialized():
        ray.shutdown()
    # no log monitor (log_to_driver=False reads nothing it forwards) and no autoscaler monitor (a fixed cluster)
    head = {"num_cpus": 0, "include_dashboard": False, "include_log_monitor": False, "no_monitor": True}
    cluster = Cluster(initialize_head=True, head_node_args=head)
    # Cluster records its address in /tmp/ray/ray_current_cluster, where every ray.init() without an address
    # on this machine looks first: a test file running beside this one (pytest-xdist) would join this cluster
    reset_ray_address()
    try:
        nodes = [cluster.add_node(num_cpus=1) for _ in range(2)]
        ray.init(address=cluster.address, log_to_driver=False)
        cluster.wait_for_nodes()
        store = Store.open(f"sqlite:///{tmp_path / 'nodes.db'}")  # one machine, so SQLite is allowed
        expected = 8 * 2 * 2
        with standin(0.3) as a, standin(0.3) as b:
            run_id = enqueue_batch(store, ray_spec([a.url, b.url], concurrency=4, ray_workers=None), problems(8))
            with DriverThread(store, run_id) as runner:
                wait_until(runner.driver.workers_ready.is_set, 120, "the Ray workers")
                workers = runner.driver.pool.workers
                assert len(workers) == 2  # one per node that has CPUs: the head has none
                assert {w.info.node for w in workers} == {n.node_id for n in nodes}  # spread over both
                wait_until(lambda: progress(store, run_id).done >= 4, what="4 finished trials")
                victim = None

                def busy_worker() -> bool:
                    nonlocal victim
                    victim = next((w for w in workers if w.in_flight > 0), None)
                    return victim is not None

                wait_until(busy_worker, what="a worker with a trial in flight")
                lost_node = next(n for n in nodes if n.node_id == victim.info.node)
                lost_pid = victim.info.pid
                cluster.remove_node(lost_node, allow_graceful=False)
                lost_at = time.monotonic()
                assert runner.join(180) == "done"
                assert time.monotonic() - lost_at < 120
        retried = [t for t in store.trials_for_run(run_id) if t.message and f"pid {lost_pid} " in t.message]
        assert retried, "no trial recorded that it was moved off the lost node"
        assert all("was lost with Ray worker" in t.message for t in retried)
        assert_complete_and_unique(store, run_id, expected)
        assert store.get_run(run_id).status == "done"
        store.close()
    finally:
        ray.shutdown()
        cluster.shutdown()
