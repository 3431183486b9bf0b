"""The one lease loop (`execugraph.batch.leased_run`) as the local executor and the Worker use it.

The Ray driver runs inside the same loop: tests/scaleout/test_scaleout_ray.py covers it there.
Covered here: a caller following a local run sees its progress while it runs, a
worker that lacks a run's executor fails the run saying so, and Ctrl-C on a
local `batch --wait` releases the run as queued at once, so a worker finishes it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from collections import Counter

import pytest

from execugraph.batch.control import enqueue_batch
from execugraph.batch.leased_run import LeasedRun
from execugraph.batch.progress import BatchProgress, progress
from execugraph.batch.runner import Worker
from execugraph.configuration.settings import PROJECT_ROOT
from execugraph.store import Store, leases
from execugraph.workflow.trial import TrialDeps
from standins.ollama_server import OllamaStandIn, scripted_responder
from tests.batch.test_runner import GOOD, MODEL, assert_complete_and_unique, problems, spec
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration


def standin(latency_s: float) -> OllamaStandIn:
    return OllamaStandIn(responder=scripted_responder([GOOD], cycle=True), models=[MODEL], latency_s=latency_s)


def test_a_local_run_reports_its_progress_while_it_runs(sqlite_store):
    from sandbox import SandboxPool

    run_id = enqueue_batch(sqlite_store, spec(conditions=["single-oneshot"], seeds=[0]), problems(6))
    seen: list[BatchProgress] = []
    with SandboxPool(workers=1) as pool, standin(0.5) as server:
        worker = Worker(sqlite_store, deps_factory=lambda: TrialDeps(pool=pool, ollama_host=server.url))
        assert worker.run_here(run_id, on_progress=seen.append) == "done"
    assert any(0 < p.done < p.total for p in seen), [(p.done, p.total) for p in seen]  # reported mid-run
    assert seen[-1].done == seen[-1].total == 6 and seen[-1].status == "done"
    assert [p.done for p in seen] == sorted(p.done for p in seen)  # never backwards
    assert_complete_and_unique(sqlite_store, run_id, 6)


def test_a_worker_without_the_runs_executor_fails_it_and_keeps_its_trials(sqlite_store):
    ray_spec = spec(conditions=["single-oneshot"], seeds=[0], executor="ray", ollama_hosts=["http://127.0.0.1:9"])
    run_id = enqueue_batch(sqlite_store, ray_spec, problems(2))
    worker = Worker(sqlite_store)  # only `local`: the CLI is what adds the Ray executor
    assert worker.run_forever(poll_s=0.05, exit_when_idle=True) == 0
    run = sqlite_store.get_run(run_id)
    assert run.status == "failed" and run.worker_id is None
    assert "executor 'ray' is not available in this worker (it has local)" in run.error
    assert Counter(t.status for t in sqlite_store.trials_for_run(run_id)) == {"queued": 2}


def test_a_cancel_seen_once_stays_seen_and_stops_waiting_trials(sqlite_store):
    from execugraph.batch.local import interruption

    run_id = enqueue_batch(sqlite_store, spec(conditions=["single-oneshot"], seeds=[0]), problems(1))
    assert leases.claim_run(sqlite_store, "w", 30.0, only=run_id) == run_id
    run = LeasedRun(sqlite_store, run_id, "w", cancel_every_s=0.0)
    assert not run.check_cancel() and interruption(run) is None
    sqlite_store.update_run(run_id, cancel_requested=True)
    assert run.check_cancel() and run.halted
    assert interruption(run).status == "cancelled"
    sqlite_store.update_run(run_id, cancel_requested=False)  # a resume clears it; this hold keeps what it saw
    assert run.check_cancel()


def gated_responder(answered: int, gate: threading.Event, calls: list[int]):
    """Answer `answered` chat calls at once, then hold every later one until `gate` is set."""
    inner = scripted_responder([GOOD], cycle=True)
    lock = threading.Lock()

    def respond(model: str, messages: list, options: dict) -> str:
        with lock:
            calls.append(len(calls) + 1)
            number = len(calls)
        if number > answered:
            gate.wait(600)
        return inner(model, messages, options)

    return respond


def ctrl_c_deliverable() -> None:
    """In the child before exec: SIGINT handled and unblocked, as in a terminal. A child inherits an ignored or
    blocked SIGINT from its parent, and this test process may have inherited one from something that ran before it
    in the same pytest worker (in CI the batch then finished all 8 trials and exited 0 after the signal)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def test_ctrl_c_on_a_local_batch_wait_releases_the_run_queued_for_the_next_worker(tmp_path):
    """States, not times: two trials answered and a third one's call held at the server when Ctrl-C is sent."""
    from sandbox import SandboxPool

    suite = tmp_path / "suite.jsonl"
    suite.write_text("".join(
        json.dumps({"id": f"d{i}", "statement": f"Double x (problem {i}).", "entry_point": "double",
                    "tests": [{"kind": "call", "expr": "double(2)", "expected": 4}]}) + "\n"
        for i in range(8)
    ))  # fmt: skip  (statements differ: identical prompts would be answered from the LLM cache, not the server)
    db_url = f"sqlite:///{tmp_path / 'ctrl-c.db'}"
    store = Store.open(db_url)  # created and migrated before the CLI opens it
    gate, calls = threading.Event(), []
    server = OllamaStandIn(responder=gated_responder(2, gate, calls), models=[MODEL])
    with server:
        env = os.environ | {"OLLAMA_HOST": server.url, "PYTHONUNBUFFERED": "1"}
        proc = subprocess.Popen(
            [sys.executable, "-m", "execugraph", "--db", db_url, "batch", "--benchmark", "user", "--benchmark-path",
             str(suite), "--conditions", "single-oneshot", "--model", f"ollama:{MODEL}", "--wait"],
            cwd=PROJECT_ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            preexec_fn=ctrl_c_deliverable,
        )  # fmt: skip
        try:
            wait_until(lambda: store.list_runs(kind="batch") and progress(store, store.list_runs(kind="batch")[0].id)
                       .done >= 2, 600, "2 finished trials")  # fmt: skip
            wait_until(lambda: len(calls) > 2 or proc.poll() is not None, 600, "a third trial's model call")
            assert proc.poll() is None, f"the batch ended before a third call reached the server: {proc.stderr.read()}"
            proc.send_signal(signal.SIGINT)
            gate.set()  # the trial in flight may finish; none after it starts
            out, err = proc.communicate(timeout=600)
        finally:
            gate.set()
            if proc.poll() is None:
                proc.kill()
        assert proc.returncode == 130, (f"SIGINT here: {signal.getsignal(signal.SIGINT)}, blocked: "
                                        f"{signal.pthread_sigmask(signal.SIG_BLOCK, [])}\n{err}")
        assert "interrupted" in err
        (run,) = store.list_runs(kind="batch")
        statuses = Counter(t.status for t in store.trials_for_run(run.id))
        # released at once, not left `running` until its lease runs out
        assert run.status == "queued" and run.worker_id is None and run.lease_expires_at is None
        assert statuses["running"] == 0 and statuses["queued"] > 0 and statuses["done"] >= 2
        with SandboxPool(workers=1) as pool:
            worker = Worker(store, deps_factory=lambda: TrialDeps(pool=pool, ollama_host=server.url))
            assert worker.run_forever(poll_s=0.05, exit_when_idle=True) == 0
    assert store.get_run(run.id).status == "done"
    assert_complete_and_unique(store, run.id, 8)
    store.close()
