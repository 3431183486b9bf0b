"""Stored cost per trial of each (run, condition) of a benchmark, so a batch can plan a matched budget from history.

Only trials that ended `done` count (an errored trial stopped early and would make a condition look cheap). One
GROUP BY over the trial table, one over the LLM calls for model time, and the run configs that name the models.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import and_, case, func, select

from execugraph.store.models import LLMCall, Run, Trial
from execugraph.store.validation import table_of

if TYPE_CHECKING:
    from execugraph.store.store import Store

T, C, R = table_of(Trial).c, table_of(LLMCall).c, table_of(Run).c


@dataclass(frozen=True)
class ConditionCost:
    """Summed costs of the finished (`done`) trials of one condition of one run."""

    run_id: int
    condition: str
    config: dict[str, Any]  # the condition's stored RunConfig ({} when the run kept none)
    trials: int
    tokens: float  # tokens in + out, over the trials that recorded both
    tokens_trials: int
    llm_calls: float
    calls_trials: int
    wallclock_s: float
    wallclock_trials: int
    model_time_s: float  # summed LLM call latencies (every done trial counts; no call is 0 s)


def _condition_config(run_config: Any, condition: str) -> dict[str, Any]:
    """A batch keeps each condition's config under `conditions`; a single run keeps its own config whole."""
    if not isinstance(run_config, dict):
        return {}
    per = run_config.get("conditions")
    if isinstance(per, dict) and isinstance(per.get(condition), dict):
        return per[condition]
    return run_config if run_config.get("condition") == condition else {}


def condition_costs(store: Store, benchmark: str) -> list[ConditionCost]:
    """Every (run, condition) with done trials on `benchmark`, with its summed costs, oldest run first."""
    done = and_(T.benchmark == benchmark, T.status == "done")
    both = and_(T.tokens_in.is_not(None), T.tokens_out.is_not(None))
    rows_stmt = (
        select(
            T.run_id, T.condition, func.count(),
            func.sum(case((both, T.tokens_in + T.tokens_out), else_=None)),
            func.count(case((both, 1), else_=None)),
            func.sum(T.llm_calls), func.count(T.llm_calls),
            func.sum(T.wallclock_s), func.count(T.wallclock_s),
        )
        .where(done)
        .group_by(T.run_id, T.condition)
        .order_by(T.run_id, T.condition)
    )
    latency_stmt = (
        select(T.run_id, T.condition, func.sum(C.latency_s))
        .select_from(table_of(LLMCall).join(table_of(Trial), C.trial_id == T.id))
        .where(done)
        .group_by(T.run_id, T.condition)
    )
    with store.engine.connect() as conn:
        rows = conn.execute(rows_stmt).all()
        latency = {(r, c): float(s or 0.0) for r, c, s in conn.execute(latency_stmt).all()}
        run_ids = sorted({row[0] for row in rows})
        configs = dict(conn.execute(select(R.id, R.config).where(R.id.in_(run_ids))).all()) if run_ids else {}
    return [
        ConditionCost(run_id=run_id, condition=condition or "", config=_condition_config(configs.get(run_id), condition),
                      trials=int(n), tokens=float(tok or 0), tokens_trials=int(tok_n), llm_calls=float(calls or 0),
                      calls_trials=int(calls_n), wallclock_s=float(wall or 0), wallclock_trials=int(wall_n),
                      model_time_s=latency.get((run_id, condition), 0.0))
        for run_id, condition, n, tok, tok_n, calls, calls_n, wall, wall_n in rows
        if condition
    ]


def run_condition_costs(store: Store, run_id: int) -> list[dict[str, Any]]:
    """Per condition of one run, in first-trial order: finished trials and their mean tokens, LLM calls, wall-clock
    and model time (summed LLM call seconds) per trial; a mean is None where no trial recorded it (model time: where
    no trial of the condition stored an LLM call)."""
    from execugraph.store.queries import FINISHED_STATUSES

    finished = and_(T.run_id == run_id, T.status.in_(FINISHED_STATUSES))
    both = and_(T.tokens_in.is_not(None), T.tokens_out.is_not(None))
    per_trial = (
        select(T.id.label("id"), func.count(C.id).label("calls"), func.sum(C.latency_s).label("seconds"))
        .select_from(table_of(Trial).outerjoin(table_of(LLMCall), C.trial_id == T.id))
        .where(finished)
        .group_by(T.id)
        .subquery()
    )
    stmt = (
        select(
            T.condition, func.min(T.id), func.count(),
            func.avg(case((both, T.tokens_in + T.tokens_out), else_=None)), func.avg(T.llm_calls),
            func.avg(T.wallclock_s),
            func.avg(case((per_trial.c.calls > 0, per_trial.c.seconds), else_=None)),
        )
        .select_from(table_of(Trial).join(per_trial, per_trial.c.id == T.id))
        .where(finished)
        .group_by(T.condition)
        .order_by(func.min(T.id))
    )
    with store.engine.connect() as conn:
        rows = conn.execute(stmt).all()

    def num(value: Any) -> float | None:
        return None if value is None else float(value)

    return [{"condition": condition or "-", "trials": int(n), "tokens_per_trial": num(tokens),
             "llm_calls_per_trial": num(calls), "wallclock_s_per_trial": num(wall), "model_time_s_per_trial": num(model)}
            for condition, _first, n, tokens, calls, wall, model in rows]
