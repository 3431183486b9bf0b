"""Reads a batch's ETA needs: trial durations per condition (this run, earlier runs), and what is left.

Aggregated in the database (count, sum and sum of squares of `wallclock_s`, which the
`ix_trial_run_condition` index carries), so they cost the same on 50 trials or 50,000.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import func, select

from execugraph.domain.json_types import JsonObject
from execugraph.store.models import Run, Trial
from execugraph.store.validation import table_of

if TYPE_CHECKING:
    from execugraph.store.store import Store

RUN = table_of(Run)
TRIAL = table_of(Trial)
FINISHED = ("done", "error")
ACTIVE = ("queued", "running")
Sums = tuple[int, float, float, float]  # count, sum, sum of squares and shortest of durations in seconds


def _sums(conn: Any, where: Any) -> dict[str, Sums]:
    w = TRIAL.c.wallclock_s
    rows = conn.execute(
        select(TRIAL.c.condition, func.count(), func.sum(w), func.sum(w * w), func.min(w))
        .where(where, TRIAL.c.status.in_(FINISHED))
        .group_by(TRIAL.c.condition)
    ).all()
    return {str(c): (int(n), float(s or 0.0), float(q or 0.0), float("inf") if m is None else float(m))
            for c, n, s, q, m in rows}


def run_durations(store: Store, run_id: int) -> dict[str, Sums]:
    """Per condition: the durations of the run's finished (graded or errored) trials."""
    with store.engine.connect() as conn:
        return _sums(conn, TRIAL.c.run_id == run_id)


def trials_left(store: Store, run_id: int) -> dict[str, tuple[int, list[datetime]]]:
    """Per condition: trials queued, and the start of each trial in flight (its attempt's claim)."""
    left: dict[str, tuple[int, list[datetime]]] = {}
    with store.engine.connect() as conn:
        queued = conn.execute(
            select(TRIAL.c.condition, func.count())
            .where(TRIAL.c.run_id == run_id, TRIAL.c.status == "queued")
            .group_by(TRIAL.c.condition)
        ).all()
        running = conn.execute(
            select(TRIAL.c.condition, TRIAL.c.started_at).where(TRIAL.c.run_id == run_id, TRIAL.c.status == "running")
        ).all()
    for condition, n in queued:
        left[str(condition)] = (int(n), [])
    for condition, started in running:
        left.setdefault(str(condition), (0, []))[1].append(started)
    return left


def history_durations(store: Store, run_id: int, models: JsonObject | None, conditions: Sequence[str],
                      *, runs: int = 20) -> dict[str, Sums]:
    """Per condition: durations in the last `runs` finished batches with the same models as `run_id`."""
    with store.engine.connect() as conn:
        candidates = conn.execute(
            select(RUN.c.id, RUN.c.models)
            .where(RUN.c.kind == "batch", RUN.c.id != run_id, RUN.c.status.not_in(ACTIVE))
            .order_by(RUN.c.id.desc())
            .limit(20 * runs)
        ).all()
        same = [int(r.id) for r in candidates if (r.models or {}) == (models or {})][:runs]
        if not same or not conditions:
            return {}
        return _sums(conn, TRIAL.c.run_id.in_(same) & TRIAL.c.condition.in_(list(conditions)))
