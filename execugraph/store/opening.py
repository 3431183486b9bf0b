"""Open the database behind `--db`: one sentence for what is wrong, read-only when the storage is.

Every way a `--db` can be unusable ends here as a StoreUnavailableError whose
message says what is wrong and what to do, with any password hidden: a
corrupt or foreign file (named), a folder where a file was expected, a folder
nobody may create the file in, an unreadable file, a PostgreSQL server that
does not answer or refuses the login, a URL scheme no driver serves.

An existing SQLite database whose file or folder cannot be written (a
read-only mount, another user's files) is opened read-only instead of
failing: `mode=ro`, or `immutable=1` when not even SQLite's WAL index can be
created beside it. Nothing is migrated then, so its schema must already be
the current one, and the engine refuses every write with StoreReadOnlyError.
A write-ahead log that read-only storage keeps unreadable is refused rather
than silently ignored, since the numbers would be missing its last commits.
"""

from __future__ import annotations

import os
import re
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from sqlalchemy import Engine, text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import (
    DatabaseError,
    DataError,
    DBAPIError,
    IntegrityError,
    NoSuchModuleError,
    OperationalError,
    SQLAlchemyError,
)

from execugraph.safety import redaction
from execugraph.store.engine import RawAtError, display, make_engine, normalise_url
from execugraph.store.errors import StoreDiskFullError, StoreUnavailableError
from execugraph.store.retry import SQLITE_TRANSIENT

HEADER_TIMEOUT_S = 5.0  # a busy database is reported by the probe that follows, not waited on here
FIX_DB = "give --db (or EXECUGRAPH_DB) a file path, sqlite:///PATH or postgresql://USER:PASSWORD@HOST:PORT/DB"
_CORRUPT = ("file is not a database", "malformed", "not a database", "file is encrypted")
_READ_ONLY = ("readonly", "read-only", "unable to open database file")


@dataclass(frozen=True)
class OpenedDatabase:
    """An engine that answered a first query, where it points, and whether it may only be read."""

    engine: Engine
    where: str  # the SQLite file's path, or the URL with its password hidden
    read_only: bool = False
    note: str = ""  # one sentence saying why it is read-only ("" when writable)


redact = redaction.redact_url  # the one way a URL's password is hidden


def _parse(url: str) -> URL:
    try:
        parsed = normalise_url(url)
    except RawAtError as exc:  # its message names the URL with the whole user part hidden
        raise StoreUnavailableError(str(exc)) from None
    except ValueError as exc:
        advice = "" if "give " in str(exc) else f"; {FIX_DB}"
        raise StoreUnavailableError(f"cannot use --db {redact(url)!r}: {exc}{advice}") from None
    return parsed


def open_database(url: str) -> OpenedDatabase:
    """Open `url` (SQLite path/URL or PostgreSQL URL) and prove it answers; raises StoreUnavailableError."""
    redaction.remember_url(url)
    parsed = _parse(url)
    backend = parsed.get_backend_name()
    database = parsed.database or ""
    if backend == "sqlite" and not database.startswith("file:"):
        return _open_sqlite_file(parsed, Path(database).expanduser().absolute())
    where = display(parsed)
    try:
        engine = make_engine(parsed)
    except (ValueError, NoSuchModuleError, ModuleNotFoundError):
        raise StoreUnavailableError(
            f"cannot use --db {where}: ExecuGraph has no driver for the scheme {parsed.drivername!r} "
            f"(it stores runs in SQLite or PostgreSQL); {FIX_DB}"
        ) from None
    _probe(engine, where, parsed)
    return OpenedDatabase(engine, where)


def _open_sqlite_file(url: URL, path: Path) -> OpenedDatabase:
    where = str(path)
    if path.is_dir():
        raise StoreUnavailableError(
            f"cannot open the database {where}: it is a folder, not a database file; "
            f"give --db (or EXECUGRAPH_DB) a file inside it, e.g. {path / 'runs.db'}"
        )
    if not path.exists():
        _check_creatable(path)
        engine = make_engine(url)
        try:
            _probe(engine, where, url)
        except _ReadOnlyStorage as exc:
            raise StoreUnavailableError(
                f"cannot create the database {where} ({exc}); give --db (or EXECUGRAPH_DB) a path in a writable folder"
            ) from None
        return OpenedDatabase(engine, where)
    _check_header(path)
    if _writable(path):
        engine = make_engine(url)
        try:
            _probe(engine, where, url)
            return OpenedDatabase(engine, where)
        except _ReadOnlyStorage:
            engine.dispose()  # access() said writable, SQLite found otherwise (ACLs, a remount): read it
        except _DiskFull as exc:
            return _open_read_only(url, path, full=str(exc))  # a full disk can still be read
    return _open_read_only(url, path)


