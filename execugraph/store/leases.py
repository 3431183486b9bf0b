"""Leases for background work: which worker owns a run, which trial a worker is running.

Claims are single conditional UPDATEs, so two workers (threads, processes or
machines sharing PostgreSQL) can never own the same run or run the same trial.
A worker holds a run until `lease_expires_at`, which it pushes forward with
every renewal (its own lease length, so a takeover honours the holder's
setting). Only after that instant may another worker claim the run; the new
owner then wipes and re-queues the trials left `running`, which also changes
their fencing token (`started_at`), so the old owner's late writes are refused
(see `fencing`). A cancel-requested run is never claimed: once its lease runs out,
`finish_orphaned_cancels` ends the cancel its dead worker cannot. Every write here is retried on transient database errors
(`retry`), except a lease renewal: the heartbeat retries that itself, because
each renewal must carry the time it was sent.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, and_, case, delete, or_, select, update

from execugraph.store.engine import writer
from execugraph.store.models import Execution, LLMCall, RetrievalHit, Run, Step, Trial, utcnow
from execugraph.store.queries import run_progress
from execugraph.store.retry import write_transaction

if TYPE_CHECKING:
    from execugraph.store.store import Store

RUN = Run.__table__  # type: ignore[attr-defined]
TRIAL = Trial.__table__  # type: ignore[attr-defined]
CLAIMABLE_KINDS = ("batch",)
# The Trial columns a rerun starts from: no outcome, no cost, not finished.
NO_RESULT = {
    "passed": None, "tests_passed": 0, "tests_total": 0, "retries_used": 0, "error_class": None,
    "test_source": None, "final_code": None, "explanation": None, "message": None, "wallclock_s": 0.0,
    "tokens_in": 0, "tokens_out": 0, "llm_calls": 0, "finished_at": None,
}


class LeaseLostError(RuntimeError):
    """This worker no longer holds the run (another worker took it over, or it was released)."""


def _expired(now: datetime, stale_after_s: float) -> Any:
    """The run's lease has run out: past its stored end, or (rows leased before lease ends were
    stored) its last heartbeat is older than `stale_after_s`."""
    return or_(
        RUN.c.heartbeat_at.is_(None),
        and_(RUN.c.lease_expires_at.is_not(None), RUN.c.lease_expires_at < now),
        and_(RUN.c.lease_expires_at.is_(None), RUN.c.heartbeat_at < now - timedelta(seconds=stale_after_s)),
    )


def claim_run(store: Store, worker_id: str, stale_after_s: float = 30.0, only: int | None = None) -> int | None:
    """Take the oldest queued run (or run `only`), or a running one whose lease has run out.

    `stale_after_s` is this worker's lease length: the claimed run is held until
    now + `stale_after_s` unless renewed (`heartbeat`).
    """
    now = utcnow()
    free = or_(RUN.c.worker_id.is_(None), RUN.c.worker_id == worker_id, _expired(now, stale_after_s))
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
    for run_id in candidates:

        def claim(conn: Connection, run_id: int = run_id) -> bool:
            at = utcnow()  # the lease starts when the claim is made, not when the candidates were read
            held = and_(wanted, RUN.c.id == run_id)
            claimed = conn.execute(
                update(RUN)
                .where(held)
                .values(
                    worker_id=worker_id,
                    heartbeat_at=at,
                    lease_expires_at=at + timedelta(seconds=stale_after_s),
                    status="running",
                )
            ).rowcount
            if claimed:
                conn.execute(update(RUN).where(RUN.c.id == run_id, RUN.c.started_at.is_(None)).values(started_at=at))
            return bool(claimed)

        if write_transaction(store.engine, claim, what=f"claim run {run_id}"):
            return run_id
    return None


def heartbeat(store: Store, run_id: int, worker_id: str, *, lease_s: float = 30.0, at: datetime | None = None) -> bool:
    """Renew the lease once: held until `at` (default now) + `lease_s`; False when another worker holds the run.

    Not retried: a renewal that waited for a lock must not claim to be newer than
    when it was sent, so callers (`run_lease.RunLease`) retry with a fresh `at`.
    """
    at = at or utcnow()
    with writer(store.engine).begin() as conn:
        return bool(
            conn.execute(
                update(RUN)
                .where(RUN.c.id == run_id, RUN.c.worker_id == worker_id)
                .values(heartbeat_at=at, lease_expires_at=at + timedelta(seconds=lease_s))
            ).rowcount
        )


@dataclass(frozen=True)
class HeldRun:
    """A running run leased to some worker, and until when."""

    run_id: int
    worker_id: str
    expires_at: datetime | None


def leased_runs(store: Store, stale_after_s: float = 30.0) -> list[HeldRun]:
    """Running runs whose worker holds a lease, with the instant it ends (a `worker --once` waits on these:
    to take them over, or, cancel-requested, to finish their cancel once the lease runs out)."""
    with store.engine.connect() as conn:
        rows = conn.execute(
            select(RUN.c.id, RUN.c.worker_id, RUN.c.lease_expires_at, RUN.c.heartbeat_at)
            .where(
                RUN.c.kind.in_(CLAIMABLE_KINDS),
                RUN.c.status.in_(("queued", "running")),
                RUN.c.worker_id.is_not(None),
            )
            .order_by(RUN.c.id)
        ).all()
    held = []
    for run_id, worker_id, expires, beat in rows:
        if expires is None and beat is not None:
            expires = beat + timedelta(seconds=stale_after_s)
        held.append(HeldRun(int(run_id), str(worker_id), expires))
    return held


def release_run(store: Store, run_id: int, worker_id: str, status: str, error: str | None = None) -> None:
    """Give the run up with its final (or paused) status (a no-op if another worker holds it now)."""
    values: dict[str, object] = {"worker_id": None, "heartbeat_at": None, "lease_expires_at": None, "status": status}
    if status in ("done", "failed", "cancelled"):
        values["finished_at"] = utcnow()
    if error is not None:
        values["error"] = error
    write_transaction(
        store.engine,
        lambda conn: conn.execute(update(RUN).where(RUN.c.id == run_id, RUN.c.worker_id == worker_id).values(**values)),
        what=f"release run {run_id}",
    )


def _lock_trials(conn: Connection, where: Any) -> list[int]:
    """Ids of the trials matching `where`, row-locked (PostgreSQL) before their trace is touched, so a
    fenced write in flight either commits first (and is wiped with the rest) or sees the new token."""
    return [r.id for r in conn.execute(select(TRIAL.c.id).where(where).order_by(TRIAL.c.id).with_for_update())]


def requeue_inflight(store: Store, run_id: int) -> int:
    """Wipe the partial trace of trials left `running` by a dead worker and queue them again."""

    def work(conn: Connection) -> int:
        ids = _lock_trials(conn, and_(TRIAL.c.run_id == run_id, TRIAL.c.status == "running"))
        if not ids:
            return 0
        _delete_children(conn, ids)
        conn.execute(update(TRIAL).where(TRIAL.c.id.in_(ids)).values(status="queued", **NO_RESULT, started_at=None))
        return len(ids)

    return write_transaction(store.engine, work, what=f"re-queue the unfinished trials of run {run_id}")


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


@dataclass(frozen=True)
class TailOrder:
    """How a run's last queued trials are claimed: heavier conditions first (the rule: `execugraph.batch.order`)."""

    weights: Mapping[str, int]  # condition -> its weight (expected model calls); conditions not named weigh 0
    tail: int  # applies once at most this many of the run's trials are queued; before that, id order


