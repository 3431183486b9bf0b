"""A command refused because another process holds SQLite's write lock says so, not that the path is wrong.

`make run`'s worker or a second CLI can hold the lock past the busy timeout; the message used to end with the advice
for a bad path ("give --db ... a file path"), which sends the user after the wrong problem.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.exc import OperationalError

from execugraph.cli import database_problem


def test_a_write_refused_by_a_held_lock_names_the_lock_and_nothing_lost(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("CREATE TABLE t (x INTEGER)")
    holder.execute("INSERT INTO t VALUES (1)")
    holder.execute("BEGIN EXCLUSIVE")  # another process's writer, as far as SQLite can tell
    engine = create_engine(f"sqlite:///{db}", connect_args={"timeout": 0.2})
    try:
        with pytest.raises(OperationalError) as caught, engine.begin() as conn:
            conn.execute(text("INSERT INTO t VALUES (2)"))
        message = database_problem(caught.value, str(db))
    finally:
        engine.dispose()
        holder.execute("ROLLBACK")
    assert message is not None and message.startswith(f"the database {db} stayed locked by another process"), message
    assert "database is locked" in message and "nothing already stored was lost" in message
    assert "give --db" not in message  # the path is not the problem
    assert sqlite3.connect(db).execute("SELECT count(*) FROM t").fetchone() == (1,)
