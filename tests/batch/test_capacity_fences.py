"""A group commit checks all its attempts' fences with one SELECT, in the transaction that writes their steps.

Four trial threads queue steps behind a thread whose step waits on SQLite's write lock; one of the
four is a superseded attempt. The four are written in one transaction whose fences are checked by
one statement (not one per step): the superseded step is refused, the others are committed. With
`batched_fences` off (the old path, which `bench/batch.py --modes warm-prev` measures) each step
checks its own fence, with the same outcome.
"""

from __future__ import annotations

import sqlite3
import threading
from datetime import timedelta

import pytest
from sqlalchemy import event

from execugraph.store import Store, SupersededError, leases, utcnow
from tests.support.waiting import wait_until

CALL = {"role": "generator", "provider": "openai", "model": "m", "messages": [{"role": "user", "content": "hi"}],
        "response": "def f(): pass", "tokens_in": 3, "tokens_out": 4, "latency_s": 0.5, "seed": 1}


def fence_selects(store: Store) -> list[str]:
    """Every fence check's SQL from now on (the SELECTs of a trial's status and started_at)."""
    seen: list[str] = []

    def spy(conn, cursor, statement, parameters, context, executemany) -> None:  # noqa: ANN001 - SQLAlchemy's hook
        if "trial.status, trial.started_at" in statement and "FROM trial" in statement:
            seen.append(statement)

    event.listen(store.engine, "before_cursor_execute", spy)
    return seen


@pytest.mark.parametrize("batched", [True, False])
def test_one_fence_select_per_group_refuses_only_the_superseded_step(tmp_path, batched: bool) -> None:
    db = tmp_path / "runs.db"
    store = Store.open(str(db))
    run_id = store.create_run("batch", "fences", {})
    for index in range(5):
        store.create_trial(run_id, f"p{index}", "single-oneshot", 0, 0, status="queued")
    first, *rest = [leases.claim_trial(store, run_id) for _ in range(5)]
    groups = store._step_groups
    assert groups is not None
    groups.batched_fences = batched
    selects = fence_selects(store)
    outcome: dict[int, object] = {}

    def write(trial, token) -> None:
        try:
            outcome[trial.id] = store.fenced(trial.id, token).record_step(
                trial.id, "generator", 0, started_at=utcnow(), ended_at=utcnow(), output={"code": "x"},
                llm_calls=[CALL])
        except SupersededError as exc:
            outcome[trial.id] = exc

    lock = sqlite3.connect(db, isolation_level=None, timeout=60)
    lock.execute("BEGIN IMMEDIATE")  # the first step waits on it alone; the others queue behind it
    leader = threading.Thread(target=write, args=(first, first.started_at))
    leader.start()
    wait_until(lambda: len(selects) == 0 and groups._leader.locked(), 120, "the first step to take the step lock")
    stale = rest[-1]
    tokens = {t.id: t.started_at for t in rest[:-1]} | {stale.id: stale.started_at - timedelta(seconds=1)}
    threads = [threading.Thread(target=write, args=(t, tokens[t.id])) for t in rest]
    for thread in threads:
        thread.start()
    wait_until(lambda: groups.queued() == 4, 120, "four steps queued behind the first")
    lock.commit()
    lock.close()
    for thread in [leader, *threads]:
        thread.join(120)
        assert not thread.is_alive()
    assert isinstance(outcome[stale.id], SupersededError) and f"trial {stale.id}" in str(outcome[stale.id])
    assert all(isinstance(outcome[t.id], int) for t in [first, *rest[:-1]])
    assert groups.transactions == 2 and groups.steps == 4
    assert len(selects) == (2 if batched else 5)  # the first's own check, then the group's: one, or one per step
    assert store.steps_for_trial(stale.id) == [] and len(store.llm_calls_for_trial(stale.id)) == 0
    for trial in [first, *rest[:-1]]:
        assert [s.seq for s in store.steps_for_trial(trial.id)] == [1]
        assert len(store.llm_calls_for_trial(trial.id)) == 1
    store.close()
