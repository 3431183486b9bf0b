"""The batch runner: exact grids, SIGKILL-and-resume, two workers, cancel and resume."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from execugraph.batch.control import enqueue_batch, request_cancel, resume
from execugraph.batch.progress import progress, wait_for
from execugraph.batch.runner import Worker
from execugraph.batch.spec import BatchSpec, parse_seeds
from execugraph.configuration.settings import PROJECT_ROOT
from execugraph.domain.problem import Problem
from execugraph.store import Store
from execugraph.workflow.trial import TrialDeps
from standins.ollama_server import OllamaStandIn, scripted_responder
from standins.scripted import fenced
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration

MODEL = "standin:latest"
GOOD = fenced("def double(x):\n    return 2 * x\n")


def problems(n: int) -> list[Problem]:
    tests = [{"kind": "call", "expr": f"double({i})", "expected": 2 * i} for i in range(3)]
    return [
        Problem(
            id=f"double_{i}",
            benchmark="toy",
            category=("a", "b")[i % 2],
            statement=f"Double x ({i}).",
            entry_point="double",
            tests=tests,
        )
        for i in range(n)
    ]


def spec(**overrides) -> BatchSpec:
    values = {
        "benchmark": "toy",
        "conditions": ["single-oneshot", "single-retry"],
        "seeds": [0, 1],
        "default_model": f"ollama:{MODEL}",
        "overrides": {"cache": False},
    }
    return BatchSpec(**(values | overrides))


def start_worker(
    db_url: str, host: str, *, lease_s: float = 1.5, heartbeat_s: float = 0.3, log: Path | None = None
) -> subprocess.Popen:
    """A `worker --once` subprocess; its stderr goes to `log` when given (a pipe otherwise)."""
    env = os.environ | {"OLLAMA_HOST": host, "PYTHONUNBUFFERED": "1"}
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "execugraph",
            "--db",
            db_url,
            "worker",
            "--once",
            "--poll-s",
            "0.2",
            "--stale-after-s",
            str(lease_s),
            "--heartbeat-s",
            str(heartbeat_s),
        ],
        cwd=PROJECT_ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE if log is None else log.open("ab"),
    )


def assert_complete_and_unique(store: Store, run_id: int, expected: int) -> None:
    trials = store.trials_for_run(run_id)
    keys = Counter((t.problem_id, t.condition, t.seed, t.trial_index) for t in trials)
    assert len(trials) == expected and max(keys.values()) == 1
    for trial in trials:
        assert trial.status == "done", (trial.id, trial.status, trial.message)
        steps = store.steps_for_trial(trial.id)
        nodes = [s.node for s in steps]
        assert nodes[0] == "generator" and nodes[-1] == "grade" and all(s.ended_at for s in steps)
        assert nodes.count("grade") == 1, (trial.id, nodes)  # one attempt's trace, never two
        assert [s.seq for s in steps] == list(range(len(steps))) or [s.seq for s in steps] == list(
            range(1, len(steps) + 1)
        )
        assert len(store.llm_calls_for_trial(trial.id)) == trial.llm_calls == nodes.count("generator")
        assert trial.passed


def test_parse_seeds_ranges_and_errors():
    assert parse_seeds("0-4") == [0, 1, 2, 3, 4] and parse_seeds("3,1,1-2") == [1, 2, 3]
    for bad in ("", "a", "4-1", "1-"):
        with pytest.raises(ValueError):
            parse_seeds(bad)


def test_grid_is_exact_and_filters_apply(sqlite_store):
    run_id = enqueue_batch(sqlite_store, spec(categories=["a"], trials=2), problems(6))
    run = sqlite_store.get_run(run_id)
    assert run.kind == "batch" and run.status == "queued" and run.progress_total == 3 * 2 * 2 * 2
    assert set(run.config["conditions"]) == {"single-oneshot", "single-retry"}
    assert run.config["conditions"]["single-retry"]["retry_budget"] == 3
    with pytest.raises(ValueError, match="unknown problem"):
        enqueue_batch(sqlite_store, spec(problem_ids=["nope"]), problems(2))
    with pytest.raises(ValueError, match="unknown condition"):
        spec(conditions=["multi-magic"])


def test_sigkill_three_times_then_resume_loses_and_duplicates_nothing(tmp_path):
    db_url = f"sqlite:///{tmp_path / 'batch.db'}"
    store = Store.open(db_url)
    grid = problems(8)
    run_id = enqueue_batch(store, spec(), grid)
    expected = 8 * 2 * 2
    rng = random.Random(7)
    with OllamaStandIn(responder=scripted_responder([GOOD], cycle=True), models=[MODEL], latency_s=0.15) as server:
        for round_ in range(3):
            worker = start_worker(db_url, server.url, log=tmp_path / f"worker{round_}.log")
            target = progress(store, run_id).done + rng.randint(1, 4)
            # each worker takes over the run its killed predecessor left (waiting out its lease if need be)
            wait_until(lambda t=target: progress(store, run_id).done >= t, 180, f"{target} trials done")
            time.sleep(rng.uniform(0.0, 0.3))  # land anywhere inside the next trial
            worker.send_signal(signal.SIGKILL)
            worker.wait()
            assert store.get_run(run_id).status == "running"  # left mid-batch by a dead worker
        done_before = progress(store, run_id).done
        assert 0 < done_before < expected
        worker = start_worker(db_url, server.url)
        _, err = worker.communicate(timeout=300)
        assert worker.returncode == 0, err.decode()
    assert store.get_run(run_id).status == "done"
    assert_complete_and_unique(store, run_id, expected)
    # every trial's calls reached the endpoint at least once; re-run in-flight trials cost extra calls only
    assert len(server.requests) >= expected


def test_two_workers_never_run_the_same_trial(tmp_path):
    db_url = f"sqlite:///{tmp_path / 'two.db'}"
    store = Store.open(db_url)
    runs = [enqueue_batch(store, spec(conditions=["single-oneshot"], title=f"r{i}"), problems(6)) for i in range(3)]
    with OllamaStandIn(responder=scripted_responder([GOOD], cycle=True), models=[MODEL], latency_s=0.05) as server:
        workers = [start_worker(db_url, server.url) for _ in range(2)]
        for w in workers:
            _, err = w.communicate(timeout=300)
            assert w.returncode == 0, err.decode()
        assert len(server.requests) == 3 * 6 * 2  # one generator call per trial: nothing ran twice
    for run_id in runs:
        assert store.get_run(run_id).status == "done"
        assert_complete_and_unique(store, run_id, 6 * 2)


def test_cancel_mid_batch_then_resume_completes_exactly(sqlite_store):
    from sandbox import SandboxPool

    grid = problems(10)
    run_id = enqueue_batch(sqlite_store, spec(conditions=["single-oneshot"], concurrency=2), grid)
    with (
        SandboxPool(workers=1) as pool,
        OllamaStandIn(responder=scripted_responder([GOOD], cycle=True), models=[MODEL], latency_s=0.2) as server,
    ):
        worker = Worker(sqlite_store, deps_factory=lambda: TrialDeps(pool=pool, ollama_host=server.url))
        thread = threading.Thread(target=worker.run_forever, kwargs={"poll_s": 0.1, "exit_when_idle": True})
        thread.start()
        wait_until(lambda: progress(sqlite_store, run_id).done >= 3, 180, "3 trials done")
        request_cancel(sqlite_store, run_id)
        thread.join(timeout=60)
        assert not thread.is_alive()
        run = sqlite_store.get_run(run_id)
        statuses = Counter(t.status for t in sqlite_store.trials_for_run(run_id))
        assert run.status == "cancelled" and statuses["done"] >= 3 and statuses["cancelled"] > 0
        assert statuses["running"] == 0 and statuses["queued"] == 0
        kept = {t.id for t in sqlite_store.trials_for_run(run_id, status="done")}
        assert resume(sqlite_store, run_id) == statuses["cancelled"]
        worker.run_forever(poll_s=0.1, exit_when_idle=True)
    assert wait_for(sqlite_store, run_id, timeout_s=5) == "done"
    assert kept <= {t.id for t in sqlite_store.trials_for_run(run_id, status="done")}
    assert_complete_and_unique(sqlite_store, run_id, 20)
    final = progress(sqlite_store, run_id)
    assert final.done == final.total == 20 and final.pass_rate == 1.0