def claim_trial(
    store: Store, run_id: int, worker_id: str | None = None, order: TailOrder | None = None
) -> Trial | None:
    """Atomically move one queued trial of the run to `running` and return it (None when none is left).

    With `worker_id`, the claim happens only while that worker holds the run
    (checked in the same transaction); otherwise LeaseLostError is raised.
    Trials are claimed in id order; with `order`, the last `order.tail` queued ones heaviest first, ties by id.
    """

    token = utcnow()  # the claim's start time, and how a rerun of it recognises its own claim

    def claim(conn: Connection) -> int | None:
        if worker_id is not None:
            owner = conn.execute(
                select(RUN.c.id).where(RUN.c.id == run_id, RUN.c.worker_id == worker_id).with_for_update(read=True)
            ).first()
            if owner is None:
                raise LeaseLostError(f"run {run_id} is no longer held by {worker_id}")
        queued = select(TRIAL.c.id).where(TRIAL.c.run_id == run_id, TRIAL.c.status == "queued")
        first: list[Any] = [TRIAL.c.id]
        if order is not None:  # in the tail when no queued trial lies beyond it (reads at most tail + 1 entries)
            beyond = conn.execute(queued.order_by(TRIAL.c.id).offset(order.tail).limit(1)).first()
            if beyond is None:
                first = [case(dict(order.weights), value=TRIAL.c.condition, else_=0).desc(), TRIAL.c.id]
        row = conn.execute(queued.order_by(*first).limit(1).with_for_update(skip_locked=True)).first()
        if row is None:
            return None
        won = conn.execute(
            update(TRIAL)
            .where(TRIAL.c.id == row.id, TRIAL.c.status == "queued")
            .values(status="running", started_at=token)
        ).rowcount
        return row.id if won else -1

    def claimed(conn: Connection) -> int | None:
        """The trial this claim took, if a commit whose answer was lost already took one."""
        row = conn.execute(select(TRIAL.c.id).where(TRIAL.c.run_id == run_id, TRIAL.c.status == "running",
                                                    TRIAL.c.started_at == token)).first()
        return None if row is None else int(row.id)

    while True:
        trial_id = write_transaction(store.engine, claim, what=f"claim a trial of run {run_id}", found=claimed)
        if trial_id is None:
            return None
        if trial_id > 0:
            return store.get_trial(trial_id)


