"""The CLI's one sentence for a database error: an unusable database is named as such, a refused write is not."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.exc import DatabaseError, IntegrityError

from execugraph.cli import database_problem


def _refused_write(path: Path) -> IntegrityError:
    engine = create_engine(f"sqlite:///{path}")
    with engine.begin() as conn:
        conn.execute(text("CREATE TABLE trial (wallclock_s REAL NOT NULL)"))
    with pytest.raises(IntegrityError) as caught, engine.begin() as conn:
        conn.execute(text("INSERT INTO trial VALUES (NULL)"))
    return caught.value


def test_a_refused_value_is_not_called_an_unusable_database(tmp_path: Path) -> None:
    message = database_problem(_refused_write(tmp_path / "runs.db"), str(tmp_path / "runs.db"))
    assert message is not None and message.startswith("the database refused a value (NOT NULL constraint failed")
    assert "cannot use the database" not in message and "nothing of that write was stored" in message


def test_a_corrupt_database_is_still_named(tmp_path: Path) -> None:
    corrupt = DatabaseError("SELECT 1", {}, sqlite3.DatabaseError("database disk image is malformed"))
    message = database_problem(corrupt, str(tmp_path / "runs.db"))
    assert message is not None and str(tmp_path / "runs.db") in message and "malformed" in message


def test_other_errors_are_left_alone() -> None:
    assert database_problem(ValueError("x"), None) is None
