"""The one engine factory: SQLite tuned for a writer and readers side by side, or PostgreSQL.

SQLite: every connection gets WAL journaling (readers never block the writer
and vice versa), foreign keys ON, a 30 s busy timeout (or the URL's `timeout`, in seconds, as Python's
sqlite3 names it: `sqlite:///runs.db?timeout=5`) and `synchronous=NORMAL`
(durable across a killed process; only a power cut can lose the last commits).
A connection whose write-ahead log was deleted or replaced behind it is
dropped and the pool reconnects (`wal_watch`), never writing into the void.
The sqlite3 driver's own transaction handling is switched off and SQLAlchemy
emits BEGIN itself: reads run in `BEGIN DEFERRED` snapshots, writes made
through `writer(engine)` start with `BEGIN IMMEDIATE`, which takes the write
lock up front and so waits on the busy timeout instead of failing with
"database is locked" when a read snapshot goes stale.

A SQLite file on read-only storage is opened read-only instead (see
`opening.py`): through a `mode=ro` (or, when even the WAL index cannot be
created, `immutable=1`) URI, with no journal or synchronous pragma issued, and
any transaction started through `writer()` refused with StoreReadOnlyError.

PostgreSQL goes through psycopg 3; `postgresql://` and `postgres://` URLs are
rewritten to `postgresql+psycopg://`, and connecting gives up after
PG_CONNECT_TIMEOUT_S unless the URL sets `connect_timeout` itself.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any
from urllib.parse import quote

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import NoSuchModuleError

from execugraph.safety import redaction
from execugraph.store.errors import StoreReadOnlyError
from execugraph.store.wal_watch import watch as watch_files

BUSY_TIMEOUT_MS = 30_000
MAX_BUSY_TIMEOUT_S = 86_400
WRITE_OPTION = "execugraph_write"
PG_CONNECT_TIMEOUT_S = 10
READ_ONLY_MODES = ("ro", "immutable")


class RawAtError(ValueError):
    """A URL whose user name or password holds a raw `@`: where its host begins would be a guess."""


def check_userinfo(url: str) -> None:
    """Refuse a URL with more than one unescaped `@` before its host (RawAtError, its message safe to show).

    SQLAlchemy splits at the first `@`, so `postgresql://u:p@ss@host/db` would connect to the host
    `ss@host` and the driver's error would print part of the password; guessing the other way could
    be wrong too, so the URL is refused with how to write it.
    """
    scheme, sep, rest = url.partition("://")
    if not sep or scheme.lower().startswith("sqlite"):
        return
    end = min([i for i in (rest.find("?"), rest.find("#")) if i >= 0], default=len(rest))
    userinfo, at, host = rest[:end].rpartition("@")
    if at and "@" in userinfo:
        masked = f"{scheme}://***@{host}"
        raise RawAtError(
            f"cannot use --db {masked!r}: its user name or password holds a raw '@', so where the host begins "
            "is a guess; write @ in a password as %40 (postgresql://USER:PA%40SS@HOST:PORT/DB) and give --db "
            "(or EXECUGRAPH_DB) again"
        )


def normalise_url(url: str | URL) -> URL:
    """Parse `url`, picking psycopg 3 for PostgreSQL; reject what cannot be a run store."""
    if isinstance(url, str):
        check_userinfo(url)
    try:
        parsed = make_url(url) if isinstance(url, str) else url
    except Exception:  # SQLAlchemy's ArgumentError quotes the whole URL, password included
        shown = redaction.redact_url(url) if isinstance(url, str) else display(url)
        raise ValueError(f"not a database URL: {shown!r}") from None
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    if parsed.get_backend_name() == "sqlite" and _is_memory(parsed):
        raise ValueError(
            f"in-memory SQLite ({parsed}) cannot hold a run store: other processes and connections "
            "would not see it; give a file path instead"
        )
    if parsed.get_backend_name() == "sqlite":
        busy_timeout_ms(parsed)  # a bad `timeout` is named here, where every opening parses the URL
    return parsed


def display(url: URL) -> str:
    """`url` with any password hidden (a raw `@` in the password included: see `redaction`)."""
    return redaction.redact_url(url.render_as_string(hide_password=False))


def _is_memory(url: URL) -> bool:
    database = url.database or ""
    return database in ("", ":memory:") or "mode=memory" in str(url)


def json_dumps(value: Any) -> str:
    """Serialise JSON columns so that any value a trace holds can be stored on both backends.

    Sets and tuples become lists, bytes are decoded, NaN/Infinity (which
    PostgreSQL's json type rejects) become strings, and anything else falls back
    to its repr, so a strange test value never aborts persisting a trial. Any
    secret the process holds is scrubbed from the text (see `redaction`).
    """
    text = json.dumps(_jsonable(value))
    return redaction.scrub(text) if redaction.holds_secrets() else text


def _jsonable(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, (set, frozenset)):
        items = [_jsonable(v) for v in value]
        try:
            return sorted(items)
        except TypeError:
            return items
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", "replace")
    try:
        return repr(value)
    except Exception:  # a broken __repr__ must not lose the rest of the trace
        return f"<unrepresentable {type(value).__name__}>"


def make_engine(url: str | URL, *, read_only: str | None = None, read_only_note: str = "") -> Engine:
    """Create the engine for `url` (SQLite file or PostgreSQL) with the store's connection settings.

    `read_only` ("ro" or "immutable", SQLite files only) opens the file read-only; "session" (any backend)
    opens a writable database for someone who may only read it (the dashboard's viewers): SQLite as "ro",
    PostgreSQL with read-only sessions. `read_only_note` is then the sentence a refused write raises with.
    """
    parsed = normalise_url(url)
    if parsed.get_backend_name() == "sqlite":
        if read_only is not None:
            return _sqlite_read_only_engine(parsed, "ro" if read_only == "session" else read_only, read_only_note)
        return _sqlite_engine(parsed)
    if read_only not in (None, "session"):
        raise ValueError(f"read-only opening is for SQLite files, not {display(parsed)}")
    # PostgreSQL (and, untested, any other SQLAlchemy backend): the pool checks
    # connections before use so a restarted server costs one retry, not an error.
    connect_args: dict[str, object] = {}
    if parsed.get_backend_name() == "postgresql" and "connect_timeout" not in parsed.query:
        connect_args["connect_timeout"] = PG_CONNECT_TIMEOUT_S
    try:
        engine = create_engine(parsed, pool_pre_ping=True, json_serializer=json_dumps, connect_args=connect_args)
    except (NoSuchModuleError, ModuleNotFoundError) as exc:
        raise ValueError(f"no database driver for {display(parsed)}: {exc}") from exc
    if read_only == "session":
        _read_only_sessions(engine, read_only_note or f"the database {display(parsed)} is open read-only")
    return engine


def _read_only_sessions(engine: Engine, refusal: str) -> None:
    """Every PostgreSQL session read-only (the server refuses writes), and writer transactions refused up front."""

    @event.listens_for(engine, "connect")
    def _configure(dbapi_connection: Any, _record: Any) -> None:
        with dbapi_connection.cursor() as cursor:
            cursor.execute("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY")
        dbapi_connection.commit()

    @event.listens_for(engine, "begin")
    def _begin(connection: Any) -> None:
        if connection.get_execution_options().get(WRITE_OPTION, False):
            raise StoreReadOnlyError(refusal)


def busy_timeout_ms(url: URL) -> int:
    """How long a SQLite connection of `url` waits for another process's write lock before "database is locked".

    BUSY_TIMEOUT_MS unless the URL names `timeout` in seconds (`sqlite:///runs.db?timeout=5`); a URL passed to a
    worker through EXECUGRAPH_DB carries it along. A value that is not a number of seconds is refused by name.
    """
    raw = url.query.get("timeout")
    if raw is None:
        return BUSY_TIMEOUT_MS
    text = str(raw[-1] if isinstance(raw, tuple) else raw)
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not 0 <= seconds <= MAX_BUSY_TIMEOUT_S:  # NaN and infinities fail this too
        raise ValueError(
            f"the database URL's timeout must be seconds from 0 to {MAX_BUSY_TIMEOUT_S} (how long to wait for "
            f"another process's write lock); got {text[:40]!r}"
        )
    return round(seconds * 1000)


def _sqlite_engine(url: URL) -> Engine:
    database = url.database or ""
    busy_ms = busy_timeout_ms(url)
    if not database.startswith("file:"):
        try:
            Path(database).expanduser().parent.mkdir(parents=True, exist_ok=True)
        except OSError:
            pass  # connecting fails next, and Store reports the unusable path

    engine = create_engine(
        url,
        json_serializer=json_dumps,
        connect_args={"check_same_thread": False, "timeout": busy_ms / 1000},
    )

    @event.listens_for(engine, "connect")
    def _configure(dbapi_connection: Any, _record: Any) -> None:
        # Take transaction control away from the sqlite3 module (see module docstring).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute(f"PRAGMA busy_timeout = {busy_ms}")
            cursor.execute("PRAGMA journal_mode = WAL")
            cursor.execute("PRAGMA synchronous = NORMAL")
            cursor.execute("PRAGMA foreign_keys = ON")
        finally:
            cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(connection: Any) -> None:
        immediate = connection.get_execution_options().get(WRITE_OPTION, False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

    if not database.startswith("file:"):
        watch_files(engine, Path(database))
    return engine


def read_only_url(path: Path, mode: str) -> URL:
    """The SQLite URI URL that opens `path` read-only (`mode=ro`) or as unchanging (`immutable=1`)."""
    if mode not in READ_ONLY_MODES:
        raise ValueError(f"read-only mode must be one of {', '.join(READ_ONLY_MODES)}; got {mode!r}")
    query = {"mode": "ro", "uri": "true"} if mode == "ro" else {"immutable": "1", "uri": "true"}
    return URL.create("sqlite", database="file:" + quote(str(path.resolve())), query=query)


def _sqlite_read_only_engine(url: URL, mode: str, note: str) -> Engine:
    database = url.database or ""
    path = Path(database.removeprefix("file:").partition("?")[0]).expanduser()
    busy_ms = busy_timeout_ms(url)
    engine = create_engine(
        read_only_url(path, mode),
        json_serializer=json_dumps,
        connect_args={"check_same_thread": False, "timeout": busy_ms / 1000},
    )
    refusal = note or f"the database {path} is open read-only; nothing can be written to it"

    @event.listens_for(engine, "connect")
    def _configure(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute(f"PRAGMA busy_timeout = {busy_ms}")
            cursor.execute("PRAGMA query_only = 1")
        finally:
            cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(connection: Any) -> None:
        if connection.get_execution_options().get(WRITE_OPTION, False):
            raise StoreReadOnlyError(refusal)
        connection.exec_driver_sql("BEGIN")

    return engine


def writer(engine: Engine) -> Engine:
    """The same engine, but its transactions take the SQLite write lock at BEGIN.

    Use it for every transaction that writes; on PostgreSQL it changes nothing.
    """
    return engine.execution_options(**{WRITE_OPTION: True})


def display_url(engine: Engine) -> str:
    """The engine's URL with any password hidden, for logs, `doctor` and the sidebar."""
    return display(engine.url)
