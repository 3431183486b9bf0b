"""What runs inside a Ray worker process, tested without Ray: TrialWorker, fencing and reset_trial.

Real store (SQLite and PostgreSQL), real sandbox, a loopback Ollama stand-in.
"""

from __future__ import annotations

import os

import pytest

from execugraph.batch.control import enqueue_batch
from execugraph.scaleout.messages import TrialTask
from execugraph.scaleout.trial_worker import TrialWorker
from execugraph.store import Store, SupersededError, leases
from standins.ollama_server import OllamaStandIn, scripted_responder
from tests.batch.test_runner import GOOD, MODEL, problems, spec
from tests.support.trace_rows import add_step

pytestmark = pytest.mark.integration


def queued_trial(store: Store, n: int = 1) -> tuple[int, list]:
    run_id = enqueue_batch(store, spec(conditions=["single-oneshot"], seeds=[0]), problems(n))
    return run_id, [leases.claim_trial(store, run_id) for _ in range(n)]


def test_a_superseded_attempt_can_neither_trace_nor_finish(store):
    _, (trial,) = queued_trial(store)
    old = store.fenced(trial.id, trial.started_at)
    old.check_attempt()
    add_step(old, trial.id, "generator")
    assert len(store.steps_for_trial(trial.id)) == 1

    token = leases.reset_trial(store, trial.id)
    assert token != trial.started_at and store.steps_for_trial(trial.id) == []  # partial trace wiped
    with pytest.raises(SupersededError):
        add_step(old, trial.id, "generator")
    with pytest.raises(SupersededError):
        old.update_trial(trial.id, test_source="problem")
    with pytest.raises(SupersededError):
        old.finish_trial(trial.id, passed=True)
    row = store.get_trial(trial.id)
    assert row.status == "running" and row.passed is None and row.started_at == token

    current = store.fenced(trial.id, token)
    current.finish_trial(trial.id, passed=True, tests_passed=3, tests_total=3)
    row = old.get_trial(trial.id)  # reads pass through the fence
    assert row.status == "done" and row.passed and row.finished_at is not None
    with pytest.raises(SupersededError):  # a finished trial is no attempt's to write any more
        current.finish_trial(trial.id, passed=False)
    with pytest.raises(ValueError, match="no settable field 'colour'"):
        store.fenced(trial.id, token).finish_trial(trial.id, colour="red")
    with pytest.raises(ValueError, match="belongs to trial"):
        add_step(current, trial.id + 1, "generator")


def test_reset_trial_can_requeue_or_cancel_and_names_a_missing_trial(sqlite_store):
    _, (trial,) = queued_trial(sqlite_store)
    assert leases.reset_trial(sqlite_store, trial.id, status="queued") is None
    row = sqlite_store.get_trial(trial.id)
    assert row.status == "queued" and row.started_at is None
    assert leases.claim_trial(sqlite_store, row.run_id).id == trial.id  # claimable again
    leases.reset_trial(sqlite_store, trial.id, status="cancelled")
    assert sqlite_store.get_trial(trial.id).status == "cancelled"
    with pytest.raises(LookupError, match="trial 999999"):
        leases.reset_trial(sqlite_store, 999999)
    with pytest.raises(ValueError, match="status must be"):
        leases.reset_trial(sqlite_store, trial.id, status="done")


def task_for(store: Store, run_id: int, trial, token, host: str) -> TrialTask:
    return TrialTask(
        run_id=run_id,
        trial_id=trial.id,
        token=token,
        problem=store.get_problem(trial.benchmark, trial.problem_id),
        config=spec(conditions=["single-oneshot"]).run_config("single-oneshot"),
        seed=trial.seed,
        trial_index=trial.trial_index,
        ollama_host=host,
    )


def test_trial_worker_runs_a_trial_and_skips_a_superseded_one(tmp_path):
    db_url = f"sqlite:///{tmp_path / 'worker.db'}"
    store = Store.open(db_url)
    run_id, (first, second) = queued_trial(store, 2)
    worker = TrialWorker(db_url, sandbox_workers=1)
    try:
        with OllamaStandIn(responder=scripted_responder([GOOD], cycle=True), models=[MODEL]) as server:
            assert worker.ready().pid == os.getpid()
            outcome = worker.run(task_for(store, run_id, first, first.started_at, server.url))
            assert outcome.status == "done" and outcome.passed and not outcome.superseded
            assert outcome.pid == os.getpid()
            nodes = [s.node for s in store.steps_for_trial(first.id)]
            assert nodes[0] == "generator" and nodes[-1] == "grade"
            assert store.get_trial(first.id).passed

            stale = second.started_at
            leases.reset_trial(store, second.id)  # the driver handed the trial to someone else
            outcome = worker.run(task_for(store, run_id, second, stale, server.url))
            assert outcome.superseded
            assert len(server.requests) == 1  # the stale attempt stopped before calling the model
            assert store.steps_for_trial(second.id) == [] and store.get_trial(second.id).status == "running"
    finally:
        worker.close()


def test_an_attempt_superseded_while_it_waits_on_the_model_writes_nothing(tmp_path):
    db_url = f"sqlite:///{tmp_path / 'race.db'}"
    store = Store.open(db_url)
    run_id, (trial,) = queued_trial(store)
    new_tokens = []

    def responder(model, messages, options):
        new_tokens.append(leases.reset_trial(store, trial.id))  # superseded mid-call
        return GOOD

    worker = TrialWorker(db_url, sandbox_workers=1)
    try:
        with OllamaStandIn(responder=responder, models=[MODEL]) as server:
            outcome = worker.run(task_for(store, run_id, trial, trial.started_at, server.url))
    finally:
        worker.close()
    assert outcome.superseded and len(new_tokens) == 1
    row = store.get_trial(trial.id)
    assert row.status == "running" and row.started_at == new_tokens[0] and row.passed is None
    assert store.steps_for_trial(trial.id) == [] and store.llm_calls_for_trial(trial.id) == []
