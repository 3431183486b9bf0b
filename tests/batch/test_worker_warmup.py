"""A batch worker imports what its first trials need before its first claim, on its own thread."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from execugraph.configuration.settings import PROJECT_ROOT

pytestmark = pytest.mark.integration

SCRIPT = """
import json, sys
from execugraph.batch.runner import Worker
from execugraph.store import Store
store = Store.open(sys.argv[1])
worker = Worker(store, preload=sys.argv[2] == "on")
worker.run_forever(exit_when_idle=True)
wanted = ("langchain_openai", "langchain_ollama", "execugraph.workflow.trial", "execugraph.stats.windows")
print(json.dumps({"imported": [m for m in wanted if m in sys.modules], "warm_s": worker.warm_s}))
"""


def worker_in_fresh_process(db: str, preload: str) -> dict:
    done = subprocess.run([sys.executable, "-c", SCRIPT, db, preload], cwd=PROJECT_ROOT, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_worker_warms_before_its_first_claim_and_only_when_asked(tmp_path) -> None:
    db = str(tmp_path / "runs.db")
    warmed = worker_in_fresh_process(db, "on")
    assert warmed["imported"] == ["langchain_openai", "langchain_ollama", "execugraph.workflow.trial",
                                  "execugraph.stats.windows"]
    assert warmed["warm_s"] > 0
    cold = worker_in_fresh_process(db, "off")
    assert "langchain_openai" not in cold["imported"] and cold["warm_s"] is None
