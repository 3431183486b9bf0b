"""Trace rows written one at a time (a step started, a step finished, a trial's retrieval hits), as tests seed them.

The agent loop writes a finished step with its calls, executions and hits in one transaction
(`Store.record_step`); these piecewise writes were Store methods only tests used, so they live
here. They go through the store's own transaction, fencing and validation helpers, so a fenced
view still refuses them and bad rows are still named as before.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import insert
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from execugraph.store import RetrievalHit, Step, Store, Trial, utcnow
from execugraph.store.trace_rows import _lock_trial_for_steps
from execugraph.store.validation import check_fields, table_of


def add_step(store: Store, trial_id: int, node: str, attempt: int = 0, output: dict[str, Any] | None = None) -> int:
    """Record that `node` started in the trial; return the step id. `seq` is the next number in the trial.

    The number is taken under the trial's row lock (PostgreSQL) or the
    database write lock (SQLite), so concurrent writers never collide.
    """
    store._own(trial_id)
    steps = table_of(Step)

    def work(session: Session) -> int:
        next_seq = _lock_trial_for_steps(session, trial_id)
        result = session.exec(
            insert(steps).values(
                trial_id=trial_id,
                seq=next_seq.scalar_subquery(),
                node=node,
                attempt=attempt,
                started_at=utcnow(),
                output=output,
            )
        )
        return int(result.inserted_primary_key[0])  # type: ignore[index]

    return store._transact(f"add a {node} step to trial {trial_id}", work)


def finish_step(store: Store, step_id: int, output: dict[str, Any] | None = None) -> None:
    """Mark the step ended now, replacing its output when one is given."""
    fields: dict[str, Any] = {"ended_at": utcnow()}
    if output is not None:
        fields["output"] = output
    store._update(Step, step_id, fields)


def add_retrieval_hits(store: Store, trial_id: int, hits: list[dict[str, Any]]) -> int:
    """Record the techniques retrieved for a trial (technique_id, technique_name, score, rank, query)."""
    for index, hit in enumerate(hits):
        try:
            check_fields(RetrievalHit, hit, frozen=("id", "trial_id"))
        except ValueError as exc:
            raise ValueError(f"retrieval hit #{index}: {exc}") from exc
        if "technique_id" not in hit:
            raise ValueError(f"retrieval hit #{index} has no technique_id")
    if not hits:
        return 0
    store._own(trial_id)
    try:
        store._transact(
            f"store the retrieval hits of trial {trial_id}",
            lambda session: session.add_all([RetrievalHit(trial_id=trial_id, **hit) for hit in hits]),
        )
        return len(hits)
    except IntegrityError as exc:
        if not store._exists(Trial, trial_id):
            raise LookupError(f"trial {trial_id} does not exist") from exc
        raise ValueError(f"cannot store retrieval hits for trial {trial_id}: {exc.orig}") from exc
