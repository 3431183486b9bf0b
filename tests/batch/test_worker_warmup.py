"""A batch worker imports what trials need before they start, on its own thread: a worker that waits for batches
when it starts (every provider), a `--once` worker for the batch it claimed (that batch's providers; none when it
has nothing to run)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from execugraph.configuration.settings import PROJECT_ROOT

pytestmark = pytest.mark.integration

SCRIPT = """
import json, sys
from execugraph.batch.control import enqueue_batch
from execugraph.batch.runner import Worker
from execugraph.batch.spec import BatchSpec
from execugraph.benchmarks import load_benchmark
from execugraph.store import Store
store = Store.open(sys.argv[1])
if sys.argv[3] != "none":  # one trial on a model whose endpoint is down: it ends at once, after the warm-up
    spec = BatchSpec(conditions=["single-oneshot"], default_model=sys.argv[3], outage_budget_s=0)
    enqueue_batch(store, spec, load_benchmark("internal30")[:1])
worker = Worker(store, preload=sys.argv[2] != "off")
if sys.argv[2] == "waiting":  # a worker that waits for work, with none coming
    worker.run_forever(poll_s=0.05, idle_exit_s=0.1)
else:
    worker.run_forever(exit_when_idle=True)
wanted = ("langchain_openai", "langchain_ollama", "llama_cpp", "execugraph.workflow.graph")
print(json.dumps({"imported": [m for m in wanted if m in sys.modules], "warm_s": worker.warm_s}))
"""


def worker_in_fresh_process(db: str, preload: str, model: str) -> dict:
    env = dict(os.environ, OLLAMA_HOST="http://127.0.0.1:9", EXECUGRAPH_OPENAI_BASE_URL="http://127.0.0.1:9/v1")
    done = subprocess.run([sys.executable, "-c", SCRIPT, db, preload, model], cwd=PROJECT_ROOT, capture_output=True,
                          text=True, timeout=600, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_once_worker_warms_for_the_batch_it_claimed_and_only_when_asked(tmp_path) -> None:
    idle = worker_in_fresh_process(str(tmp_path / "idle.db"), "on", "none")
    assert idle == {"imported": [], "warm_s": None}  # nothing to run: no graph, no provider client
    ollama = worker_in_fresh_process(str(tmp_path / "ollama.db"), "on", "ollama:m")
    assert ollama["imported"] == ["langchain_ollama", "execugraph.workflow.graph"] and ollama["warm_s"] > 0
    openai = worker_in_fresh_process(str(tmp_path / "openai.db"), "on", "openai:m")
    assert openai["imported"] == ["langchain_openai", "execugraph.workflow.graph"] and openai["warm_s"] > 0
    cold = worker_in_fresh_process(str(tmp_path / "cold.db"), "off", "none")
    assert cold == {"imported": [], "warm_s": None}


def test_a_worker_that_waits_for_batches_warms_when_it_starts(tmp_path) -> None:
    waiting = worker_in_fresh_process(str(tmp_path / "waiting.db"), "waiting", "none")
    assert waiting["imported"] == ["langchain_openai", "langchain_ollama", "llama_cpp", "execugraph.workflow.graph"]
    assert waiting["warm_s"] > 0


def test_a_failed_warm_up_leaves_the_batch_to_its_executor(tmp_path, monkeypatch, caplog) -> None:
    """A warm-up that raises (a broken install, say) is logged; the claimed batch still runs and ends here."""
    from execugraph.batch import warmup
    from execugraph.batch.control import enqueue_batch
    from execugraph.batch.runner import Worker
    from execugraph.batch.spec import BatchSpec
    from execugraph.benchmarks import load_benchmark
    from execugraph.store import Store

    def broken(providers=None):  # noqa: ANN001, ANN202
        raise ImportError("no module named langchain_ollama (test)")

    monkeypatch.setattr(warmup, "warm_worker", broken)
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")
    with Store.open(str(tmp_path / "broken.db")) as store:
        run_id = enqueue_batch(store, BatchSpec(conditions=["single-oneshot"], default_model="ollama:m",
                                                outage_budget_s=0), load_benchmark("internal30")[:1])
        worker = Worker(store)
        assert worker.run_forever(exit_when_idle=True) == 0
        assert store.get_run(run_id).status not in ("queued", "running")
    assert worker.warm_s is None
    assert "warm-up skipped: no module named langchain_ollama (test)" in caplog.text
