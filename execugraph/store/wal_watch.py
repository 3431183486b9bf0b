"""Notice when a SQLite database's write-ahead log is removed or replaced under an open connection.

While any connection holds its locks, SQLite never deletes `runs.db-wal`; so if
the log is gone (or is another file now) while a pooled connection is open,
this process's locks were lost (a descriptor of the file closed behind
SQLite's back, or the file replaced) and another process, believing itself
the last, checkpointed and deleted the log. A connection that went on would
write into a deleted file no other process can see. The watch records the
database's and the log's file identities (device, inode) per connection and
compares them each time a connection is checked out of the pool; on a
mismatch every idle connection of the engine is closed (so that SQLite,
which shares one WAL index per file among a process's connections, lets go of
the old one) and the pool connects afresh, which finds the current files.
Only `os.stat` is used: it opens no descriptor, so the watch cannot cause
what it looks for.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, event
from sqlalchemy.exc import DisconnectionError

log = logging.getLogger(__name__)

FileId = tuple[int, int]
_KEY = "execugraph_files"


def file_id(path: Path) -> FileId | None:
    """(device, inode) of `path`, or None when it does not exist (never opens the file)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return st.st_dev, st.st_ino


def wal_path(database: Path) -> Path:
    """The write-ahead log SQLite keeps beside `database`."""
    return database.with_name(database.name + "-wal")


class LostLogError(DisconnectionError):
    """A pooled connection's database or write-ahead log is not the file on disk any more."""


def lost_files(database: Path, seen: dict[str, FileId | None]) -> str | None:
    """Why the files recorded in `seen` are no longer the ones on disk, or None while they are.

    `seen` is updated in place for files that appeared since (a new database's log is created by its first write).
    """
    for name, path in (("database", database), ("write-ahead log", wal_path(database))):
        now = file_id(path)
        before = seen.get(name)
        if before is None:
            seen[name] = now
        elif now is None:
            return f"the {name} {path} was deleted while this process had it open"
        elif now != before:
            return f"the {name} {path} was replaced while this process had it open"
    return None


def watch(engine: Engine, database: Path) -> None:
    """Reconnect `engine` when its file `database` or its log is removed or replaced behind it (see module doc)."""
    database = database.expanduser().absolute()

    @event.listens_for(engine, "connect")
    def _record(_dbapi_connection: Any, record: Any) -> None:
        record.info[_KEY] = {}
        lost_files(database, record.info[_KEY])

    @event.listens_for(engine, "checkout")
    def _check(_dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        seen = record.info.setdefault(_KEY, {})
        reason = lost_files(database, seen)
        if reason is None:
            return
        log.warning("%s; closing this process's connections to it and reconnecting, so nothing is written "
                    "into a file no other process sees", reason)
        engine.pool.dispose()  # the idle ones; this one is closed by the pool when we raise
        raise LostLogError(reason)
