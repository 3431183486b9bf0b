"""Reads for looking at trials one by one: a run's trials as narrow rows, filters, per-step call totals, siblings.

The trace page lists a run's trials (filtered by condition, problem and
outcome), draws a trial's steps with their LLM-call costs, and offers other
trials of the same problem to compare against. Only the columns shown are read.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypedDict, cast

from sqlalchemy import case, func, select

from execugraph.store.models import LLMCall, RetrievalHit, Run, Trial
from execugraph.store.validation import table_of

if TYPE_CHECKING:
    from execugraph.store.store import Store

TRIAL = table_of(Trial)
CALL = table_of(LLMCall)
RUN = table_of(Run)
HIT = table_of(RetrievalHit)
OUTCOMES = ("passed", "failed", "error", "unfinished")
TRIAL_COLUMNS = (
    "id",
    "run_id",
    "problem_id",
    "category",
    "condition",
    "seed",
    "trial_index",
    "status",
    "passed",
    "tests_passed",
    "tests_total",
    "retries_used",
    "error_class",
    "wallclock_s",
)


class TrialRow(TypedDict):
    """A trial as the trial picker and the sibling list show it: the TRIAL_COLUMNS, by name."""

    id: int
    run_id: int
    problem_id: str
    category: str
    condition: str
    seed: int
    trial_index: int
    status: str  # queued | running | done | error | cancelled
    passed: bool | None  # None: not graded
    tests_passed: int
    tests_total: int
    retries_used: int
    error_class: str | None
    wallclock_s: float


def _trial_row(row: Mapping[str, Any]) -> TrialRow:
    """A TrialRow from a result row of TRIAL_COLUMNS (same keys, same order)."""
    return cast(TrialRow, dict(row))


def _outcome_clause(outcome: str) -> Any:
    t = TRIAL.c
    if outcome == "passed":
        return t.passed.is_(True)
    if outcome == "failed":
        return (t.status == "done") & t.passed.is_not(True)
    if outcome == "error":
        return t.status == "error"
    if outcome == "unfinished":
        return t.status.in_(("queued", "running", "cancelled"))
    raise ValueError(f"outcome must be one of {', '.join(OUTCOMES)}; got {outcome!r}")


def trial_rows(
    store: Store,
    run_id: int,
    *,
    condition: str | None = None,
    problem_id: str | None = None,
    outcome: str | None = None,
    limit: int = 300,
) -> list[TrialRow]:
    """A run's trials matching the filters (`outcome`: one of OUTCOMES), in creation order, at most `limit`,
    as dicts of TRIAL_COLUMNS."""
    t = TRIAL.c
    stmt = select(*(t[c] for c in TRIAL_COLUMNS)).where(t.run_id == run_id)
    if condition:
        stmt = stmt.where(t.condition == condition)
    if problem_id:
        stmt = stmt.where(t.problem_id == problem_id)
    if outcome:
        stmt = stmt.where(_outcome_clause(outcome))
    with store.engine.connect() as conn:
        return [_trial_row(row) for row in conn.execute(stmt.order_by(t.id).limit(limit)).mappings()]


def trial_filter_values(store: Store, run_id: int) -> tuple[list[str], list[str]]:
    """(conditions, problem ids) occurring in a run, each sorted, blanks left out."""
    t = TRIAL.c
    with store.engine.connect() as conn:
        conditions = conn.execute(select(t.condition).distinct().where(t.run_id == run_id).order_by(t.condition))
        problems = conn.execute(select(t.problem_id).distinct().where(t.run_id == run_id).order_by(t.problem_id))
        return [c for c in conditions.scalars() if c], [p for p in problems.scalars() if p]


def call_totals_by_step(store: Store, trial_id: int) -> dict[int | None, tuple[int, int, int, float, int]]:
    """step id -> (LLM calls, tokens in, tokens out, latency s, cache hits) of a trial's calls (one GROUP BY)."""
    c = CALL.c
    stmt = (
        select(
            c.step_id,
            func.count(),
            func.sum(c.tokens_in),
            func.sum(c.tokens_out),
            func.sum(c.latency_s),
            func.sum(case((c.cache_hit.is_(True), 1), else_=0)),
        )
        .where(c.trial_id == trial_id)
        .group_by(c.step_id)
    )
    with store.engine.connect() as conn:
        return {
            sid: (int(n), int(ti or 0), int(to or 0), float(lat or 0), int(h or 0))
            for sid, n, ti, to, lat, h in conn.execute(stmt)
        }


def sibling_trial_rows(store: Store, trial: Trial, *, limit: int = 100) -> list[TrialRow]:
    """Other finished trials of `trial`'s problem (any run) as dicts of TRIAL_COLUMNS: the opposite outcome
    first, then the same run, newest first."""
    t = TRIAL.c
    same_outcome = case((t.passed.is_(True), 1), else_=0) == (1 if trial.passed else 0)
    stmt = (
        select(*(t[c] for c in TRIAL_COLUMNS))
        .where(
            t.benchmark == trial.benchmark,
            t.problem_id == trial.problem_id,
            t.id != trial.id,
            t.status.in_(("done", "error")),
        )
        .order_by(case((same_outcome, 1), else_=0), case((t.run_id == trial.run_id, 0), else_=1), t.id.desc())
        .limit(limit)
    )
    with store.engine.connect() as conn:
        return [_trial_row(row) for row in conn.execute(stmt).mappings()]


def runs_with_hits(store: Store, *, limit: int = 100) -> list[tuple[int, str, int]]:
    """(run id, title, number of retrieval hits) of the newest runs whose trials retrieved techniques."""
    stmt = (
        select(RUN.c.id, RUN.c.title, func.count(HIT.c.id))
        .join(TRIAL, TRIAL.c.run_id == RUN.c.id)
        .join(HIT, HIT.c.trial_id == TRIAL.c.id)
        .group_by(RUN.c.id, RUN.c.title)
        .order_by(RUN.c.id.desc())
        .limit(limit)
    )
    with store.engine.connect() as conn:
        return [(int(i), title or "", int(n)) for i, title, n in conn.execute(stmt)]


def hit_cells(store: Store, run_id: int) -> list[tuple[str, str, float, int]]:
    """(problem id, technique id, mean score, times retrieved) for every pair retrieved in a run."""
    stmt = (
        select(TRIAL.c.problem_id, HIT.c.technique_id, func.avg(HIT.c.score), func.count())
        .join(TRIAL, TRIAL.c.id == HIT.c.trial_id)
        .where(TRIAL.c.run_id == run_id)
        .group_by(TRIAL.c.problem_id, HIT.c.technique_id)
    )
    with store.engine.connect() as conn:
        return [(p, tech, float(score), int(n)) for p, tech, score, n in conn.execute(stmt)]


def llm_calls_for_run(store: Store, run_id: int, role: str | None = None) -> list[Any]:
    """Every recorded LLM call of a run in order (what a replay answers from)."""
    stmt = select(CALL).join(TRIAL, TRIAL.c.id == CALL.c.trial_id).where(TRIAL.c.run_id == run_id)
    if role is not None:
        stmt = stmt.where(CALL.c.role == role)
    with store.engine.connect() as conn:
        return list(conn.execute(stmt.order_by(CALL.c.id)))
