"""Insert many store rows with their own timestamps inside one write transaction.

Imports and rescores write thousands of rows that must appear together or not
at all, and imported rows keep the timestamps they were recorded with, which
the Store's one-row-per-transaction methods do not allow. These helpers run
inside `writer(engine).begin()` (SQLite's write lock taken up front) and give
back the new ids in the order the rows were passed, on SQLite and PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, Table, insert
from sqlalchemy.dialects import postgresql, sqlite

from execugraph.store.engine import writer
from execugraph.store.models import ProblemRecord

if TYPE_CHECKING:
    from execugraph.store import Store

BATCH = 500  # rows per INSERT statement


@contextmanager
def transaction(store: Store) -> Iterator[Connection]:
    """One write transaction on the store's database: committed on exit, rolled back on any error."""
    with writer(store.engine).begin() as conn:
        yield conn


def insert_rows(conn: Connection, table: Table, rows: Sequence[dict[str, Any]]) -> list[int]:
    """Insert `rows` (dicts of column values, no `id`) and return their new ids in the same order."""
    ids: list[int] = []
    stmt = insert(table).returning(table.c.id, sort_by_parameter_order=True)
    for start in range(0, len(rows), BATCH):
        chunk = list(rows[start : start + BATCH])
        if chunk:
            ids.extend(int(row[0]) for row in conn.execute(stmt, chunk))
    return ids


def insert_missing_problems(conn: Connection, rows: Sequence[dict[str, Any]]) -> int:
    """Store problems whose (benchmark, id) is not stored yet; existing ones are left untouched. Returns how many were new."""
    if not rows:
        return 0
    table: Table = ProblemRecord.__table__  # type: ignore[attr-defined]
    dialect = conn.dialect.name
    if dialect in ("sqlite", "postgresql"):
        make = sqlite.insert if dialect == "sqlite" else postgresql.insert
        stmt = make(table).on_conflict_do_nothing(index_elements=["benchmark", "problem_id"])
        stmt = stmt.returning(table.c.problem_id)
        return sum(len(conn.execute(stmt, [row]).all()) for row in rows)
    raise NotImplementedError(f"importing problems into {dialect} is not supported")
