"""How every CLI command opens the run store: read-only databases are said so once, writes refused up front.

A bad `--db` raises StoreUnavailableError, which `cli.main` prints as one line
with exit 2. A database on read-only storage opens read-only: commands that
only read (`status`, `stats`, `export`) print one note on stderr and go on;
commands that would write stop before doing any work, with the sentence
saying what to do.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from execugraph.store import Store
    from execugraph.store.status_view import StatusView


def open_store(args: argparse.Namespace, *, writes: bool) -> Store:
    """The Store for `--db` (or EXECUGRAPH_DB); `writes` says whether the command will record anything."""
    from execugraph.store import open_store as open_database

    store = open_database(getattr(args, "db", None), "write")
    if store.read_only:
        if writes:
            try:
                store.require_writable()
            finally:
                store.close()
        print(f"note: {store.read_only_note}", file=sys.stderr)
    return store


def open_status_view(args: argparse.Namespace) -> StatusView:
    """What `status` reads (Core only, no ORM to import), opened as `open_store(args, writes=False)` opens a Store."""
    from execugraph.store.status_view import StatusView

    view = StatusView.open(getattr(args, "db", None))
    if view.read_only:
        print(f"note: {view.read_only_note}", file=sys.stderr)
    return view
