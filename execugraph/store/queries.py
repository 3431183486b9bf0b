"""Read-side SQL: run filters, progress counts and per-condition/category summaries.

Everything here aggregates in the database (GROUP BY over the indexed
`trial.run_id`), so the dashboard stays fast on runs with tens of thousands of
trials: no summary ever loads trial rows into Python.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, NotRequired, TypedDict
from typing import cast as typed

from sqlalchemy import ColumnElement, Connection, String, case, cast, exists, func, select
from sqlalchemy import text as sql_text

from execugraph.store.models import Run, Trial
from execugraph.store.run_filter import RunFilter
from execugraph.store.status_view import run_progress as run_progress  # Core only: `status` reads it too

FINISHED_STATUSES = ("done", "error")


def as_utc(moment: datetime) -> datetime:
    """An aware UTC datetime; a naive one is taken to be UTC already."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def _contains(column: Any, needle: str) -> ColumnElement[bool]:
    """Case-insensitive substring match, with LIKE wildcards in `needle` taken literally."""
    escaped = needle.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return func.lower(column).like(f"%{escaped}%", escape="\\")


def _has_tag(dialect: str, tag: str) -> ColumnElement[bool]:
    """`tag` is an element of run.tags (a JSON list), tested exactly."""
    if dialect == "sqlite":
        each = func.json_each(Run.__table__.c.tags).table_valued("value")
        return exists(select(1).select_from(each).where(each.c.value == tag))
    if dialect == "postgresql":
        return sql_text("CAST(run.tags AS jsonb) @> CAST(:tag_json AS jsonb)").bindparams(tag_json=json.dumps([tag]))
    return _contains(cast(Run.__table__.c.tags, String), json.dumps(tag))


def run_filters(dialect: str, where: RunFilter) -> list[ColumnElement[bool]]:
    """WHERE clauses for `Store.list_runs`; `model` and `text` are case-insensitive substrings."""
    c = Run.__table__.c
    clauses: list[ColumnElement[bool]] = []
    if where.kind:
        clauses.append(c.kind == where.kind)
    if where.status:
        clauses.append(c.status == where.status)
    if where.benchmark:
        clauses.append(c.benchmark == where.benchmark)
    if where.model:
        clauses.append(_contains(cast(c.models, String), where.model))
    if where.text:
        clauses.append(_contains(c.title, where.text) | _contains(func.coalesce(c.benchmark, ""), where.text))
    if where.since is not None:
        clauses.append(c.created_at >= as_utc(where.since))
    if where.until is not None:
        clauses.append(c.created_at < as_utc(where.until))
    if where.tag:
        clauses.append(_has_tag(dialect, where.tag))
    return clauses


_COUNTS = ("trials", "finished", "graded", "passed", "errors", "tokens_in", "tokens_out", "llm_calls")


class SummaryGroup(TypedDict):
    """The totals of one group of a run's trials (all of them, a condition, a category, or a pair)."""

    condition: NotRequired[str]  # in by_condition and by_condition_category
    category: NotRequired[str]  # in by_category and by_condition_category
    trials: int  # every trial, queued ones included
    finished: int  # done + error
    graded: int  # done: ran to the end and were judged
    passed: int
    errors: int
    tokens_in: int
    tokens_out: int
    llm_calls: int
    pass_rate: float | None  # passed / graded; None when nothing was graded
    mean_wallclock_s: float | None  # over finished trials; None when none finished
    mean_retries: float | None  # likewise


class RunSummary(TypedDict):
    """A run's pass rates and costs overall, per condition, per category and per (condition, category)."""

    run_id: int
    overall: SummaryGroup
    by_condition: list[SummaryGroup]
    by_category: list[SummaryGroup]
    by_condition_category: list[SummaryGroup]


@dataclass(frozen=True)
class _Cell:
    """Additive totals of one (condition, category): `_COUNTS` and retries (ints), wallclock_s (float)."""

    condition: str
    category: str
    totals: dict[str, int | float]


def _cells(conn: Connection, run_id: int) -> list[_Cell]:
    """Additive totals per (condition, category): the one query a summary needs.

    Conditions x categories is at most a few hundred cells however many trials
    a run has, so rolling the cells up further in Python costs nothing.
    """
    t = Trial.__table__.c
    finished = t.status.in_(FINISHED_STATUSES)
    stmt = (
        select(
            t.condition,
            t.category,
            func.count().label("trials"),
            func.sum(case((finished, 1), else_=0)).label("finished"),
            func.sum(case((t.status == "done", 1), else_=0)).label("graded"),
            func.sum(case((t.passed.is_(True), 1), else_=0)).label("passed"),
            func.sum(case((t.status == "error", 1), else_=0)).label("errors"),
            func.sum(case((finished, t.wallclock_s), else_=0.0)).label("wallclock_s"),
            func.sum(case((finished, t.retries_used), else_=0)).label("retries"),
            func.sum(t.tokens_in).label("tokens_in"),
            func.sum(t.tokens_out).label("tokens_out"),
            func.sum(t.llm_calls).label("llm_calls"),
        )
        .where(t.run_id == run_id)
        .group_by(t.condition, t.category)
    )
    cells = []
    for row in conn.execute(stmt).mappings():
        totals: dict[str, int | float] = {name: int(row[name] or 0) for name in (*_COUNTS, "retries")}
        totals["wallclock_s"] = float(row["wallclock_s"] or 0.0)
        cells.append(_Cell(row["condition"], row["category"], totals))
    return cells


def _roll_up(cells: list[_Cell], keys: tuple[str, ...]) -> list[SummaryGroup]:
    """Merge cells sharing `keys` (condition, category) and derive rates and means, sorted by `keys`."""
    merged: dict[tuple[str, ...], dict[str, int | float]] = {}
    for cell in cells:
        group = tuple(getattr(cell, k) for k in keys)
        into = merged.setdefault(group, {**dict.fromkeys(_COUNTS, 0), "retries": 0, "wallclock_s": 0.0})
        for name in (*_COUNTS, "retries", "wallclock_s"):
            into[name] += cell.totals[name]
    out = []
    for group in sorted(merged):
        stats = merged[group]
        done = stats["finished"]
        item: dict[str, object] = {**dict(zip(keys, group, strict=True)), **{name: stats[name] for name in _COUNTS}}
        item["pass_rate"] = stats["passed"] / stats["graded"] if stats["graded"] else None
        item["mean_wallclock_s"] = stats["wallclock_s"] / done if done else None
        item["mean_retries"] = stats["retries"] / done if done else None
        out.append(typed(SummaryGroup, item))
    return out


def run_summary(conn: Connection, run_id: int) -> RunSummary:
    """Pass rates and costs of a run overall, per condition, per category and per pair.

    `pass_rate` is passed / graded (trials that ran to the end and were judged:
    status done), the rule of `execugraph.batch.outcome`; errored trials are counted
    in `errors`, never as passed or failed, and queued, running and cancelled ones
    only in `trials`. The means are over finished (graded + errored) trials. None
    when nothing counts. Token and call totals cover all trials.
    """
    cells = _cells(conn, run_id)
    overall = _roll_up(cells, ())
    empty = typed(SummaryGroup, {**dict.fromkeys(_COUNTS, 0), "pass_rate": None, "mean_wallclock_s": None,
                                 "mean_retries": None})
    return RunSummary(
        run_id=run_id,
        overall=overall[0] if overall else empty,
        by_condition=_roll_up(cells, ("condition",)),
        by_category=_roll_up(cells, ("category",)),
        by_condition_category=_roll_up(cells, ("condition", "category")),
    )