def cancel_queued(store: Store, run_id: int) -> int:
    """Mark the run's still-queued trials cancelled (they are re-queued on resume)."""
    return write_transaction(
        store.engine,
        lambda conn: conn.execute(
            update(TRIAL).where(TRIAL.c.run_id == run_id, TRIAL.c.status == "queued").values(status="cancelled")
        ).rowcount,
        what=f"cancel the queued trials of run {run_id}",
    )


def cancel_now(store: Store, run_id: int) -> int:
    """Cancel the run and abandon its trials in flight: they become `cancelled` (partial trace wiped, rerun
    on resume) and, since their fencing token is gone, their attempts' later writes are refused.
    Returns how many trials in flight were abandoned."""

    def work(conn: Connection) -> int:
        conn.execute(update(RUN).where(RUN.c.id == run_id).values(cancel_requested=True))
        conn.execute(update(TRIAL).where(TRIAL.c.run_id == run_id, TRIAL.c.status == "queued").values(status="cancelled"))
        ids = _lock_trials(conn, and_(TRIAL.c.run_id == run_id, TRIAL.c.status == "running"))
        if ids:
            _delete_children(conn, ids)
            conn.execute(
                update(TRIAL).where(TRIAL.c.id.in_(ids)).values(status="cancelled", **NO_RESULT, started_at=None)
            )
        return len(ids)

    return write_transaction(store.engine, work, what=f"cancel run {run_id} now")


def _orphaned_cancel(now: datetime, stale_after_s: float) -> Any:
    """A cancel no worker will finish: requested on a run nobody holds, or whose holder's lease ran out
    (killed, or stopped by a full disk or a database unusable past its retry budget)."""
    return and_(
        RUN.c.kind.in_(CLAIMABLE_KINDS),
        RUN.c.status.in_(("queued", "running")),
        RUN.c.cancel_requested.is_(True),
        or_(RUN.c.worker_id.is_(None), _expired(now, stale_after_s)),
    )


