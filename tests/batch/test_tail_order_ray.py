"""The Ray driver claims by the same tail rule as the local executor: the last queued trials heaviest first."""

from __future__ import annotations

import os

import pytest

ray = pytest.importorskip("ray")

from execugraph.batch.control import enqueue_batch  # noqa: E402
from execugraph.batch.order import TAIL_WAVES  # noqa: E402
from execugraph.store import Store  # noqa: E402
from standins.ollama_server import OllamaStandIn  # noqa: E402
from standins.role_responder import role_responder  # noqa: E402
from standins.workload import REPLIES  # noqa: E402
from tests.batch.test_runner import MODEL, problems  # noqa: E402
from tests.batch.test_tail_order import expected_claims, spec  # noqa: E402
from tests.scaleout.test_scaleout_ray import FAST, DriverThread  # noqa: E402

pytestmark = pytest.mark.integration


def test_the_ray_driver_claims_the_tail_heaviest_first(tmp_path) -> None:
    if ray.is_initialized():
        ray.shutdown()
    ray.init(num_cpus=os.cpu_count() or 2, include_dashboard=False, log_to_driver=False)
    try:
        with Store.open(str(tmp_path / "ray.db")) as store, OllamaStandIn(
            responder=role_responder(REPLIES), models=[MODEL], latency_s=0.01
        ) as server:
            batch = spec(executor="ray", ollama_hosts=[server.url], ray_workers=1, endpoint_concurrency=2)
            run_id = enqueue_batch(store, batch, problems(5))
            with DriverThread(store, run_id, FAST) as driver:
                assert driver.join(timeout_s=600) == "done"
            trials = store.trials_for_run(run_id)
            assert [t.status for t in trials] == ["done"] * 20
            claimed = [t.id for t in sorted(trials, key=lambda t: (t.started_at, t.id))]
            assert claimed == expected_claims(store, run_id, TAIL_WAVES * 2) != sorted(claimed)
    finally:
        ray.shutdown()
