"""The run store: every run, trial, step, LLM call, sandbox execution and retrieval hit, persisted.

Import from here: `Store` (open with `Store.open(db)`), `make_engine`, the table models,
`utcnow` (the only timestamps the store accepts are aware UTC) and the errors.
"""

from execugraph.store.engine import make_engine
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
    "StoreReadOnlyError",
    "StoreUnavailableError",
    "Trial",
    "make_engine",
    "utcnow",
]