def finish_orphaned_cancels(store: Store, stale_after_s: float = 30.0, only: int | None = None) -> list[int]:
    """End the cancels whose worker is gone, as that worker would have; returns the runs ended.

    A cancel-requested run is never claimed (`claim_run`), so a run whose worker died after (or
    before) the cancel would stay `running` for ever. Here, once its lease has run out, the
    trials it left `running` are wiped and cancelled (their fencing token goes, so a frozen
    worker's late writes are refused; resume reruns them), its queued trials are cancelled and
    the run is released as `cancelled`. Workers call this on every poll; `cancel` calls it too.
    """
    now = utcnow()
    wanted = _orphaned_cancel(now, stale_after_s)
    if only is not None:
        wanted = and_(wanted, RUN.c.id == only)
    with store.engine.connect() as conn:
        candidates = [int(r.id) for r in conn.execute(select(RUN.c.id).where(wanted).order_by(RUN.c.id))]
    ended = []
    for run_id in candidates:

        def work(conn: Connection, run_id: int = run_id) -> bool:
            at = utcnow()
            if not conn.execute(
                update(RUN)
                .where(RUN.c.id == run_id, _orphaned_cancel(at, stale_after_s))
                .values(status="cancelled", worker_id=None, heartbeat_at=None, lease_expires_at=None, finished_at=at)
            ).rowcount:
                return False  # a live worker holds it again, or someone else ended it
            ids = _lock_trials(conn, and_(TRIAL.c.run_id == run_id, TRIAL.c.status == "running"))
            if ids:
                _delete_children(conn, ids)
                conn.execute(
                    update(TRIAL).where(TRIAL.c.id.in_(ids)).values(status="cancelled", **NO_RESULT, started_at=None)
                )
            conn.execute(
                update(TRIAL).where(TRIAL.c.run_id == run_id, TRIAL.c.status == "queued").values(status="cancelled")
            )
            counts = run_progress(conn, run_id)
            conn.execute(
                update(RUN)
                .where(RUN.c.id == run_id)
                .values(progress_done=counts["done"] + counts["error"], progress_passed=counts["passed"])
            )
            return True

        def found(conn: Connection, run_id: int = run_id) -> bool | None:
            """A commit whose answer was lost already ended it."""
            row = conn.execute(select(RUN.c.status).where(RUN.c.id == run_id)).first()
            return True if row is not None and row.status == "cancelled" else None

        if write_transaction(store.engine, work, what=f"finish the cancel of run {run_id}", found=found):
            ended.append(run_id)
    return ended


def attempts_still_held(store: Store, attempts: dict[int, datetime]) -> set[int]:
    """Which of these attempts (trial id -> fencing token) still own their trial: running, same token."""
    if not attempts:
        return set()
    with store.engine.connect() as conn:
        rows = conn.execute(
            select(TRIAL.c.id, TRIAL.c.started_at).where(TRIAL.c.id.in_(list(attempts)), TRIAL.c.status == "running")
        ).all()
    return {int(r.id) for r in rows if r.started_at == attempts[int(r.id)]}


def requeue_cancelled(store: Store, run_id: int) -> int:
    """Resume: cancelled and errored trials go back to the queue; completed ones are kept."""

    def work(conn: Connection) -> int:
        ids = _lock_trials(conn, and_(TRIAL.c.run_id == run_id, TRIAL.c.status.in_(("cancelled", "error"))))
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

    return write_transaction(store.engine, work, what=f"resume run {run_id}")


def reset_trial(store: Store, trial_id: int, status: str = "running") -> datetime | None:
    """Wipe one trial's partial trace and results so it can run again; returns its new started_at.

    Used when a trial must be rerun inside a live run (its Ray worker died, its LLM
    endpoint was drained), and by an attempt that stops (through its fenced store: refused
    with SupersededError once the trial was taken from it, say by a cancel now). With status `running` the trial gets a fresh started_at,
    which scale-out workers use as the attempt's fencing token: a superseded
    attempt's writes are refused because the token no longer matches.
    """
    if status not in ("running", "queued", "cancelled"):
        raise ValueError(f"reset_trial: status must be running, queued or cancelled, not {status!r}")

    def work(conn: Connection) -> datetime | None:
        if not _lock_trials(conn, TRIAL.c.id == trial_id):
            raise LookupError(f"trial {trial_id} does not exist")
        if store.fence is not None:  # an attempt putting its own trial back: only while it still owns it
            store.fence.check(conn)
        started = utcnow() if status == "running" else None
        _delete_children(conn, [trial_id])
        conn.execute(update(TRIAL).where(TRIAL.c.id == trial_id).values(status=status, **NO_RESULT, started_at=started))
        return started

    return write_transaction(store.engine, work, what=f"reset trial {trial_id}")
