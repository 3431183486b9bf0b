"""The CLI as a user drives it: `run`, `batch --wait`, `status`, `cancel`, `resume`, bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from execugraph.configuration.settings import PROJECT_ROOT
from execugraph.store import Store
from standins.ollama_server import OllamaStandIn, scripted_responder

pytestmark = pytest.mark.integration

FIB = "```python\ndef fib(n):\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\n```"


def cli(tmp_path, *args: str, host: str = "http://127.0.0.1:9") -> subprocess.CompletedProcess:
    env = os.environ | {"OLLAMA_HOST": host, "EXECUGRAPH_DB": str(tmp_path / "cli.db")}
    return subprocess.run([sys.executable, "-m", "execugraph", *args], cwd=PROJECT_ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


def test_run_one_benchmark_problem_prints_steps_and_json(tmp_path):
    with OllamaStandIn(responder=scripted_responder([FIB], cycle=True), models=["m"]) as server:
        result = cli(tmp_path, "run", "--problem", "internal30/fib", "--condition", "single-oneshot",
                     "--model", "ollama:m", host=server.url)
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["passed"] is True and summary["verdict"] == "passed" and summary["test_source"] == "problem"
    assert "generator" in result.stderr and "evaluator" in result.stderr
    store = Store.open(str(tmp_path / "cli.db"))
    assert store.get_trial(summary["trial_id"]).problem_id == "fib"


def test_batch_wait_runs_the_exact_grid_and_status_reports_it(tmp_path):
    with OllamaStandIn(responder=scripted_responder([FIB], cycle=True), models=["m"]) as server:
        result = cli(tmp_path, "batch", "--benchmark", "internal30", "--problems", "fib,climb_stairs",
                     "--conditions", "single-oneshot,single-retry@1", "--seeds", "0-1", "--model", "ollama:m",
                     "--concurrency", "2", "--wait", host=server.url)
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert lines[0]["trials"] == 2 * 2 * 2 and lines[-1]["status"] == "done"
    assert "8/8" in result.stderr  # the progress bar reached the end
    status = cli(tmp_path, "status", str(lines[0]["run_id"]), "--json")
    row = json.loads(status.stdout)[0]
    assert row["status"] == "done" and row["done"] == row["total"] == 8
    assert 0 < row["passed"] < 8  # fib passes, climb_stairs does not with this script


def test_cancel_and_resume_a_queued_batch(tmp_path):
    queued = cli(tmp_path, "batch", "--problems", "fib", "--conditions", "single-oneshot", "--model",
                 "ollama:m", "--title", "later")
    # no --wait: it is queued and a background worker is started; cancel it before it can finish
    run_id = json.loads(queued.stdout)["run_id"]
    cancelled = cli(tmp_path, "cancel", str(run_id))
    assert cancelled.returncode == 0 and f"run {run_id}" in cancelled.stdout
    assert cli(tmp_path, "cancel", "999").returncode == 2
    resumed = cli(tmp_path, "resume", str(run_id))
    assert resumed.returncode == 0 and "queued again" in resumed.stdout
    store = Store.open(str(tmp_path / "cli.db"))
    assert store.get_run(run_id).cancel_requested is False
    from execugraph.batch.worker_process import stop_worker, worker_alive

    url = store.engine.url.render_as_string(hide_password=False)
    assert worker_alive(url)  # `batch` and `resume` started a background worker for this database
    assert stop_worker(url) and not worker_alive(url)


def test_bad_input_is_refused_with_a_clear_message(tmp_path):
    bad_condition = cli(tmp_path, "batch", "--conditions", "multi-magic")
    assert bad_condition.returncode == 2 and "unknown condition 'multi-magic'" in bad_condition.stderr
    bad_seeds = cli(tmp_path, "batch", "--seeds", "5-1")
    assert bad_seeds.returncode == 2 and "bad seed range" in bad_seeds.stderr
    bad_problem = cli(tmp_path, "batch", "--problems", "nope")
    assert bad_problem.returncode == 2 and "nope" in bad_problem.stderr
    bad_run = cli(tmp_path, "run", "--problem", "internal30/nope")
    assert bad_run.returncode == 2 and "no problem 'nope'" in bad_run.stderr
    assert not (tmp_path / "cli.db").exists() or Store.open(str(tmp_path / "cli.db")).list_runs() == []
