"""Errors of opening and using the run store that a user must be able to act on.

Kept apart from `store.py` so the engine (which refuses writes on a read-only
database) and the CLI front door can name them without importing the Store.
"""

from __future__ import annotations


class StoreUnavailableError(RuntimeError):
    """The database cannot be used: server down, bad path, corrupt file, no permission.

    The message is one sentence saying what is wrong and what to do, with any
    password hidden, fit to print as it is.
    """


class StoreDiskFullError(StoreUnavailableError):
    """A write failed because the database's disk is full; nothing stored before it was lost."""


class StoreReadOnlyError(StoreUnavailableError):
    """A write was attempted on a store opened read-only (its file or folder is not writable)."""
