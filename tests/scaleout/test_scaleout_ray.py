"""Batches on a real local Ray cluster against loopback Ollama stand-ins with fixed latency.

One cluster (ray.init with this machine's cores) serves the whole module, since
starting one costs 10-15 s; every test starts its own driver and worker actors.
Covered: the exact trial set, SIGKILL of a Ray worker process mid-batch, an LLM
endpoint dying mid-batch, the store on PostgreSQL, cancel and resume, and the
CLI driver itself killed mid-batch and resumed.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable

import pytest
import ray

from execugraph.batch.control import enqueue_batch, request_cancel, resume
from execugraph.batch.progress import progress
from execugraph.batch.spec import BatchSpec
from execugraph.configuration.settings import PROJECT_ROOT
from execugraph.scaleout.driver import RayBatchDriver, ScaleOptions
from execugraph.scaleout.executor import run_on_ray, worker_db_url
from execugraph.store import Store, leases, utcnow
from standins.ollama_server import OllamaStandIn, scripted_responder
from tests.batch.test_runner import GOOD, MODEL, assert_complete_and_unique, problems
from tests.support.postgres import free_port

pytestmark = pytest.mark.integration

FAST = ScaleOptions(
    heartbeat_s=0.3,
    stale_after_s=2.0,
    health_every_s=0.3,
    probe_timeout_s=1.0,
    worker_cpus=0.5,  # up to four worker actors fit on a 2-core cluster
    poll_s=0.05,
    all_down_grace_s=30.0,
    reroute_after_s=1.0,  # a trial leaves an unreachable endpoint for another after 1 s
    worker_start_timeout_s=120.0,
)


@pytest.fixture(scope="module")
def ray_cluster() -> str:
    """A local Ray cluster for this module; yields its address so other processes can join it."""
    if ray.is_initialized():
        ray.shutdown()
    ray.init(num_cpus=os.cpu_count() or 2, include_dashboard=False, log_to_driver=False)
    try:
        yield ray.get_runtime_context().gcs_address
    finally:
        ray.shutdown()


def standin(latency_s: float = 0.25) -> OllamaStandIn:
    return OllamaStandIn(responder=scripted_responder([GOOD], cycle=True), models=[MODEL], latency_s=latency_s)


def ray_spec(hosts: list[str], **overrides) -> BatchSpec:
    values = {
        "benchmark": "toy",
        "conditions": ["single-oneshot", "single-retry"],
        "seeds": [0, 1],
        "default_model": f"ollama:{MODEL}",
        "overrides": {"cache": False},
        "executor": "ray",
        "ollama_hosts": hosts,
        "concurrency": 4,
        "endpoint_concurrency": 2,
        "ray_workers": 2,
    }
    return BatchSpec(**(values | overrides))


class DriverThread:
    """A RayBatchDriver for a claimed run, running in a thread so the test can break things meanwhile."""

    def __init__(self, store: Store, run_id: int, options: ScaleOptions = FAST) -> None:
        worker_id = f"test-driver-{run_id}-{time.monotonic_ns()}"
        assert leases.claim_run(store, worker_id, options.stale_after_s, only=run_id) == run_id
        self.driver = RayBatchDriver.claimed(store, run_id, worker_id, worker_db_url(store), options=options)
        self.status: str | None = None
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        try:
            self.status = self.driver.run()
        except BaseException as exc:  # surfaced by join()
            self.error = exc

    def __enter__(self) -> DriverThread:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.driver.stop.set()
        self.thread.join(timeout=120)

    def join(self, timeout_s: float = 120) -> str:
        self.thread.join(timeout=timeout_s)
        assert not self.thread.is_alive(), "the Ray driver did not finish in time"
        if self.error is not None:
            raise self.error
        assert self.status is not None
        return self.status


def wait_until(condition: Callable[[], bool], timeout_s: float = 90, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout_s} s waiting for {what}")
        time.sleep(0.02)


def check_exact_batch(db_url: str, hosts: list[OllamaStandIn]) -> None:
    """The shared scenario of the SQLite and PostgreSQL tests: a clean batch over two endpoints."""
    store = Store.open(db_url)
    expected = 6 * 2 * 2
    run_id = enqueue_batch(store, ray_spec([h.url for h in hosts]), problems(6))
    assert run_on_ray(store, run_id, options=FAST) == "done"
    run = store.get_run(run_id)
    assert run.status == "done" and run.worker_id is None and run.finished_at is not None
    assert run.progress_done == run.progress_total == expected
    assert_complete_and_unique(store, run_id, expected)
    assert all(t.message is None for t in store.trials_for_run(run_id))  # nothing was retried
    calls = [len(h.requests) for h in hosts]
    assert sum(calls) == expected  # one generator call per trial: no trial ran twice
    assert min(calls) >= expected // 4, f"load not balanced over the endpoints: {calls}"
    assert max(h.peak_in_flight for h in hosts) <= 2  # endpoint_concurrency held
    store.close()


def test_batch_completes_with_the_exact_trial_set(ray_cluster, tmp_path):
    with standin() as a, standin() as b:
        check_exact_batch(f"sqlite:///{tmp_path / 'ray.db'}", [a, b])


@pytest.mark.postgres
def test_a_background_worker_hands_a_ray_batch_to_the_ray_driver(ray_cluster, tmp_path):
    from execugraph.batch.runner import Worker
    from execugraph.cli.batch import executors

    store = Store.open(f"sqlite:///{tmp_path / 'bg.db'}")
    with standin() as a, standin() as b:
        # one Ray worker: what is proven is the hand-over and the endpoint spread (each worker costs seconds to warm)
        spec = ray_spec([a.url, b.url], conditions=["single-oneshot"], ray_workers=1)
        run_id = enqueue_batch(store, spec, problems(3))
        worker = Worker(store, heartbeat_s=FAST.heartbeat_s, stale_after_s=FAST.stale_after_s, executors=executors())
        worker.run_forever(poll_s=0.1, exit_when_idle=True)
        assert len(a.requests) + len(b.requests) == 3 * 2 and a.requests and b.requests  # spread over endpoints
    assert store.get_run(run_id).status == "done"
    assert_complete_and_unique(store, run_id, 3 * 2)


def test_same_batch_with_the_store_on_postgresql(ray_cluster, pg_url):
    with standin() as a, standin() as b:
        check_exact_batch(pg_url, [a, b])


def test_killing_a_ray_worker_process_mid_batch_loses_nothing(ray_cluster, tmp_path):
    store = Store.open(f"sqlite:///{tmp_path / 'kill.db'}")
    expected = 8 * 2 * 2
    with standin(0.3) as a, standin(0.3) as b:
        run_id = enqueue_batch(store, ray_spec([a.url, b.url], concurrency=4, ray_workers=2), problems(8))
        with DriverThread(store, run_id) as runner:
            pool = runner.driver
            wait_until(pool.workers_ready.is_set, what="the Ray workers")
            wait_until(lambda: progress(store, run_id).done >= 4, what="4 finished trials")
            victim = None

            def busy_worker() -> bool:
                nonlocal victim
                victim = next((w for w in pool.pool.workers if w.in_flight > 0), None)
                return victim is not None

            wait_until(busy_worker, what="a worker with a trial in flight")
            pid = victim.info.pid
            assert pid != os.getpid()
            os.kill(pid, signal.SIGKILL)
            assert runner.join() == "done"
            assert victim.losses >= 1
    trials = store.trials_for_run(run_id)
    retried = [t for t in trials if t.message and "was lost with Ray worker" in t.message]
    assert retried, "no trial recorded that its worker died"
    assert all(f"pid {pid}" in t.message for t in retried)
    assert_complete_and_unique(store, run_id, expected)  # every trial done once, each with one whole trace
    assert len(a.requests) + len(b.requests) >= expected
    assert store.get_run(run_id).status == "done"


def test_an_endpoint_going_down_mid_batch_moves_its_load_to_the_others(ray_cluster, tmp_path):
    store = Store.open(f"sqlite:///{tmp_path / 'down.db'}")
    expected = 10 * 2 * 2
    with standin(0.3) as a, standin(0.3) as b, standin(0.3) as c:
        # one Ray worker (6 slots): draining is the driver's, however many workers there are (each costs seconds)
        spec = ray_spec([a.url, b.url, c.url], concurrency=6, endpoint_concurrency=2, ray_workers=1)
        run_id = enqueue_batch(store, spec, problems(10))
        with DriverThread(store, run_id) as runner:
            wait_until(lambda: progress(store, run_id).done >= 4, what="4 finished trials")
            wait_until(lambda: any(r.outcome == "pending" for r in a.requests), what="a call in flight on a")
            a.set_down(True, mode="reset")
            down_at = time.monotonic()
            unfinished = expected - progress(store, run_id).done
            assert runner.join() == "done"
            endpoint_a = next(e for e in runner.driver.balancer.endpoints if e.url == a.url)
    assert not endpoint_a.healthy and "/api/tags" in endpoint_a.reason and endpoint_a.drains == 1
    assert_complete_and_unique(store, run_id, expected)
    retried = [t for t in store.trials_for_run(run_id) if t.message and a.url in t.message]
    assert retried, "no trial recorded that it was moved off the dead endpoint"
    for trial in retried:
        assert "endpoint drained: health check GET" in trial.message and "ran on http://" in trial.message
        assert trial.message.rstrip().split(" ran on ")[-1].split(" ")[0] in (b.url, c.url)
    served_after = sum(1 for h in (b, c) for r in h.requests if r.received_at > down_at and r.outcome == "ok")
    # b and c took over: every trial unfinished at the drop made a call there afterwards, except the
    # (at most 2 + 2) whose call b and c had already received
    assert served_after >= unfinished - 4
    assert max(b.peak_in_flight, c.peak_in_flight) <= 2  # the per-endpoint limit held while they took over


def test_a_trial_gives_up_after_max_attempts_with_every_attempt_recorded(ray_cluster, tmp_path):
    store = Store.open(f"sqlite:///{tmp_path / 'giveup.db'}")
    options = ScaleOptions(**(FAST.__dict__ | {"max_attempts": 2, "health_every_s": 60.0}))
    with standin(1.0) as a, standin(1.0) as b:
        spec = ray_spec([a.url, b.url], conditions=["single-oneshot"], seeds=[0], concurrency=1, ray_workers=1)
        run_id = enqueue_batch(store, spec, problems(1))
        with DriverThread(store, run_id, options) as runner:

            def talking(h: OllamaStandIn) -> bool:
                return h.down_mode is None and any(r.outcome == "pending" for r in h.requests)

            for _ in range(2):  # kill whichever endpoint the trial is talking to, twice
                wait_until(lambda: talking(a) or talking(b), what="a call in flight")
                (a if talking(a) else b).set_down(True, mode="reset")
            assert runner.join() == "done"  # a trial that failed is a result, as with the local runner
    (trial,) = store.trials_for_run(run_id)
    assert trial.status == "error" and trial.error_class == "llm_error"
    lines = trial.message.splitlines()
    assert lines[0].startswith("attempt 1 failed on http://") and "endpoint drained" in lines[0]
    assert lines[1].startswith("attempt 2 failed on http://") and lines[-1] == "gave up after 2 attempts"
    assert {a.url, b.url} == {lines[0].split()[4], lines[1].split()[4]}  # one attempt on each endpoint


def test_no_healthy_endpoint_fails_the_run_with_the_reason_and_resume_completes_it(ray_cluster, tmp_path, monkeypatch):
    from execugraph.scaleout.workers import WorkerPool

    store = Store.open(f"sqlite:///{tmp_path / 'alldown.db'}")
    options = ScaleOptions(**(FAST.__dict__ | {"all_down_grace_s": 1.0}))
    starts: list[int] = []
    start = WorkerPool.start

    def counted_start(pool: WorkerPool, timeout_s: float) -> None:
        starts.append(pool.count)
        start(pool, timeout_s)

    monkeypatch.setattr(WorkerPool, "start", counted_start)
    with standin(0.1) as a:
        run_id = enqueue_batch(
            store, ray_spec([a.url], conditions=["single-oneshot"], seeds=[0], ray_workers=1), problems(4)
        )
        a.set_down(True, mode="503")
        assert run_on_ray(store, run_id, options=options) == "failed"
        run = store.get_run(run_id)
        assert "no LLM endpoint passed its health check" in run.error and f"{a.url}: health check" in run.error
        assert "HTTP 503" in run.error and run.worker_id is None
        assert Counter(t.status for t in store.trials_for_run(run_id)) == {"queued": 4}  # nothing lost or half-run
        assert a.requests == []
        assert starts == []  # no worker actor was created for a run that never had a healthy endpoint
        a.set_down(False)
        resume(store, run_id)
        assert run_on_ray(store, run_id, options=options) == "done"
        assert starts == [1]
    assert_complete_and_unique(store, run_id, 4)


def test_cancel_mid_batch_then_resume_completes_exactly(ray_cluster, tmp_path):
    store = Store.open(f"sqlite:///{tmp_path / 'cancel.db'}")
    expected = 10 * 2
    with standin(0.3) as a:
        spec = ray_spec([a.url], conditions=["single-oneshot"], concurrency=2, ray_workers=1)
        run_id = enqueue_batch(store, spec, problems(10))
        with DriverThread(store, run_id) as runner:
            wait_until(lambda: progress(store, run_id).done >= 3, what="3 finished trials")
            request_cancel(store, run_id)
            assert runner.join() == "cancelled"
        statuses = Counter(t.status for t in store.trials_for_run(run_id))
        assert statuses["done"] >= 3 and statuses["cancelled"] > 0
        assert statuses["running"] == 0 and statuses["queued"] == 0
        kept = {t.id for t in store.trials_for_run(run_id, status="done")}
        assert resume(store, run_id) == statuses["cancelled"]
        assert run_on_ray(store, run_id, options=FAST) == "done"
    assert kept <= {t.id for t in store.trials_for_run(run_id, status="done")}
    assert_complete_and_unique(store, run_id, expected)


def test_cli_driver_killed_mid_batch_is_resumed_without_loss_or_duplicates(ray_cluster, tmp_path):
    suite = tmp_path / "suite.jsonl"
    suite.write_text(
        "\n".join(
            json.dumps(
                {
                    "id": p.id,
                    "statement": p.statement,
                    "entry_point": p.entry_point,
                    "tests": p.tests,
                    "category": p.category,
                }
            )
            for p in problems(8)
        )
        + "\n"
    )
    db_url = f"sqlite:///{tmp_path / 'cli.db'}"
    store = Store.open(db_url)
    expected = 8 * 2
    with standin(0.3) as a, standin(0.3) as b:
        cli = subprocess.Popen(
            [sys.executable, "-m", "execugraph", "--db", db_url, "batch", "--benchmark", "user",
             "--benchmark-path", str(suite), "--conditions", "single-oneshot", "--seeds", "0-1",
             "--model", f"ollama:{MODEL}", "--concurrency", "2", "--executor", "ray", "--ray-address", ray_cluster,
             "--ollama-hosts", f"{a.url},{b.url}", "--endpoint-concurrency", "1", "--wait"],
            cwd=PROJECT_ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env=os.environ | {"PYTHONUNBUFFERED": "1"},
        )  # fmt: skip
        try:
            header = json.loads(cli.stdout.readline())
            run_id = header["run_id"]
            assert header["trials"] == expected
            wait_until(lambda: progress(store, run_id).done >= 3 or cli.poll() is not None, 150, "3 trials by the CLI")
            assert cli.poll() is None, cli.stderr.read()
            cli.send_signal(signal.SIGKILL)
            cli.wait(timeout=30)
        finally:
            if cli.poll() is None:
                cli.kill()
                cli.wait()
        run = store.get_run(run_id)
        assert run.status == "running" and run.config["batch"]["ollama_hosts"] == [a.url, b.url]
        assert 0 < progress(store, run_id).done < expected
        # the dead driver's lease (the CLI's 30 s) ends now, and the next driver takes over; waiting a lease
        # out is proven in tests/batch/test_runner_faults.py
        store.update_run(run_id, lease_expires_at=utcnow())
        assert run_on_ray(store, run_id, options=FAST) == "done"
    trials = store.trials_for_run(run_id)
    keys = Counter((t.problem_id, t.condition, t.seed, t.trial_index) for t in trials)
    assert len(trials) == expected and max(keys.values()) == 1
    assert all(t.status == "done" and t.passed for t in trials), [(t.id, t.status, t.message) for t in trials]
    for trial in trials:
        nodes = [s.node for s in store.steps_for_trial(trial.id)]
        assert nodes[0] == "generator" and nodes[-1] == "grade" and nodes.count("generator") == 1
    assert store.get_run(run_id).worker_id is None


def test_more_workers_than_the_cluster_holds_fail_the_run_at_once_and_keep_its_trials(ray_cluster, tmp_path):
    store = Store.open(f"sqlite:///{tmp_path / 'big.db'}")
    cpus = ray.cluster_resources()["CPU"]
    workers = int(cpus / FAST.worker_cpus) + 1
    spec = ray_spec(["http://127.0.0.1:9"], concurrency=workers, ray_workers=workers)
    run_id = enqueue_batch(store, spec, problems(2))
    started = time.monotonic()
    assert run_on_ray(store, run_id, options=FAST) == "failed"
    assert time.monotonic() - started < 30  # refused up front, not after the start-up timeout
    run = store.get_run(run_id)
    assert f"{workers} Ray workers x 0.5 CPU each do not fit" in run.error and run.worker_id is None
    assert Counter(t.status for t in store.trials_for_run(run_id)) == {"queued": 8}


def test_an_unreachable_ray_address_fails_the_run_quickly_with_the_reason(tmp_path):
    suite = tmp_path / "suite.jsonl"
    suite.write_text(json.dumps({"id": "d", "statement": "Double x.", "entry_point": "double",
                                 "tests": [{"kind": "call", "expr": "double(2)", "expected": 4}]}) + "\n")  # fmt: skip
    db_url = f"sqlite:///{tmp_path / 'unreachable.db'}"
    address = f"127.0.0.1:{free_port()}"
    done = subprocess.run(
        [sys.executable, "-m", "execugraph", "--db", db_url, "batch", "--benchmark", "user", "--benchmark-path",
         str(suite), "--conditions", "single-oneshot", "--model", f"ollama:{MODEL}", "--executor", "ray",
         "--ray-address", address, "--wait"],
        cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert json.loads(done.stdout.splitlines()[-1])["status"] == "failed"
    assert f"cannot connect to the Ray cluster at {address}" in done.stderr
    (run,) = Store.open(db_url).list_runs(kind="batch")
    assert run.status == "failed" and f"nothing answers at {address}" in run.error and run.worker_id is None


def test_sqlite_store_is_refused_when_the_cluster_spans_machines(tmp_path, monkeypatch):
    from execugraph.scaleout import driver

    store = Store.open(f"sqlite:///{tmp_path / 'multi.db'}")
    fake_nodes = [{"Alive": True, "Resources": {"CPU": 2}, "NodeManagerAddress": ip} for ip in ("10.0.0.1", "10.0.0.2")]
    monkeypatch.setattr(driver, "cluster_nodes", lambda: fake_nodes)
    with pytest.raises(ValueError, match="PostgreSQL"):
        worker_db_url(store)
    monkeypatch.setattr(driver, "cluster_nodes", lambda: fake_nodes[:1])
    assert worker_db_url(store).startswith("sqlite:////")  # absolute path, as workers elsewhere need


def test_scale_out_fields_are_validated():
    with pytest.raises(ValueError, match="only apply to executor 'ray'"):
        BatchSpec(ollama_hosts=["http://a:11434"])
    with pytest.raises(ValueError, match="bad Ollama host"):
        BatchSpec(executor="ray", ollama_hosts=["ftp://a"])
    assert BatchSpec(executor="ray", ollama_hosts=["a:11434"]).ollama_hosts == ["http://a:11434"]


def test_with_one_endpoint_an_outage_is_waited_out_by_the_workers(ray_cluster, tmp_path):
    store = Store.open(f"sqlite:///{tmp_path / 'wait.db'}")
    expected = 4 * 2 * 2
    with standin(0.3) as a:
        run_id = enqueue_batch(store, ray_spec([a.url], outage_budget_s=300, ray_workers=1), problems(4))
        with DriverThread(store, run_id) as runner:
            wait_until(lambda: progress(store, run_id).done >= 2, what="2 finished trials")
            a.set_down(True, mode="503")
            wait_until(lambda: store.endpoint_waits([run_id]), what="the wait to be recorded")
            time.sleep(2)
            assert Counter(t.status for t in store.trials_for_run(run_id))["error"] == 0
            a.set_down(False)
            assert runner.join() == "done"
    assert_complete_and_unique(store, run_id, expected)  # every trial once, none an error
    assert store.endpoint_waits([run_id]) == {}


def test_openai_compatible_endpoints_through_the_endpoints_flag(ray_cluster, tmp_path):
    from tests.support.openai_server import ALIAS, LlamaCppServer

    store = Store.open(f"sqlite:///{tmp_path / 'openai.db'}")
    with LlamaCppServer(log=tmp_path / "server.log") as server:
        spec = ray_spec([], endpoints=[server.base_url], conditions=["single-oneshot"], default_model=f"openai:{ALIAS}",
                        overrides={"cache": False, "max_tokens": 64}, concurrency=2, ray_workers=1)
        assert spec.endpoint_list() == [("openai", server.base_url)]
        run_id = enqueue_batch(store, spec, problems(1))
        assert run_on_ray(store, run_id, options=FAST) == "done"
    trials = store.trials_for_run(run_id)
    assert len(trials) == 2 and {t.status for t in trials} == {"done"}
    for trial in trials:
        (call,) = store.llm_calls_for_trial(trial.id)
        assert call.provider == "openai" and call.tokens_in > 0 and call.tokens_out > 0
