"""Model time per finished trial: the summed duration of its LLM calls, read only when a report compares it.

A trial without any stored LLM call (an imported or rescored one) has no model time (None), not zero.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from sqlalchemy import and_, func, select

from execugraph.store.models import LLMCall, Trial
from execugraph.store.queries import FINISHED_STATUSES
from execugraph.store.validation import table_of

if TYPE_CHECKING:
    from execugraph.store.store import Store

TRIAL, CALL = table_of(Trial), table_of(LLMCall)
T, C = TRIAL.c, CALL.c


def model_times(store: Store, run_ids: Sequence[int]) -> list[tuple[int, str | None, str, float | None]]:
    """(run, condition, problem, model seconds or None) of every finished trial of the runs, in trial id order."""
    if not run_ids:
        return []
    stmt = (
        select(T.run_id, T.condition, T.problem_id, func.count(C.id), func.sum(C.latency_s))
        .select_from(TRIAL.outerjoin(CALL, C.trial_id == T.id))
        .where(and_(T.run_id.in_(list(run_ids)), T.status.in_(FINISHED_STATUSES)))
        .group_by(T.id, T.run_id, T.condition, T.problem_id)
        .order_by(T.id)
    )
    with store.engine.connect() as conn:
        return [(run_id, condition, problem, float(seconds or 0.0) if calls else None)
                for run_id, condition, problem, calls, seconds in conn.execute(stmt)]
