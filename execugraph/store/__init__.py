"""The run store: every run, trial, step, LLM call, sandbox execution and retrieval hit, persisted.

Import from here: `Store` (open with `Store.open(db)`), `make_engine`, the table models,
`utcnow` (the only timestamps the store accepts are aware UTC) and the errors
(`SupersededError` for a fenced attempt that lost its trial, `StoreBusyError` for a write
that stayed locked out past the retry budget).
"""

from execugraph.store.engine import make_engine
from execugraph.store.fencing import SupersededError
from execugraph.store.migrations import LATEST as LATEST_MIGRATION
from execugraph.store.models import (
    Execution,
    LLMCacheEntry,
    LLMCall,
    ProblemRecord,
    RetrievalHit,
    Run,
    SchemaMigration,
    Step,
    Trial,
    utcnow,
)
from execugraph.store.retry import StoreBusyError
from execugraph.store.store import DuplicateTrialError, Store, StoreReadOnlyError, StoreUnavailableError

__all__ = [
    "LATEST_MIGRATION",
    "DuplicateTrialError",
    "Execution",
    "LLMCacheEntry",
    "LLMCall",
    "ProblemRecord",
    "RetrievalHit",
    "Run",
    "SchemaMigration",
    "Step",
    "Store",
    "StoreBusyError",
    "StoreReadOnlyError",
    "StoreUnavailableError",
    "SupersededError",
    "Trial",
    "make_engine",
    "utcnow",
]
