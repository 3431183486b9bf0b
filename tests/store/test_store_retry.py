"""Store writes ride out transient database errors (real SQLite locks, real PostgreSQL deadlocks and dropped
connections) and give up with a clear error only after the retry budget; a superseded attempt never writes."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.exc import IntegrityError, OperationalError

from execugraph.batch.control import enqueue_batch
from execugraph.store import Store, StoreBusyError, SupersededError, leases
from execugraph.store.retry import RetryPolicy, is_transient, run_with_retry, write_transaction
from standins.db_lock import DatabaseLock
from tests.batch.test_runner import problems, spec

pytestmark = pytest.mark.integration


def quick_engine(path: Path):
    """A plain SQLite engine with a 0.1 s busy timeout, so each locked attempt fails fast."""
    engine = create_engine(f"sqlite:///{path}", connect_args={"timeout": 0.1})
    with engine.begin() as conn:
        conn.execute(text("CREATE TABLE IF NOT EXISTS t (x INTEGER)"))
    return engine


def test_a_locked_sqlite_write_is_retried_until_the_lock_goes(tmp_path: Path) -> None:
    engine = quick_engine(tmp_path / "r.db")
    with DatabaseLock(f"sqlite:///{tmp_path / 'r.db'}", 1.5) as lock:
        began = time.monotonic()
        write_transaction(engine, lambda conn: conn.execute(text("INSERT INTO t VALUES (1)")), what="insert one row")
        waited = time.monotonic() - began
        lock.wait_released()
    assert waited >= 0.5
    with engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM t")).scalar() == 1


def test_past_the_budget_the_error_names_the_write_and_stores_nothing(tmp_path: Path) -> None:
    engine = quick_engine(tmp_path / "r.db")
    with DatabaseLock(f"sqlite:///{tmp_path / 'r.db'}", 5.0):
        with pytest.raises(StoreBusyError) as caught:
            write_transaction(
                engine,
                lambda conn: conn.execute(text("INSERT INTO t VALUES (1)")),
                what="record the grade step of trial 7",
                policy=RetryPolicy(budget_s=0.8),
            )
    message = str(caught.value)
    assert message.startswith("record the grade step of trial 7: the database stayed unavailable for")
    assert "database is locked" in message and "nothing of this write was stored" in message
    with engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM t")).scalar() == 0


def test_errors_retrying_cannot_fix_are_raised_at_once(tmp_path: Path) -> None:
    calls = []

    def broken() -> None:
        calls.append(1)
        raise sqlite3.OperationalError("no such table: nope")

    with pytest.raises(sqlite3.OperationalError):
        run_with_retry(broken, what="read nope")
    assert calls == [1]
    engine = quick_engine(tmp_path / "r.db")
    with engine.begin() as conn:
        conn.execute(text("CREATE UNIQUE INDEX u ON t (x)"))
        conn.execute(text("INSERT INTO t VALUES (1)"))
    with pytest.raises(IntegrityError):
        write_transaction(engine, lambda conn: conn.execute(text("INSERT INTO t VALUES (1)")), what="insert")


def test_real_postgresql_deadlocks_and_dropped_connections_are_transient(pg_url: str) -> None:
    store = Store.open(pg_url)  # creates the tables
    a_id = store.create_run("single", "a", {})
    b_id = store.create_run("single", "b", {})
    engine = store.engine
    barrier = threading.Barrier(2)
    errors: list[BaseException] = []

    def cross(first: int, second: int) -> None:
        try:
            with engine.begin() as conn:
                conn.execute(text("UPDATE run SET title = 'x' WHERE id = :i"), {"i": first})
                barrier.wait(timeout=30)
                conn.execute(text("UPDATE run SET title = 'y' WHERE id = :i"), {"i": second})
        except OperationalError as exc:
            errors.append(exc)

    threads = [threading.Thread(target=cross, args=pair) for pair in ((a_id, b_id), (b_id, a_id))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert len(errors) == 1 and type(errors[0].orig).__name__ == "DeadlockDetected"
    assert is_transient(errors[0])

    with pytest.raises(OperationalError) as dropped, engine.connect() as conn:
        conn.execute(text("SELECT pg_terminate_backend(pg_backend_pid())"))
    assert is_transient(dropped.value)
    store.create_run("single", "after the drop", {})  # the store carries on with a fresh connection

    with pytest.raises(Exception) as bad:  # noqa: PT011 - whatever psycopg raises for bad SQL
        with engine.connect() as conn:
            conn.execute(text("SELEKT 1"))
    assert not is_transient(bad.value)


def test_a_superseded_attempt_never_lands_a_step_while_its_trial_is_reset(store: Store) -> None:
    """Writer and resetter race for a while; every step left must carry the token of the current attempt."""
    run_id = enqueue_batch(store, spec(conditions=["single-oneshot"], seeds=[0]), problems(1))
    trial = leases.claim_trial(store, run_id)
    tokens = [trial.started_at]
    stop = threading.Event()
    refused = []

    def write() -> None:
        while not stop.is_set():
            token = tokens[-1]
            attempt = store.fenced(trial.id, token)
            try:
                attempt.record_step(trial.id, "generator", started_at=token, output={"token": token.isoformat()})
            except SupersededError:
                refused.append(token)

    writers = [threading.Thread(target=write) for _ in range(3)]
    for w in writers:
        w.start()
    for _ in range(25):
        tokens.append(leases.reset_trial(store, trial.id))
        time.sleep(0.01)  # let the writers race the next reset
    stop.set()
    for w in writers:
        w.join(timeout=60)
    current = store.get_trial(trial.id).started_at
    steps = store.steps_for_trial(trial.id)
    assert all(s.output["token"] == current.isoformat() for s in steps)
    assert refused  # the race happened: stale attempts were turned away


def _lost_commit_answer(backend: str) -> OperationalError:
    """What the driver raises when the connection drops between the server's commit and its answer."""
    if backend == "postgresql":
        import psycopg

        return OperationalError("COMMIT", {}, psycopg.OperationalError("server closed the connection unexpectedly"))
    return OperationalError("COMMIT", {}, sqlite3.OperationalError("database is locked"))


