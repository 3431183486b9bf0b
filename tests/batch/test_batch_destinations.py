"""A batch connects only where this machine allows: loopback, the operator's servers, EXECUGRAPH_ALLOWED_ENDPOINTS.

The dangerous shape: a stranger's bundle whose stored configuration names their "Ray cluster" or LLM
server, imported and resumed here. The worker must refuse from the configuration as stored, before
connecting, and say why on the run.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter
from dataclasses import replace

import pytest

from execugraph.batch.control import enqueue_batch
from execugraph.batch.destinations import check_destinations, refused_destinations
from execugraph.batch.spec import BatchSpec
from execugraph.configuration.settings import PROJECT_ROOT, load_settings
from execugraph.store import Store
from tests.batch.test_runner import problems

pytestmark = pytest.mark.integration


def test_loopback_the_operators_servers_and_listed_hosts_are_allowed_nothing_else() -> None:
    settings = replace(load_settings(), ollama_host="http://gpu-a.lab:11434", allowed_endpoints=("10.1.0.0/16", "b.lab"))
    ok = BatchSpec(executor="ray", ray_address="127.0.0.1:6379",
                   endpoints=["http://localhost:11434", "http://gpu-a.lab:11434", "http://10.1.2.3:11434",
                              "http://b.lab:11434", "http://[::1]:11434"])
    assert refused_destinations(ok, settings) == []
    bad = BatchSpec(executor="ray", ray_address="ray://203.0.113.5:10001", endpoints=["http://evil.example:11434"])
    assert refused_destinations(bad, settings) == ["http://evil.example:11434", "ray://203.0.113.5:10001"]
    with pytest.raises(ValueError, match="does not allow.*EXECUGRAPH_ALLOWED_ENDPOINTS"):
        check_destinations(bad, settings)
    assert refused_destinations(bad, replace(settings, allowed_endpoints=("*",))) == []
    assert refused_destinations(BatchSpec(executor="ray", ray_address="auto"), settings) == []


def test_a_batch_naming_a_foreign_cluster_is_not_queued(sqlite_store) -> None:
    spec = BatchSpec(conditions=["single-oneshot"], executor="ray", ray_address="198.51.100.7:6379")
    with pytest.raises(ValueError, match="198.51.100.7:6379"):
        enqueue_batch(sqlite_store, spec, problems(2))
    assert sqlite_store.list_runs() == []


def test_a_stored_configuration_naming_a_foreign_cluster_is_refused_by_the_worker(tmp_path) -> None:
    db = tmp_path / "runs.db"
    with Store.open(str(db)) as store:
        run_id = enqueue_batch(store, BatchSpec(conditions=["single-oneshot"], executor="ray"), problems(2))
        config = store.get_run(run_id).config
        config["batch"]["ray_address"] = "198.51.100.7:6379"  # what a hostile bundle, imported, would hold
        store.update_run(run_id, config=config)
    env = os.environ | {"OLLAMA_HOST": "http://127.0.0.1:9"}
    done = subprocess.run([sys.executable, "-m", "execugraph", "--db", str(db), "worker", "--once"],
                          cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    with Store.open(str(db)) as store:
        run = store.get_run(run_id)
        assert run.status == "failed" and "198.51.100.7:6379" in run.error and "does not allow" in run.error
        assert "cannot connect" not in run.error  # refused before any attempt to connect
        assert Counter(t.status for t in store.trials_for_run(run_id)) == {"queued": 2}
