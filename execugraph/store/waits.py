"""Endpoint waits: which LLM endpoints a run's trials are waiting on, shared between processes.

The process running the trials writes a row when an endpoint stops answering and
refreshes it while the outage lasts; it deletes the row when the endpoint answers.
`status` and the dashboard, in other processes, read the rows of active runs. A row
not refreshed for `STALE_AFTER_S` (its writer died) is not shown.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from execugraph.store.engine import writer
from execugraph.store.models import EndpointWait, utcnow

WAIT = EndpointWait.__table__  # type: ignore[attr-defined]
# A waiting process retries at least every 15 s (the backoff cap) and refreshes its row each time.
STALE_AFTER_S = 120.0


def note_down(engine: Any, run_id: int, endpoint: str, since: datetime, last_error: str) -> None:
    """Record (or refresh) that the run's trials wait on `endpoint`; the earliest `since` is kept."""
    try:
        _upsert(engine, run_id, endpoint, since, last_error)
    except IntegrityError:  # another process inserted the same wait in between: refresh theirs
        _upsert(engine, run_id, endpoint, since, last_error)


def _upsert(engine: Any, run_id: int, endpoint: str, since: datetime, last_error: str) -> None:
    now = utcnow()
    with writer(engine).begin() as conn:
        row = conn.execute(
            select(WAIT.c.id, WAIT.c.since).where(WAIT.c.run_id == run_id, WAIT.c.endpoint == endpoint)
        ).first()
        if row is None:
            conn.execute(
                insert(WAIT).values(run_id=run_id, endpoint=endpoint, since=since, last_error=last_error, updated_at=now)
            )
        else:
            conn.execute(
                update(WAIT)
                .where(WAIT.c.id == row.id)
                .values(since=min(row.since, since), last_error=last_error, updated_at=now)
            )


def note_up(engine: Any, run_id: int, endpoint: str) -> None:
    """The endpoint answered: nothing of this run waits on it any more."""
    with writer(engine).begin() as conn:
        conn.execute(delete(WAIT).where(WAIT.c.run_id == run_id, WAIT.c.endpoint == endpoint))


def clear(engine: Any, run_id: int) -> None:
    """Forget every wait of a run (the run was deleted or finished)."""
    with writer(engine).begin() as conn:
        conn.execute(delete(WAIT).where(WAIT.c.run_id == run_id))


@dataclass(frozen=True)
class LiveWait:
    """One endpoint a run's trials are waiting on, as `status` and the dashboard show it."""

    endpoint: str  # the server that stopped answering
    since: datetime  # when the outage started (first failed call)
    last_error: str  # the last failed call's error
    updated_at: datetime  # the last failed call: the writer is alive while this is recent


def current(engine: Any, run_ids: list[int], stale_after_s: float = STALE_AFTER_S) -> dict[int, list[LiveWait]]:
    """Live waits per run id, oldest outage first."""
    if not run_ids:
        return {}
    cutoff = utcnow() - timedelta(seconds=stale_after_s)
    stmt = (
        select(WAIT.c.run_id, WAIT.c.endpoint, WAIT.c.since, WAIT.c.last_error, WAIT.c.updated_at)
        .where(WAIT.c.run_id.in_(list(run_ids)), WAIT.c.updated_at >= cutoff)
        .order_by(WAIT.c.since, WAIT.c.endpoint)
    )
    found: dict[int, list[LiveWait]] = {}
    with engine.connect() as conn:
        for row in conn.execute(stmt):
            found.setdefault(int(row.run_id), []).append(
                LiveWait(endpoint=row.endpoint, since=row.since, last_error=row.last_error, updated_at=row.updated_at)
            )
    return found