class _ReadOnlyStorage(Exception):
    """SQLite could not write where access() allowed it; try again read-only."""


class _DiskFull(StoreUnavailableError):
    """SQLite could not write because its filesystem is full; what is stored can still be read."""


def _writable(path: Path) -> bool:
    """Whether SQLite may write the file and create its -wal/-shm beside it (access() knows read-only mounts)."""
    return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK | os.X_OK)


def _check_creatable(path: Path) -> None:
    folder = path.parent
    while not folder.exists():
        folder = folder.parent
    if not folder.is_dir():
        raise StoreUnavailableError(
            f"cannot create the database {path}: {folder} is a file, not a folder; "
            "give --db (or EXECUGRAPH_DB) a path in a writable folder"
        )
    if not os.access(folder, os.W_OK | os.X_OK):
        raise StoreUnavailableError(
            f"cannot create the database {path}: the folder {folder} is not writable (read-only storage or "
            "no permission); give --db (or EXECUGRAPH_DB) a path in a writable folder"
        )


def _check_header(path: Path) -> None:
    """Refuse a file that is not an SQLite database, asking SQLite itself to read its header.

    Never with open()/read()/close(): on Linux closing *any* descriptor of a file drops every POSIX lock the
    process holds on it, so a process that already has the database open (the dashboard re-checking health,
    a second Store) would lose SQLite's locks, and another process closing its last connection would then
    delete the write-ahead log this one is still writing to. SQLite's own connections share their
    descriptors and locks within a process, so a short read-only connection is safe.
    """
    if not os.access(path, os.R_OK):
        raise StoreUnavailableError(
            f"cannot read the database {path} (permission denied); run as a user who may read it "
            "or give --db (or EXECUGRAPH_DB) another file"
        )
    try:
        probe = sqlite3.connect(f"file:{quote(str(path))}?mode=ro", uri=True, timeout=HEADER_TIMEOUT_S)
        try:
            probe.execute("PRAGMA schema_version").fetchone()
        finally:
            probe.close()
    except sqlite3.DatabaseError as exc:
        if any(key in str(exc).lower() for key in _CORRUPT):
            raise StoreUnavailableError(_corrupt(path)) from None
        # busy, or a log that read-only storage cannot open: the engine's own probe that follows says so


def _corrupt(where: str | Path, detail: str = "not an SQLite database") -> str:
    return (
        f"the database {where} is corrupt or not a database ({detail}); restore it from a backup, "
        "or give --db (or EXECUGRAPH_DB) another file (a new path starts an empty store)"
    )


def _open_read_only(url: URL, path: Path, full: str | None = None) -> OpenedDatabase:
    """Open read-only: on read-only storage, or on a full disk (`full`: the sentence saying so)."""
    note = (
        f"{path} is on read-only storage or not writable by this user, so it is open read-only: "
        "browsing, status, stats and export work, nothing can be recorded"
    )
    refusal = (
        f"the database {path} is open read-only (its file or folder cannot be written), so this cannot be "
        "recorded; copy it to writable storage and point --db (or EXECUGRAPH_DB) at the copy"
    )
    if full is not None:
        note = f"{full.split('; ', 1)[0]}, so it is open read-only: browsing, status, stats and export work"
        refusal = full
    engine = make_engine(url, read_only="ro", read_only_note=refusal)
    try:
        _probe(engine, str(path), url)
        return OpenedDatabase(engine, str(path), True, note)
    except _ReadOnlyStorage:
        engine.dispose()
    except _DiskFull:  # a full disk cannot hold the WAL index either: read the file as it is
        if full is None:
            raise
    wal = path.with_name(path.name + "-wal")
    if wal.exists() and wal.stat().st_size > 0:
        raise StoreUnavailableError(
            f"the database {path} is on read-only storage and its last commits are still in {wal.name}, "
            "which cannot be read there; open it once where it is writable (or copy its folder to writable "
            "storage) so the log is merged"
        )
    engine = make_engine(url, read_only="immutable", read_only_note=refusal)
    try:
        _probe(engine, str(path), url)
    except _ReadOnlyStorage as exc:
        engine.dispose()
        raise StoreUnavailableError(f"cannot open the database {path} even read-only ({exc}); {FIX_DB}") from None
    return OpenedDatabase(engine, str(path), True, note)


