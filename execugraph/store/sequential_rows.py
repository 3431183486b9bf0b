"""What a sequential batch reads and writes between looks: finished outcomes, and arms it stops."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from sqlalchemy import select, update

from execugraph.store.models import Trial
from execugraph.store.retry import run_with_retry, write_transaction
from execugraph.store.validation import table_of

if TYPE_CHECKING:
    from execugraph.store.store import Store

TRIAL = table_of(Trial)


def finished_outcomes(store: Store, run_id: int) -> list[tuple[str, str, bool]]:
    """(problem, condition, passed) of every finished trial of the run; an errored trial has not passed."""

    def read() -> list[tuple[str, str, bool]]:
        with store.engine.connect() as conn:
            rows = conn.execute(
                select(TRIAL.c.problem_id, TRIAL.c.condition, TRIAL.c.status, TRIAL.c.passed)
                .where(TRIAL.c.run_id == run_id, TRIAL.c.status.in_(("done", "error")))
            ).all()
        return [(str(p), str(c), bool(s == "done" and passed)) for p, c, s, passed in rows]

    return run_with_retry(read, what=f"read the finished trials of run {run_id}")


def stop_arms(store: Store, run_id: int, conditions: Sequence[str]) -> int:
    """Cancel the queued trials of these conditions (a decided comparison needs no more); how many."""
    if not conditions:
        return 0
    return write_transaction(
        store.engine,
        lambda conn: conn.execute(
            update(TRIAL)
            .where(TRIAL.c.run_id == run_id, TRIAL.c.status == "queued", TRIAL.c.condition.in_(list(conditions)))
            .values(status="cancelled")
        ).rowcount,
        what=f"stop arms of run {run_id}",
    )
