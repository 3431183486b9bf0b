"""Concurrent trials' steps share SQLite write transactions, yet each is committed before `record_step` returns."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
from datetime import timedelta
from pathlib import Path

import pytest

from execugraph.configuration.settings import PROJECT_ROOT
from execugraph.store import Store, SupersededError, leases, utcnow
from tests.support.waiting import wait_until

CALL = {"role": "generator", "provider": "openai", "model": "m", "messages": [{"role": "user", "content": "hi"}],
        "response": "def f(): pass", "tokens_in": 3, "tokens_out": 4, "latency_s": 0.5, "seed": 1}
EXECUTION = {"purpose": "grading", "code": "def f(): pass", "verdict": "pass", "results": [{"call": "f()", "passed": True}]}


def running_trials(store: Store, count: int) -> list:
    """`count` trials of one batch run, each claimed (running, with its attempt's token)."""
    run_id = store.create_run("batch", "groups", {})
    for index in range(count):
        store.create_trial(run_id, f"p{index}", "single-oneshot", 0, 0, status="queued")
    return [leases.claim_trial(store, run_id) for _ in range(count)]


def write_lock(db: Path) -> sqlite3.Connection:
    """Another connection holding SQLite's write lock until it commits."""
    conn = sqlite3.connect(db, isolation_level=None, timeout=60)
    conn.execute("BEGIN IMMEDIATE")
    return conn


def record(store: Store, trial_id: int, node: str = "generator") -> int:
    return store.record_step(trial_id, node, 0, started_at=utcnow(), ended_at=utcnow(), output={"code": "x"},
                             llm_calls=[CALL], executions=[EXECUTION])


def test_steps_queued_behind_the_write_lock_commit_together_and_each_before_it_returns(tmp_path) -> None:
    db = tmp_path / "runs.db"
    store = Store.open(str(db))
    trials = running_trials(store, 6)
    groups = store._step_groups
    assert groups is not None
    seen_after_return: dict[int, bool] = {}

    def trial_thread(trial) -> None:
        step_id = record(store.fenced(trial.id, trial.started_at), trial.id)
        with sqlite3.connect(db) as other:  # committed: another connection sees it the moment we return
            seen_after_return[trial.id] = other.execute("SELECT count(*) FROM step WHERE id = ?",
                                                        (step_id,)).fetchone()[0] == 1

    lock = write_lock(db)
    threads = [threading.Thread(target=trial_thread, args=(t,)) for t in trials]
    for thread in threads:
        thread.start()
    wait_until(lambda: groups.queued() >= 5 or not all(t.is_alive() for t in threads), 120,
               "the steps to queue behind the first")
    lock.commit()
    lock.close()
    for thread in threads:
        thread.join(120)
    assert seen_after_return == {t.id: True for t in trials}
    assert groups.steps == 6
    assert groups.transactions <= 2  # the first one's, then all the others in one
    for trial in trials:
        assert len(store.llm_calls_for_trial(trial.id)) == len(store.executions_for_trial(trial.id)) == 1
        assert [s.seq for s in store.steps_for_trial(trial.id)] == [1]
    store.close()


def rows(store: Store, trial_id: int) -> list[dict]:
    """Everything the trial's steps stored, minus ids and clocks."""
    out = []
    for step in store.steps_for_trial(trial_id):
        out.append({"step": step.model_dump(exclude={"id", "trial_id", "started_at", "ended_at"}),
                    "calls": [c.model_dump(exclude={"id", "trial_id", "step_id", "created_at"})
                              for c in store.llm_calls_for_step(step.id)],
                    "runs": [e.model_dump(exclude={"id", "trial_id", "step_id", "created_at"})
                             for e in store.executions_for_step(step.id)]})
    return out


def test_grouped_rows_are_the_rows_one_transaction_per_step_writes(tmp_path) -> None:
    grouped, single = Store.open(str(tmp_path / "a.db")), Store.open(str(tmp_path / "b.db"))
    single._step_groups = None  # the per-step transaction path PostgreSQL takes
    for store in (grouped, single):
        (trial,) = running_trials(store, 1)
        view = store.fenced(trial.id, trial.started_at)
        for node in ("planner", "generator", "evaluator"):
            record(view, trial.id, node)
    assert rows(grouped, 1) == rows(single, 1)
    assert [s["step"]["seq"] for s in rows(grouped, 1)] == [1, 2, 3]
    grouped.close()
    single.close()


def test_a_superseded_step_in_a_group_fails_alone(tmp_path) -> None:
    db = tmp_path / "runs.db"
    store = Store.open(str(db))
    first, mine, taken = running_trials(store, 3)
    outcome: dict[str, object] = {}

    def write(name: str, view: Store, trial_id: int) -> None:
        try:
            outcome[name] = record(view, trial_id)
        except SupersededError as exc:
            outcome[name] = exc

    lock = write_lock(db)
    stale = store.fenced(taken.id, taken.started_at - timedelta(seconds=1))  # the trial was handed out again
    leader = threading.Thread(target=write, args=("first", store.fenced(first.id, first.started_at), first.id))
    leader.start()  # takes its own step and waits for the write lock
    wait_until(lambda: store._step_groups.queued() == 0 and leader.is_alive(), 120, "the first step to be taken")
    threads = [threading.Thread(target=write, args=("stale", stale, taken.id)),
               threading.Thread(target=write, args=("mine", store.fenced(mine.id, mine.started_at), mine.id))]
    for thread in threads:
        thread.start()
    wait_until(lambda: store._step_groups.queued() >= 2 or not all(t.is_alive() for t in threads), 120,
               "two steps to queue behind the first, to share the next transaction")
    threads.append(leader)
    lock.commit()
    lock.close()
    for thread in threads:
        thread.join(120)
    assert isinstance(outcome["stale"], SupersededError)
    assert isinstance(outcome["mine"], int) and isinstance(outcome["first"], int)
    assert store._step_groups.transactions <= 2  # `stale` shared a transaction with at least one other step
    assert store.steps_for_trial(taken.id) == []
    assert [s.id for s in store.steps_for_trial(mine.id)] == [outcome["mine"]]
    store.close()


WRITER = """
import sys, threading
from execugraph.store import Store, utcnow
from tests.store.test_step_groups import CALL, EXECUTION
store = Store.open(sys.argv[1])
ids = [int(x) for x in sys.argv[2].split(",")]
out = threading.Lock()
def trial(trial_id):
    for n in range(10_000):
        step = store.record_step(trial_id, "generator", n, started_at=utcnow(), ended_at=utcnow(), output={"n": n},
                                 llm_calls=[CALL], executions=[EXECUTION])
        with out:
            print(trial_id, step, flush=True)
for t in [threading.Thread(target=trial, args=(i,)) for i in ids]:
    t.start()
"""


@pytest.mark.integration
def test_a_killed_writer_loses_at_most_each_trials_step_in_flight(tmp_path) -> None:
    db = tmp_path / "runs.db"
    store = Store.open(str(db))
    trials = running_trials(store, 4)
    child = subprocess.Popen([sys.executable, "-c", WRITER, str(db), ",".join(str(t.id) for t in trials)],
                             cwd=PROJECT_ROOT, stdout=subprocess.PIPE, text=True,
                             env=os.environ | {"PYTHONPATH": str(PROJECT_ROOT)})
    assert child.stdout is not None
    acknowledged: list[tuple[int, int]] = []
    for line in child.stdout:
        trial_id, step_id = line.split()
        acknowledged.append((int(trial_id), int(step_id)))
        if len(acknowledged) >= 60:
            break
    os.kill(child.pid, signal.SIGKILL)  # mid-write: some trial threads are inside record_step now
    child.wait(60)
    for line in child.stdout.read().splitlines():  # acknowledged before the kill, still in the pipe
        if len(parts := line.split()) == 2:
            acknowledged.append((int(parts[0]), int(parts[1])))
    stored = {s.id: s for t in trials for s in store.steps_for_trial(t.id)}
    for trial_id, step_id in acknowledged:
        assert step_id in stored and stored[step_id].trial_id == trial_id, f"step {step_id} was acknowledged, then lost"
        assert len(store.llm_calls_for_step(step_id)) == 1
    for trial in trials:  # nothing beyond what was acknowledged, but the one step each trial had in flight
        acked = {s for t, s in acknowledged if t == trial.id}
        extra = [s.id for s in stored.values() if s.trial_id == trial.id and s.id not in acked]
        assert len(extra) <= 1, json.dumps(extra)
    store.close()
