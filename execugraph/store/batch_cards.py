"""Reads a batch card needs: per-condition counts and tokens, the trials in flight, the problems drawn.

One GROUP BY each on narrow columns, so a card costs the same on 50 trials or 50,000.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from sqlalchemy import case, func, select

from execugraph.store.models import Trial
from execugraph.store.queries import FINISHED_STATUSES
from execugraph.store.validation import table_of

if TYPE_CHECKING:
    from execugraph.store.store import Store

TRIAL = table_of(Trial)


@dataclass(frozen=True)
class ConditionCount:
    """One condition of a batch: trials, finished, graded, passed, and tokens spent (in + out)."""

    condition: str
    total: int
    finished: int
    graded: int
    passed: int
    tokens: int


@dataclass(frozen=True)
class InFlight:
    """A trial running now."""

    trial_id: int
    problem_id: str
    condition: str
    started_at: datetime | None


def condition_counts(store: Store, run_id: int) -> list[ConditionCount]:
    """Per condition, in the order the batch queued them."""
    t = TRIAL.c
    stmt = (
        select(
            t.condition,
            func.count(),
            func.sum(case((t.status.in_(FINISHED_STATUSES), 1), else_=0)),
            func.sum(case((t.status == "done", 1), else_=0)),
            func.sum(case((t.passed.is_(True), 1), else_=0)),
            func.sum(t.tokens_in + t.tokens_out),
            func.min(t.id).label("first"),
        )
        .where(t.run_id == run_id)
        .group_by(t.condition)
        .order_by("first")
    )
    with store.engine.connect() as conn:
        return [ConditionCount(str(c), int(n), int(f or 0), int(g or 0), int(p or 0), int(k or 0))
                for c, n, f, g, p, k, _ in conn.execute(stmt)]


def in_flight(store: Store, run_id: int, *, limit: int = 8) -> list[InFlight]:
    """The run's trials running now, the longest-running first (at most `limit`)."""
    t = TRIAL.c
    stmt = (select(t.id, t.problem_id, t.condition, t.started_at)
            .where(t.run_id == run_id, t.status == "running").order_by(t.started_at, t.id).limit(limit))
    with store.engine.connect() as conn:
        return [InFlight(int(i), str(p), str(c), s) for i, p, c, s in conn.execute(stmt)]


def problems_in_order(store: Store, run_id: int) -> list[str]:
    """The run's problem ids in the order they were queued (for a random subset: the problems drawn)."""
    t = TRIAL.c
    stmt = (select(t.problem_id, func.min(t.id).label("first")).where(t.run_id == run_id)
            .group_by(t.problem_id).order_by("first"))
    with store.engine.connect() as conn:
        return [str(p) for p, _ in conn.execute(stmt)]
