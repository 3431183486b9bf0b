"""The INSERT construct with ON CONFLICT for a database dialect, imported only when a write needs it.

The PostgreSQL dialect costs about a tenth of the CLI's start-up, and `status` on SQLite never needs it.
"""

from __future__ import annotations

from typing import Any


def insert_for(dialect: str) -> Any:
    """`sqlalchemy.dialects.<dialect>.insert` (SQLite's for "sqlite", else PostgreSQL's)."""
    if dialect == "sqlite":
        from sqlalchemy.dialects.sqlite import insert
    else:
        from sqlalchemy.dialects.postgresql import insert
    return insert
