"""Leases for background work: which worker owns a run, which trial a worker is running.

Claims are single conditional UPDATEs, so two workers (threads, processes or
machines sharing PostgreSQL) can never own the same run or run the same trial.
A worker that dies stops heart-beating; after `stale_after_s` its run may be
claimed again, and its in-flight trials are wiped and re-queued, never duplicated.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import and_, delete, or_, select, update

from execugraph.store.engine import writer
from execugraph.store.models import Execution, LLMCall, RetrievalHit, Run, Step, Trial, utcnow

RUN = Run.__table__  # type: ignore[attr-defined]
TRIAL = Trial.__table__  # type: ignore[attr-defined]
CLAIMABLE_KINDS = ("batch",)
# The Trial columns a rerun starts from: no outcome, no cost, not finished.
NO_RESULT = {
    "passed": None, "tests_passed": 0, "tests_total": 0, "retries_used": 0, "error_class": None,
    "test_source": None, "final_code": None, "explanation": None, "message": None, "wallclock_s": 0.0,
    "tokens_in": 0, "tokens_out": 0, "llm_calls": 0, "finished_at": None,
}


def claim_run(store: Any, worker_id: str, stale_after_s: float = 30.0, only: int | None = None) -> int | None:
    """Take the oldest queued run (or run `only`), or a running one whose worker stopped heart-beating."""
    cutoff = utcnow() - timedelta(seconds=stale_after_s)
    free = or_(
        RUN.c.worker_id.is_(None),
        RUN.c.heartbeat_at.is_(None),
        RUN.c.heartbeat_at < cutoff,
        RUN.c.worker_id == worker_id,
    )
    wanted = and_(
        RUN.c.kind.in_(CLAIMABLE_KINDS),
        RUN.c.status.in_(("queued", "running")),
        RUN.c.cancel_requested.is_(False),
        free,
    )
    if only is not None:
        wanted = and_(wanted, RUN.c.id == only)
    with store.engine.connect() as conn:
        candidates = [row.id for row in conn.execute(select(RUN.c.id).where(wanted).order_by(RUN.c.id).limit(20))]
    now = utcnow()
    for run_id in candidates:
        with writer(store.engine).begin() as conn:
            claimed = conn.execute(
                update(RUN)
                .where(RUN.c.id == run_id, wanted)
                .values(worker_id=worker_id, heartbeat_at=now, status="running")
            ).rowcount
            if claimed:
                conn.execute(update(RUN).where(RUN.c.id == run_id, RUN.c.started_at.is_(None)).values(started_at=now))
                return run_id
    return None


def heartbeat(store: Any, run_id: int, worker_id: str) -> bool:
    """Renew the lease; False when another worker took the run over (stop working on it)."""
    with writer(store.engine).begin() as conn:
        return bool(
            conn.execute(
                update(RUN).where(RUN.c.id == run_id, RUN.c.worker_id == worker_id).values(heartbeat_at=utcnow())
            ).rowcount
        )


def release_run(store: Any, run_id: int, worker_id: str, status: str, error: str | None = None) -> None:
    """Give the run up with its final (or paused) status."""
    values: dict[str, Any] = {"worker_id": None, "heartbeat_at": None, "status": status}
    if status in ("done", "failed", "cancelled"):
        values["finished_at"] = utcnow()
    if error is not None:
        values["error"] = error
    with writer(store.engine).begin() as conn:
        conn.execute(update(RUN).where(RUN.c.id == run_id, RUN.c.worker_id == worker_id).values(**values))


def requeue_inflight(store: Any, run_id: int) -> int:
    """Wipe the partial trace of trials left `running` by a dead worker and queue them again."""
    with writer(store.engine).begin() as conn:
        ids = [
            r.id for r in conn.execute(select(TRIAL.c.id).where(TRIAL.c.run_id == run_id, TRIAL.c.status == "running"))
        ]
        if not ids:
            return 0
        _delete_children(conn, ids)
        conn.execute(
            update(TRIAL)
            .where(TRIAL.c.id.in_(ids))
            .values(
                status="queued",
                **NO_RESULT,
                started_at=None,
            )
        )
        return len(ids)


def _delete_children(conn: Any, trial_ids: list[int]) -> None:
    step_ids = select(Step.__table__.c.id).where(Step.__table__.c.trial_id.in_(trial_ids))  # type: ignore[attr-defined]
    for model in (RetrievalHit, Execution, LLMCall):
        table = model.__table__  # type: ignore[attr-defined]
        conn.execute(
            delete(table).where(
                or_(table.c.trial_id.in_(trial_ids), *([table.c.step_id.in_(step_ids)] if "step_id" in table.c else []))
            )
        )
    conn.execute(delete(Step.__table__).where(Step.__table__.c.trial_id.in_(trial_ids)))  # type: ignore[attr-defined]


def claim_trial(store: Any, run_id: int) -> Any | None:
    """Atomically move one queued trial of the run to `running` and return it (None when none is left)."""
    while True:
        with store.engine.connect() as conn:
            row = conn.execute(
                select(TRIAL.c.id)
                .where(TRIAL.c.run_id == run_id, TRIAL.c.status == "queued")
                .order_by(TRIAL.c.id)
                .limit(1)
            ).first()
        if row is None:
            return None
        with writer(store.engine).begin() as conn:
            won = conn.execute(
                update(TRIAL)
                .where(TRIAL.c.id == row.id, TRIAL.c.status == "queued")
                .values(status="running", started_at=utcnow())
            ).rowcount
        if won:
            return store.get_trial(row.id)


def cancel_queued(store: Any, run_id: int) -> int:
    """Mark the run's still-queued trials cancelled (they are re-queued on resume)."""
    with writer(store.engine).begin() as conn:
        return conn.execute(
            update(TRIAL).where(TRIAL.c.run_id == run_id, TRIAL.c.status == "queued").values(status="cancelled")
        ).rowcount


