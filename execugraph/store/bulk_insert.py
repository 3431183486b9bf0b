"""Insert many store rows with their own timestamps inside one write transaction.

Imports and rescores write thousands of rows that must appear together or not
at all, and imported rows keep the timestamps they were recorded with, which
the Store's one-row-per-transaction methods do not allow. `bulk_writes(store)`
opens one write transaction (`writer(engine).begin()`: SQLite's write lock taken
up front), committed on exit and rolled back on any error, and hands out a
`BulkWriter` whose inserts give back the new ids in the order the rows were
passed, on SQLite and PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING

from sqlalchemy import Connection, insert, select, update
from sqlmodel import SQLModel

from execugraph.domain.problem import Problem
from execugraph.store.dialect_insert import insert_for
from execugraph.store.engine import writer
from execugraph.store.models import ProblemRecord, Run
from execugraph.store.validation import table_of

if TYPE_CHECKING:
    from execugraph.store.store import Store

BATCH = 500  # rows per INSERT statement
TableModel = type[SQLModel]  # a table class of `store.models` (Run, Trial, Step, ...)


class BulkWriter:
    """The writes of one open transaction: rows of any store table, parent links and missing problems."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    def insert(self, model: TableModel, rows: Sequence[Mapping[str, object]]) -> list[int]:
        """Insert `rows` (dicts of `model`'s column values, no `id`) and return their new ids in the same order."""
        table = table_of(model)
        ids: list[int] = []
        stmt = insert(table).returning(table.c.id, sort_by_parameter_order=True)
        for start in range(0, len(rows), BATCH):
            chunk = list(rows[start : start + BATCH])
            if chunk:
                ids.extend(int(row[0]) for row in self._conn.execute(stmt, chunk))
        return ids

    def link_parent_run(self, run_id: int, parent_run_id: int) -> None:
        """Point a run written here at its parent (written later in the same transaction)."""
        runs = table_of(Run)
        self._conn.execute(update(runs).where(runs.c.id == run_id).values(parent_run_id=parent_run_id))

    def stored_problem(self, benchmark: str, problem_id: str) -> Problem | None:
        """The problem stored under (benchmark, id), as this transaction sees it, or None."""
        table = table_of(ProblemRecord)
        stored = self._conn.execute(
            select(table).where(table.c.benchmark == benchmark, table.c.problem_id == problem_id)
        ).first()
        return None if stored is None else ProblemRecord(**dict(stored._mapping)).to_problem()

    def insert_missing_problems(self, rows: Sequence[Mapping[str, object]]) -> int:
        """Store problems whose (benchmark, id) is not stored yet; existing ones are left untouched.
        Returns how many were new."""
        if not rows:
            return 0
        table = table_of(ProblemRecord)
        dialect = self._conn.dialect.name
        if dialect in ("sqlite", "postgresql"):
            make = insert_for(dialect)
            stmt = make(table).on_conflict_do_nothing(index_elements=["benchmark", "problem_id"])
            stmt = stmt.returning(table.c.problem_id)
            return sum(len(self._conn.execute(stmt, [row]).all()) for row in rows)
        raise NotImplementedError(f"importing problems into {dialect} is not supported")


@contextmanager
def bulk_writes(store: Store) -> Iterator[BulkWriter]:
    """One write transaction on the store's database: committed on exit, rolled back on any error."""
    with writer(store.engine).begin() as conn:
        yield BulkWriter(conn)