def _probe(engine: Engine, where: str, url: URL) -> None:
    """One cheap query that reads the schema: a corrupt file, a dead server or a refused login shows up here."""
    backend = url.get_backend_name()
    query = "SELECT count(*) FROM sqlite_master" if backend == "sqlite" else "SELECT 1"
    try:
        with engine.connect() as conn:
            conn.execute(text(query)).scalar()
    except SQLAlchemyError as exc:
        engine.dispose()
        reason = _reason(exc, url)
        if backend == "sqlite" and any(key in reason.lower() for key in _READ_ONLY):
            raise _ReadOnlyStorage(reason) from None
        message = describe_failure(exc, where, url)
        if backend == "sqlite" and disk_full(where, reason.lower()) is not None:
            raise _DiskFull(message) from None
        raise StoreUnavailableError(message) from None


def _reason(exc: BaseException, url: URL | None = None) -> str:
    """The driver's own words, on one line, without any password."""
    orig = getattr(exc, "orig", None) if isinstance(exc, DBAPIError) else None
    words = " ".join(str(orig if orig is not None else exc).split())
    password = str(url.password or "") if url is not None else ""
    for spelling in {password, quote(password, safe="")}:
        if len(spelling) >= 4:  # drivers do not echo passwords; this only makes sure
            words = words.replace(spelling, "***")
    return redaction.scrub_message(words)


def is_database_error(exc: BaseException) -> bool:
    """Whether `exc` is the database's own error surfacing from a query (a page found corrupt, a server gone).

    A refused value (a constraint or a malformed value) is not: the database is fine, the write was wrong.
    """
    return isinstance(exc, DatabaseError) and not isinstance(exc, (IntegrityError, DataError))


def refused_value(exc: BaseException) -> str | None:
    """One sentence for a write the database refused (a constraint, a malformed value), else None."""
    if not isinstance(exc, (IntegrityError, DataError)):
        return None
    return (f"the database refused a value ({_reason(exc)}); nothing of that write was stored. "
            "This is an input ExecuGraph should have checked: please report it with the input")


_FULL = ("database or disk is full", "disk i/o error", "no space left", "disk full")
FULL_BELOW_BYTES = 1024**2  # a filesystem with less than this free is full for SQLite's purposes


def disk_full(where: str, reason: str) -> str | None:
    """The sentence for a SQLite write that failed because its filesystem is full, else None.

    SQLite reports a full disk as "database or disk is full" or, when the log cannot grow, as a disk I/O
    error; the free space of the folder (os.statvfs, which opens nothing) tells the two I/O errors apart.
    """
    if not any(key in reason for key in _FULL):
        return None
    try:
        stats = os.statvfs(Path(where).expanduser().absolute().parent)
    except OSError:
        return None
    free = stats.f_bavail * stats.f_frsize
    if free >= FULL_BELOW_BYTES and "full" not in reason and "no space" not in reason:
        return None
    return (f"the disk holding the database {where} is full ({free:,} bytes free); nothing already stored was lost: "
            "free some space, then run the command again")


def disk_full_error(exc: BaseException, where: str, dialect: str) -> StoreDiskFullError | None:
    """A StoreDiskFullError with the one sentence when `exc` is a write refused for a full disk, else None."""
    if not isinstance(exc, DBAPIError) or isinstance(exc, (IntegrityError, DataError)):
        return None
    reason = _reason(exc).lower()
    if dialect == "sqlite":
        sentence = disk_full(where, reason)
    elif "no space left" in reason or "disk full" in reason:
        sentence = describe_failure(exc, where, "postgresql://")
    else:
        sentence = None
    return StoreDiskFullError(sentence) if sentence else None