def test_a_step_whose_commit_answer_was_lost_is_stored_once(store: Store) -> None:
    """The first write commits, then fails as if its answer never came back; the store's rerun finds the
    step already there instead of adding a second copy with the next number (and its LLM calls again)."""
    from sqlalchemy import event
    from sqlmodel import Session

    from execugraph.store import utcnow

    run_id = enqueue_batch(store, spec(conditions=["single-oneshot"], seeds=[0]), problems(1))
    trial = leases.claim_trial(store, run_id)
    lost: list[int] = []

    def answer_lost(session: Session) -> None:
        if not lost:
            lost.append(1)
            raise _lost_commit_answer(store.engine.dialect.name)

    call = {"role": "generator", "provider": "ollama", "model": "m", "messages": [{"role": "user", "content": "q"}],
            "response": "a", "tokens_in": 3, "tokens_out": 1, "latency_s": 0.1, "created_at": utcnow()}
    event.listen(Session, "after_commit", answer_lost)
    try:
        first = store.record_step(trial.id, "generator", 0, started_at=utcnow(), ended_at=utcnow(),
                                  output={"code": "x"}, llm_calls=[call])
    finally:
        event.remove(Session, "after_commit", answer_lost)
    assert lost == [1]  # the answer was lost once, so the write was rerun
    second = store.record_step(trial.id, "evaluator", 0, started_at=utcnow(), ended_at=utcnow())
    steps = store.steps_for_trial(trial.id)
    assert [(s.id, s.seq, s.node) for s in steps] == [(first, 1, "generator"), (second, 2, "evaluator")]
    assert len(store.llm_calls_for_trial(trial.id)) == 1


def lose_the_next_commit_answer(store: Store, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Make the next commit go through on the server and then fail as if its answer never came back;
    the returned list gets one entry when that happened."""
    dialect = store.engine.dialect
    commit = dialect.do_commit
    lost: list[int] = []

    def commit_then_lose_the_answer(dbapi_connection: object) -> None:
        commit(dbapi_connection)
        if not lost:
            lost.append(1)
            raise _lost_commit_answer(dialect.name)

    monkeypatch.setattr(dialect, "do_commit", commit_then_lose_the_answer)
    return lost


def test_a_claim_whose_commit_answer_was_lost_is_not_claimed_twice(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """The claim commits, its answer is lost, the claim is rerun: it returns the trial it took, and no other
    trial is left `running` with nobody to run it."""
    run_id = enqueue_batch(store, spec(conditions=["single-oneshot"], seeds=[0, 1]), problems(2))
    lost = lose_the_next_commit_answer(store, monkeypatch)
    trial = leases.claim_trial(store, run_id)
    monkeypatch.undo()
    assert lost == [1] and trial is not None
    statuses = sorted((t.id, t.status) for t in store.trials_for_run(run_id))
    assert [s for _, s in statuses] == ["running", "queued", "queued", "queued"]
    assert statuses[0][0] == trial.id


def test_a_run_whose_commit_answer_was_lost_is_created_once(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """Creating a run (the first write of a new batch) is rerun after its answer was lost: one run."""
    lost = lose_the_next_commit_answer(store, monkeypatch)
    run_id = store.create_run("batch", "internal30: single-oneshot x seeds [0]", {"batch": {}})
    monkeypatch.undo()
    assert lost == [1]
    assert [(r.id, r.title) for r in store.list_runs()] == [(run_id, "internal30: single-oneshot x seeds [0]")]
    assert store.create_run("batch", "internal30: single-oneshot x seeds [0]", {"batch": {}}) != run_id
