"""LLM endpoint faults during a batch: trials wait (the run says so) and pass once the endpoint is back.

Real parts throughout: the loopback Ollama stand-in over real HTTP failing the way a dying
server does (refused, 503, connection reset, slow answers), the real sandbox and SQLite store,
and for the main scenario a `worker` subprocess with `status` read from yet another process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from execugraph.batch.control import enqueue_batch, request_cancel, resume
from execugraph.batch.progress import progress
from execugraph.batch.runner import Worker
from execugraph.batch.spec import BatchSpec
from execugraph.configuration.settings import PROJECT_ROOT
from execugraph.domain.problem import Problem
from execugraph.store import Store
from execugraph.workflow.trial import TrialDeps
from standins.ollama_server import OllamaStandIn, scripted_responder
from standins.scripted import fenced

pytestmark = pytest.mark.integration

MODEL = "standin:latest"
GOOD = fenced("def double(x):\n    return 2 * x\n")


def problems(n: int) -> list[Problem]:
    tests = [{"kind": "call", "expr": f"double({i})", "expected": 2 * i} for i in range(3)]
    return [Problem(id=f"double_{i}", benchmark="toy", statement=f"Double x ({i}).", entry_point="double",
                    tests=tests) for i in range(n)]


def spec(**overrides: Any) -> BatchSpec:
    values: dict[str, Any] = {"benchmark": "toy", "conditions": ["single-oneshot"], "seeds": [0],
                              "default_model": f"ollama:{MODEL}", "overrides": {"cache": False}}
    return BatchSpec(**(values | overrides))


def wait_until(check: Callable[[], Any], what: str, timeout_s: float = 120.0) -> Any:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out after {timeout_s:.0f} s waiting for {what}")


def status_json(db_url: str, run_id: int) -> dict[str, Any]:
    """`python -m execugraph status --json RUN`, run as a user would, in its own process."""
    out = subprocess.run([sys.executable, "-m", "execugraph", "--db", db_url, "status", "--json", str(run_id)],
                         cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=120, check=True)
    (row,) = json.loads(out.stdout)
    return row


def status_line(db_url: str, run_id: int) -> str:
    out = subprocess.run([sys.executable, "-m", "execugraph", "--db", db_url, "status", str(run_id)],
                         cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=120, check=True)
    return out.stdout


def assert_each_trial_ran_once_and_passed(store: Store, run_id: int, expected: int) -> None:
    trials = store.trials_for_run(run_id)
    assert len(trials) == expected
    for trial in trials:
        assert trial.status == "done" and trial.passed, (trial.id, trial.status, trial.message)
        nodes = [s.node for s in store.steps_for_trial(trial.id)]
        assert nodes.count("grade") == 1 and nodes.count("generator") == 1, nodes
        assert len(store.llm_calls_for_trial(trial.id)) == trial.llm_calls == 1


@pytest.fixture(scope="module")
def pool():
    from sandbox import SandboxPool

    with SandboxPool(workers=1) as shared:
        yield shared


@pytest.mark.parametrize("mode", ["refuse", "503", "reset"])
def test_a_worker_process_waits_out_an_outage_and_every_trial_passes(tmp_path, mode):
    db_url = f"sqlite:///{tmp_path / 'outage.db'}"
    store = Store.open(db_url)
    expected = 8
    run_id = enqueue_batch(store, spec(concurrency=2, outage_budget_s=300), problems(expected))
    with OllamaStandIn(responder=scripted_responder([GOOD], cycle=True), models=[MODEL], latency_s=1.0) as server:
        env = os.environ | {"OLLAMA_HOST": server.url, "PYTHONUNBUFFERED": "1"}
        worker = subprocess.Popen(
            [sys.executable, "-m", "execugraph", "--db", db_url, "worker", "--once", "--poll-s", "0.2"],
            cwd=PROJECT_ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )
        try:
            wait_until(lambda: progress(store, run_id).done >= 2, "two finished trials")
            server.set_down(True, mode=mode)
            row = wait_until(lambda: (r := status_json(db_url, run_id))["waiting"] and r, "the waiting line")
            (line,) = row["waiting"]
            assert line.startswith(f"waiting: {server.url} unreachable since ") and line.endswith(", retrying")
            assert row["status"] == "running" and row["errors"] == 0
            assert f"       {line}" in status_line(db_url, run_id).splitlines()
            time.sleep(3)  # the outage goes on: nothing is turned into a result meanwhile
            assert Counter(t.status for t in store.trials_for_run(run_id))["error"] == 0
            server.set_down(False, mode=mode)
            _, err = worker.communicate(timeout=300)
            assert worker.returncode == 0, err.decode()
        finally:
            if worker.poll() is None:
                worker.kill()
    assert store.get_run(run_id).status == "done"
    assert_each_trial_ran_once_and_passed(store, run_id, expected)
    assert status_json(db_url, run_id)["waiting"] == []  # the answer cleared the wait
    assert "unreachable" in err.decode()  # the worker's log says what it waited for


def test_slow_answers_past_the_read_timeout_are_retried(sqlite_store, pool):
    run_id = enqueue_batch(sqlite_store, spec(llm_timeout_s=1.0, outage_budget_s=120), problems(2))
    with OllamaStandIn(responder=scripted_responder([GOOD], cycle=True), models=[MODEL]) as server:
        server.set_slow(3.0)  # a cold model load: every answer comes after the client gave up
        worker = Worker(sqlite_store, deps_factory=lambda: TrialDeps(pool=pool, ollama_host=server.url))
        thread = threading.Thread(target=worker.run_forever, kwargs={"poll_s": 0.1, "exit_when_idle": True})
        thread.start()
        wait_until(lambda: sqlite_store.endpoint_waits([run_id]), "the wait to be recorded")
        wait_until(lambda: sum(1 for r in server.requests if r.outcome == "ok") >= 3, "three timed-out calls")
        server.set_slow(0.0)
        thread.join(timeout=120)
        assert not thread.is_alive()
    assert sqlite_store.get_run(run_id).config["conditions"]["single-oneshot"]["llm_timeout_s"] == 1.0
    assert_each_trial_ran_once_and_passed(sqlite_store, run_id, 2)
    assert sqlite_store.endpoint_waits([run_id]) == {}


def test_when_the_budget_is_spent_trials_end_naming_endpoint_error_and_duration(sqlite_store, pool):
    run_id = enqueue_batch(sqlite_store, spec(outage_budget_s=2.0, concurrency=2), problems(3))
    with OllamaStandIn(models=[MODEL]) as server:
        server.set_down(True, mode="refuse")
        worker = Worker(sqlite_store, deps_factory=lambda: TrialDeps(pool=pool, ollama_host=server.url))
        started = time.monotonic()
        worker.run_forever(poll_s=0.1, exit_when_idle=True)
        elapsed = time.monotonic() - started
    assert elapsed < 60
    assert sqlite_store.get_run(run_id).config["conditions"]["single-oneshot"]["outage_budget_s"] == 2.0
    for trial in sqlite_store.trials_for_run(run_id):
        assert trial.status == "error" and trial.error_class == "llm_error"
        assert f"{server.url} unreachable for " in trial.message, trial.message
        assert "outage budget 2 s" in trial.message and "last error: ConnectionError" in trial.message


def test_an_unknown_model_ends_the_trial_at_once_with_the_fix(sqlite_store, pool):
    run_id = enqueue_batch(sqlite_store, spec(default_model="ollama:llama9:404b", outage_budget_s=600), problems(1))
    with OllamaStandIn(models=[MODEL]) as server:
        worker = Worker(sqlite_store, deps_factory=lambda: TrialDeps(pool=pool, ollama_host=server.url))
        started = time.monotonic()
        worker.run_forever(poll_s=0.1, exit_when_idle=True)
        assert time.monotonic() - started < 30  # no waiting: retrying cannot make the model appear
        assert [r.outcome for r in server.requests] == ["not_found"]
    (trial,) = sqlite_store.trials_for_run(run_id)
    assert trial.status == "error" and trial.error_class == "llm_error"
    assert "llama9:404b" in trial.message and "ollama pull llama9:404b" in trial.message and "404" in trial.message


def test_cancel_while_waiting_cancels_the_waiting_trials_and_resume_finishes_them(sqlite_store, pool):
    run_id = enqueue_batch(sqlite_store, spec(concurrency=2, outage_budget_s=300), problems(4))
    with OllamaStandIn(responder=scripted_responder([GOOD], cycle=True), models=[MODEL]) as server:
        server.set_down(True, mode="503")
        worker = Worker(sqlite_store, deps_factory=lambda: TrialDeps(pool=pool, ollama_host=server.url))
        thread = threading.Thread(target=worker.run_forever, kwargs={"poll_s": 0.1, "exit_when_idle": True})
        thread.start()
        wait_until(lambda: sqlite_store.endpoint_waits([run_id]), "the wait to be recorded")
        request_cancel(sqlite_store, run_id)
        thread.join(timeout=60)
        assert not thread.is_alive()
        assert sqlite_store.get_run(run_id).status == "cancelled"
        assert Counter(t.status for t in sqlite_store.trials_for_run(run_id)) == {"cancelled": 4}
        server.set_down(False)
        assert resume(sqlite_store, run_id) == 4
        worker.run_forever(poll_s=0.1, exit_when_idle=True)
    assert sqlite_store.get_run(run_id).status == "done"
    assert_each_trial_ran_once_and_passed(sqlite_store, run_id, 4)