def describe_failure(exc: BaseException, where: str, url: URL | str | None = None) -> str:
    """One sentence for a database error met while opening or reading `where`: what is wrong, what to do."""
    parsed = make_url(url) if isinstance(url, str) else url
    reason = _reason(exc, parsed)
    lowered = reason.lower()
    backend = parsed.get_backend_name() if parsed is not None else ""
    if backend == "sqlite" or (not backend and any(key in lowered for key in _CORRUPT)):
        if any(key in lowered for key in _CORRUPT):
            return _corrupt(where, reason)
        full = disk_full(where, lowered)
        if full is not None:
            return full
        if any(key in lowered for key in SQLITE_TRANSIENT):  # the path is fine: another process holds the lock
            return (f"the database {where} stayed locked by another process ({reason}); nothing of this command "
                    "was stored and nothing already stored was lost: run it again once that process is done")
        return f"cannot use the database {where} ({reason}); {FIX_DB}"
    if backend == "postgresql" and ("no space left" in lowered or "disk full" in lowered):
        return (f"the PostgreSQL server of {where} is out of disk space ({reason}); nothing already stored was lost: "
                "free space on the server, then run the command again")
    if backend == "postgresql":
        short = reason.rsplit("failed: ", 1)[-1].removeprefix("FATAL:").strip()
        short = re.sub(r"\s*Is the server running.*$", "", short)
        return f"cannot connect to the PostgreSQL database {where} ({short}); {_pg_advice(short.lower())}"
    return f"cannot use the database {where} ({reason}); {FIX_DB}"


_UNREACHABLE = (
    "refused",
    "timeout",
    "timed out",
    "no route",
    "translate host",
    "not known",
    "unreachable",
    "closed the connection",
)


def _pg_advice(reason: str) -> str:
    if any(key in reason for key in _UNREACHABLE):
        return "start the server, or correct the host and port in --db or EXECUGRAPH_DB"
    if "password" in reason or "authentication" in reason:
        return "correct the user name and password in --db or EXECUGRAPH_DB"
    if "does not exist" in reason:
        return "create it (createdb) or correct the database name in --db or EXECUGRAPH_DB"
    return "correct the URL in --db or EXECUGRAPH_DB"


def require_current_schema(opened: OpenedDatabase) -> None:
    """A read-only database cannot be migrated: refuse one whose schema is older (or newer) than this code's."""
    from execugraph.store import migrations

    try:
        applied = migrations.applied_migrations(opened.engine)
    except SQLAlchemyError as exc:
        raise StoreUnavailableError(describe_failure(exc, opened.where, opened.engine.url)) from None
    known = [m.name for m in migrations.MIGRATIONS]
    unknown = [name for name in applied if name not in known]
    if unknown:
        raise StoreUnavailableError(
            f"the database {opened.where} was written by a newer ExecuGraph (schema {unknown[-1]}; this one knows "
            f"up to {migrations.LATEST}); upgrade ExecuGraph to read it"
        )
    missing = [name for name in known if name not in applied]
    if not applied:
        raise StoreUnavailableError(
            f"the database {opened.where} holds no run store yet and sits on read-only storage, where one cannot be "
            "created; give --db (or EXECUGRAPH_DB) a path in a writable folder"
        )
    if missing:
        raise StoreUnavailableError(
            f"the database {opened.where} has the older schema {applied[-1]} and sits on read-only storage, so it "
            f"cannot be upgraded to {migrations.LATEST}; copy it to writable storage and point --db (or EXECUGRAPH_DB) at the copy"
        )


def open_checked(url: str) -> OpenedDatabase:
    """`open_database`, then for a read-only database `require_current_schema` (the engine disposed if refused):
    the opening `Store.open` and `status`'s view share."""
    opened = open_database(url)
    if opened.read_only:
        try:
            require_current_schema(opened)
        except BaseException:
            opened.engine.dispose()
            raise
    return opened


def migrate_or_explain(engine: Engine, where: str) -> None:
    """Bring the schema up to date; a database that refuses it becomes one StoreUnavailableError sentence,
    and the engine is disposed on any failure."""
    from execugraph.store import migrations

    try:
        migrations.migrate(engine)  # an up-to-date database (the usual case) is only read
    except OperationalError as exc:
        engine.dispose()
        raise StoreUnavailableError(describe_failure(exc, where, engine.url)) from exc
    except BaseException:
        engine.dispose()
        raise