def requeue_cancelled(store: Any, run_id: int) -> int:
    """Resume: cancelled and errored trials go back to the queue; completed ones are kept."""
    with writer(store.engine).begin() as conn:
        ids = [
            r.id
            for r in conn.execute(
                select(TRIAL.c.id).where(TRIAL.c.run_id == run_id, TRIAL.c.status.in_(("cancelled", "error")))
            )
        ]
        if ids:
            _delete_children(conn, ids)
            conn.execute(
                update(TRIAL)
                .where(TRIAL.c.id.in_(ids))
                .values(status="queued", message=None, started_at=None, finished_at=None)
            )
        conn.execute(
            update(RUN)
            .where(RUN.c.id == run_id)
            .values(status="queued", cancel_requested=False, finished_at=None, error=None)
        )
        return len(ids)


def llm_calls_for_run(store: Any, run_id: int, role: str | None = None) -> list[Any]:
    """Every recorded LLM call of a run in order (for replay)."""
    call = LLMCall.__table__  # type: ignore[attr-defined]
    stmt = select(call).join(TRIAL, TRIAL.c.id == call.c.trial_id).where(TRIAL.c.run_id == run_id)
    if role is not None:
        stmt = stmt.where(call.c.role == role)
    with store.engine.connect() as conn:
        return list(conn.execute(stmt.order_by(call.c.id)))


def reset_trial(store: Any, trial_id: int, status: str = "running") -> Any:
    """Wipe one trial's partial trace and results so it can run again; returns its new started_at.

    Used when a trial must be rerun inside a live run (its Ray worker died, its LLM
    endpoint was drained). With status `running` the trial gets a fresh started_at,
    which scale-out workers use as the attempt's fencing token: a superseded
    attempt's writes are refused because the token no longer matches.
    """
    if status not in ("running", "queued", "cancelled"):
        raise ValueError(f"reset_trial: status must be running, queued or cancelled, not {status!r}")
    started = utcnow() if status == "running" else None
    with writer(store.engine).begin() as conn:
        _delete_children(conn, [trial_id])
        changed = conn.execute(
            update(TRIAL)
            .where(TRIAL.c.id == trial_id)
            .values(
                status=status,
                **NO_RESULT,
                started_at=started,
            )
        ).rowcount
    if not changed:
        raise LookupError(f"trial {trial_id} does not exist")
    return started
