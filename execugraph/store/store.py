"""The Store: the one object through which runs, trials and their traces are written and read.

Every write is its own short transaction, committed before the method
returns, so a killed worker loses at most the step it was in, and retried as
a whole on transient database errors (a lock held elsewhere, a dropped
connection; see `retry`). `Store.fenced` gives one attempt of a trial a view
whose writes check the attempt's token inside the same transaction (see
`fencing`). Methods are safe to call from many threads (each opens its own
session from the engine's pool) and from many processes (see `engine.py` for
SQLite's locking). They return plain values, dicts, or SQLModel objects
detached from any session.

Bad input raises ValueError naming the field; an id that does not exist
raises LookupError; nothing already stored is changed by a failed call.

The methods are grouped by what they hold, one module each: `transactions`
(engine, sessions, fencing), `runs`, `trials`, `trace_rows` (steps, LLM calls,
executions, retrieval hits), `problems_cache` and `techniques` (the technique
library's edits and the libraries runs searched). Reads the pages, statistics
and publication need beyond these live in the store's query modules.
"""

from __future__ import annotations

from execugraph.store.errors import StoreReadOnlyError, StoreUnavailableError
from execugraph.store.problems_cache import ProblemCacheRecords
from execugraph.store.runs import RunRecords
from execugraph.store.techniques import TechniqueRecords
from execugraph.store.trace_rows import TraceRecords
from execugraph.store.trials import DuplicateTrialError, TrialRecords

__all__ = ["DuplicateTrialError", "Store", "StoreReadOnlyError", "StoreUnavailableError"]


class Store(RunRecords, TrialRecords, TraceRecords, ProblemCacheRecords, TechniqueRecords):
    """The run store on one database; create with `Store.open()` or `Store(engine)`.

    Every write transaction is retried on transient database errors (a lock held
    by another process, a dropped connection) under `retry_policy`; see `retry`.
    """
