"""The one way a store is opened: `open_store(url, mode)`, used by the CLI, the dashboard and the Ray workers.

Modes:
- `write`: create the database if need be and bring its schema up to date (`Store.open`); an existing
  SQLite file on read-only storage opens read-only, `read_only_note` saying why;
- `read`: for someone who may only read (a dashboard viewer): the database is opened normally first,
  then every write is refused with `note` (`Store.open_for_reading`);
- `worker`: a database a driver has already opened and migrated (a Ray trial worker): no migration,
  so many workers starting at once do not contend for the schema.
A bad URL raises StoreUnavailableError with one sentence to show; a bad mode, ValueError naming the modes.
"""

from __future__ import annotations

from typing import Literal, get_args

from execugraph.configuration.settings import load_settings
from execugraph.store.engine import make_engine
from execugraph.store.store import Store

StoreMode = Literal["write", "read", "worker"]
MODES: tuple[str, ...] = get_args(StoreMode)
READ_NOTE = "this store was opened for reading only"


def open_store(url: str | None = None, mode: StoreMode = "write", *, note: str = READ_NOTE) -> Store:
    """The Store at `url` (None: EXECUGRAPH_DB, else ./runs.db) opened for `mode`; `note` is what `read` refuses with."""
    if mode == "write":
        return Store.open(url)
    if mode == "read":
        return Store.open_for_reading(url, note)
    if mode == "worker":
        return Store(make_engine(load_settings(url).db_url), migrate=False)
    raise ValueError(f"open_store: unknown mode {mode!r}; use one of {', '.join(MODES)}")
