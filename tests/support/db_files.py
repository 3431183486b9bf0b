"""The one reviewed place where a test touches a SQLite database file with Python file APIs.

On Linux, closing any descriptor of a file drops every POSIX lock the process
holds on it, SQLite's included: a process that opens and closes `runs.db`
while it has a connection on it loses that connection's locks, and another
process may then delete the write-ahead log still in use (see
tests/store/test_store_lost_writes.py). Product code never does it (the
header is read through SQLite; tests/store/test_db_file_access.py keeps it so);
tests that must write garbage into a database file, scribble on its pages or
copy one do it here, and every function refuses to run while this process has
a descriptor open on the file, except `drop_posix_locks`, which does the
damage on purpose to show that the store survives it.
"""

from __future__ import annotations

import os
import sqlite3
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

SUFFIXES = ("", "-wal", "-shm", "-journal")


def open_descriptors(path: Path) -> list[int]:
    """This process's descriptors open on `path` (read from /proc/self/fd, which opens nothing of the file)."""
    target = os.path.realpath(path)
    found = []
    for name in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(f"/proc/self/fd/{name}") == target:
                found.append(int(name))
        except OSError:
            continue
    return found


def _assert_unopened(path: Path) -> None:
    for suffix in SUFFIXES:
        held = open_descriptors(path.with_name(path.name + suffix))
        if held:
            raise AssertionError(f"{path}{suffix} is open in this process (fds {held}); close every store on it "
                                 "first, or its SQLite locks would be dropped")


def write_bytes(path: Path, data: bytes) -> Path:
    """Write `data` as the whole file (a corrupt or foreign 'database'), with nothing in this process on it."""
    _assert_unopened(path)
    path.write_bytes(data)
    return path


def read_bytes(path: Path) -> bytes:
    """The file's bytes, with nothing in this process on it."""
    _assert_unopened(path)
    return path.read_bytes()


def copy_database(source: Path, target: Path) -> Path:
    """Copy a database through SQLite's backup API (consistent, log included; no raw file access)."""
    with sqlite3.connect(source) as src, sqlite3.connect(target) as dst:
        src.backup(dst)
    src.close()
    dst.close()
    return target


def drop_posix_locks(path: Path) -> None:
    """Open and close `path` as plain file code would, dropping this process's SQLite locks on it (on purpose)."""
    with open(path, "rb") as handle:
        handle.read(16)


@contextmanager
def python_opens(database: Path) -> Iterator[list[str]]:
    """Record every Python-level open (builtins.open, io.open, os.open) of `database` or its -wal/-shm/-journal.

    Uses an audit hook (they cannot be removed, so one is installed per process and switched by this context).
    """
    names = {os.path.realpath(database.with_name(database.name + suffix)) for suffix in SUFFIXES}
    seen: list[str] = []
    _WATCHES.append((names, seen))
    try:
        yield seen
    finally:
        _WATCHES.remove((names, seen))


_WATCHES: list[tuple[set[str], list[str]]] = []


def _hook(event: str, args: tuple) -> None:
    if event != "open" or not _WATCHES or not args or not isinstance(args[0], (str, bytes, os.PathLike)):
        return
    try:
        opened = os.path.realpath(os.fsdecode(args[0]))
    except (TypeError, ValueError):
        return
    for names, seen in _WATCHES:
        if opened in names:
            seen.append(opened)


sys.addaudithook(_hook)
