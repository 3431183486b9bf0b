"""The run store: every run, trial, step, LLM call, sandbox execution and retrieval hit, persisted.

This package owns the tables and every read and write of them: no SQL lives outside it
(`tests/store/test_store_boundary.py` checks). Import from here: `Store` (open it with
`open_store(url, mode)`: `write`, `read` for viewers, `worker` for Ray workers; see `access`),
`RunFilter` (which runs `Store.list_runs` lists), `make_engine`, the table models, `utcnow` (the only timestamps the store accepts are aware UTC) and the errors
(`SupersededError` for a fenced attempt that lost its trial, `StoreBusyError` for a write
that stayed locked out past the retry budget).

What lives where:
- schema and database: `models` (the SQLModel tables), `migrations` and `schema_v1`, `engine`
  (SQLite and PostgreSQL engines), `opening` (`--db` to an engine, or one sentence why not),
  `errors`, `retry` (transient errors), `provenance` (host and versions of a run), `run_filter`
  (`RunFilter`: which runs a listing shows);
- the Store, by concern: `store` (the class), `transactions` (engine, sessions, fencing view),
  `validation`, `runs`, `trials`, `trace_rows` (steps, LLM calls, executions, hits),
  `problems_cache` (problems and the LLM cache), `techniques` (technique edits and the
  libraries runs searched), `trial_queue` (queueing a grid in one
  statement), `leases` and `fencing` (who runs what), `waits` (endpoint outages);
- query modules for the other packages: `queries` (run filters, progress, summaries),
  `run_reads` (run headers, listings, lookups), `trace_reads` (trial lists, call totals,
  siblings, retrieval hits), `report_reads` (the statistics report), `verdict_reads`
  (verdicts by trial key, grading protocols and executions), `amplified_reads` (stored amplified
  benchmark versions, passing programs for differential checks), `bundle_rows` (what an export
  reads), `bulk_insert` (imports and rescores written in one transaction), `columns`
  (each table's shape for the bundle codecs), `status_view` (what `status` reads, in Core only).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from execugraph.domain.lazy_names import lazy_names

if TYPE_CHECKING:  # the names as type checkers and readers see them; at run time `__getattr__` imports each
    from execugraph.store.access import open_store
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
        TechniqueEdit,
        TechniqueLibrarySnapshot,
        Trial,
        utcnow,
    )
    from execugraph.store.retry import StoreBusyError
    from execugraph.store.run_filter import RunFilter
    from execugraph.store.store import DuplicateTrialError, Store, StoreReadOnlyError, StoreUnavailableError

# Where each name lives: its module (or module and name there). Imported on first use (PEP 562), so a submodule such as
# `status_view` or `engine` loads without the SQLModel tables, the ORM and pydantic (`status` starts fast).
_MODELS = ("Execution", "LLMCacheEntry", "LLMCall", "ProblemRecord", "RetrievalHit", "Run", "SchemaMigration", "Step",
           "TechniqueEdit", "TechniqueLibrarySnapshot", "Trial", "utcnow")
_HOME: dict[str, str | tuple[str, str]] = {
    "open_store": "access",
    "make_engine": "engine",
    "SupersededError": "fencing",
    "LATEST_MIGRATION": ("migrations", "LATEST"),
    **dict.fromkeys(_MODELS, "models"),
    "StoreBusyError": "retry",
    "RunFilter": "run_filter",
    **dict.fromkeys(("DuplicateTrialError", "Store", "StoreReadOnlyError", "StoreUnavailableError"), "store"),
}

__all__ = [
    "LATEST_MIGRATION",
    "DuplicateTrialError",
    "Execution",
    "LLMCacheEntry",
    "LLMCall",
    "ProblemRecord",
    "RetrievalHit",
    "Run",
    "RunFilter",
    "SchemaMigration",
    "Step",
    "Store",
    "StoreBusyError",
    "StoreReadOnlyError",
    "StoreUnavailableError",
    "SupersededError",
    "TechniqueEdit",
    "TechniqueLibrarySnapshot",
    "Trial",
    "make_engine",
    "open_store",
    "utcnow",
]

# The submodules other packages import (tests/layout/test_package_interfaces.py).
__all__ += [
    "amplified_reads",
    "batch_cards",
    "batch_reads",
    "bulk_insert",
    "bundle_rows",
    "columns",
    "cost_history",
    "errors",
    "fencing",
    "leases",
    "model_cutoffs",
    "model_time_reads",
    "models",
    "opening",
    "problem_facets",
    "provenance",
    "release_dates",
    "report_reads",
    "retry",
    "row_fields",
    "run_reads",
    "sequential_rows",
    "status_view",
    "technique_library",
    "trace_reads",
    "verdict_reads",
]


__getattr__, __dir__ = lazy_names(__name__, _HOME, __all__)
