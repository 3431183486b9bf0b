"""The statistics report's reads: per-problem tallies, breakdown counts, cost columns and best-of-N samples.

The dashboard must render statistics for 50,000 trials in well under two seconds,
so nothing here loads ORM rows:
1. one GROUP BY (run, condition, problem, status) gives per-problem tallies, the
   conditions' first-appearance order and the trials left out, per status;
2. one GROUP BY over the breakdown columns (error class, test and feedback source,
   retries used, passed) gives every taxonomy (a few hundred rows at most);
3. the four numeric cost columns are fetched per (run, condition), because medians
   need the values and SQLite has no median aggregate; they come back as the
   driver's own tuples (no Row objects are built).
Only finished trials (`FINISHED_STATUSES`) count, the same rule as the run summaries.
All reads of one report go through one `ReportReads` (one connection, so on SQLite
one read snapshot): `with report_reads(store) as reads: ...`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, and_, case, func, or_, select

from execugraph.store.models import Step, Trial
from execugraph.store.queries import FINISHED_STATUSES
from execugraph.store.run_reads import HEADER_COLUMNS, RUN, RunHeader, header_of
from execugraph.store.validation import table_of

if TYPE_CHECKING:
    from execugraph.store.store import Store

TRIAL, STEP = table_of(Trial), table_of(Step)
T, S = TRIAL.c, STEP.c
PASSED = case((T.passed.is_(True), 1), else_=0)
Group = tuple[int, "str | None"]  # (run id, condition; None for trials without one)


def _condition_is(condition: str | None) -> Any:
    return T.condition.is_(None) if condition is None else T.condition == condition


class ReportReads:
    """The reads of one report, on one connection."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    def run_headers(self, run_ids: Sequence[int]) -> list[RunHeader]:
        """The headers of those of `run_ids` that exist."""
        return [header_of(r) for r in self._conn.execute(select(*HEADER_COLUMNS).where(RUN.c.id.in_(list(run_ids))))]

    def problem_tallies(self, run_ids: Sequence[int]) -> list[tuple[int, str | None, str, str, int, str, int, int, str]]:
        """(run, condition, problem, status, first trial id, category, trials, passed, benchmark) per group."""
        rows = self._conn.execute(
            select(
                T.run_id,
                T.condition,
                T.problem_id,
                T.status,
                func.min(T.id),
                func.min(T.category),
                func.count(),
                func.sum(PASSED),
                T.benchmark,
            )
            .where(T.run_id.in_(list(run_ids)))
            .group_by(T.run_id, T.condition, T.problem_id, T.status, T.benchmark)
        ).all()
        return [tuple(row) for row in rows]  # type: ignore[misc]

    def _scope(self, run_ids: Sequence[int], conditions: Sequence[str] | None) -> Any:
        scope = and_(T.run_id.in_(list(run_ids)), T.status.in_(FINISHED_STATUSES))
        return and_(scope, T.condition.in_(list(conditions))) if conditions else scope

    def breakdowns(self, run_ids: Sequence[int], conditions: Sequence[str] | None) -> list[tuple]:
        """(run, condition, status, passed 0/1, error class, test source, feedback source, retries used, trials)
        over the finished trials of these runs (and conditions)."""
        columns = (T.run_id, T.condition, T.status, PASSED.label("ok"), T.error_class, T.test_source,
                   T.feedback_source, T.retries_used)
        stmt = select(*columns, func.count()).where(self._scope(run_ids, conditions)).group_by(*columns)
        return [tuple(row) for row in self._conn.execute(stmt).all()]

    def costs(self, run_id: int, condition: str | None) -> list[tuple]:
        """(wall-clock s, tokens in, tokens out, LLM calls, problem) of each finished trial of one (run, condition)."""
        where = and_(T.run_id == run_id, T.status.in_(FINISHED_STATUSES), _condition_is(condition))
        columns = (T.wallclock_s, T.tokens_in, T.tokens_out, T.llm_calls, T.problem_id)
        result = self._conn.execute(select(*columns).where(where))
        try:  # the DBAPI's own tuples: for tens of thousands of rows this halves the fetch time
            return list(result.cursor.fetchall())
        finally:
            result.close()

    def samples(self, run_ids: Sequence[int], conditions: Sequence[str] | None, groups: Sequence[Group]) -> list[tuple]:
        """(run, condition, problem, samples drawn, samples passed, trials) from the grade steps of best-of-N trials.

        Only the given (run, condition) groups are joined with the steps, so ordinary
        reports never touch the (much larger) step table.
        """
        if not groups:
            return []
        drawn = S.output["samples_total"].as_integer()
        passed = S.output["samples_passed"].as_integer()
        which = or_(*(and_(T.run_id == r, _condition_is(c)) for r, c in groups))
        stmt = (
            select(T.run_id, T.condition, T.problem_id, drawn, passed, func.count())
            .select_from(TRIAL.join(STEP, S.trial_id == T.id))
            .where(and_(self._scope(run_ids, conditions), which, S.node == "grade", drawn.is_not(None)))
            .group_by(T.run_id, T.condition, T.problem_id, drawn, passed)
        )
        return [tuple(row) for row in self._conn.execute(stmt).all()]


@contextmanager
def report_reads(store: Store) -> Iterator[ReportReads]:
    """The reads of one report on one connection of the store."""
    with store.engine.connect() as conn:
        yield ReportReads(conn)
