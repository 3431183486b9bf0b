"""The ExecuGraph bundle layout: which files, which columns, and how ids are numbered.

A bundle holds one file per store table, one JSON object per row, with every
column of the table under its own name (see `formats.ColumnCodec`). Ids are
bundle-local: runs, trials, steps, LLM calls, executions and retrieval hits are
numbered 1, 2, 3, ... in a fixed order (runs by their database id; the rest by
their trial, then step sequence or database id), and every reference
(`run_id`, `trial_id`, `step_id`, `parent_run_id`) uses those numbers. A bundle
therefore does not depend on which database it came from: exporting, importing
into any database and exporting again gives the same bytes, and the importer
maps the numbers to fresh database ids.

Not exported: the run's lease bookkeeping (`worker_id`, `heartbeat_at`,
`lease_expires_at`, `cancel_requested`) and the `imported_from` marker an import adds to a run's
config (it records which bundle the run came from, for de-duplication).
"""

from __future__ import annotations

from execugraph.publication.formats import ColumnCodec
from execugraph.store.columns import table_shape
from execugraph.store.models import Execution, LLMCall, ProblemRecord, RetrievalHit, Run, Step, Trial

FORMAT = "execugraph-bundle"
FORMAT_VERSION = 1
MANIFEST = "bundle.json"
CONFIG = "config.json"
README = "README.md"
RUN_META = "run_meta.json"
SUMMARY = "summary.json"
CONFIGS_DIR = "configs"

RUNS = "runs.jsonl"
TRIALS = "trials.jsonl"
STEPS = "steps.jsonl"
LLM_CALLS = "llm_calls.jsonl"
EXECUTIONS = "executions.jsonl"
RETRIEVAL_HITS = "retrieval_hits.jsonl"
PROBLEMS = "problems.jsonl"

IMPORT_MARKER = "imported_from"  # key an import adds to Run.config; never exported
RUN_SKIPPED = ("worker_id", "heartbeat_at", "lease_expires_at", "cancel_requested")
TRIAL_DERIVED = "verdict"  # derived from passed/status/error_class; checked, not stored

CODECS: dict[str, ColumnCodec] = {
    RUNS: ColumnCodec(
        table_shape(Run),
        RUNS,
        skip=RUN_SKIPPED,
        json_types={"config": dict, "versions": dict, "models": dict, "tags": list},
    ),
    TRIALS: ColumnCodec(table_shape(Trial), TRIALS),
    STEPS: ColumnCodec(table_shape(Step), STEPS),
    LLM_CALLS: ColumnCodec(table_shape(LLMCall), LLM_CALLS, json_types={"messages": list}),
    EXECUTIONS: ColumnCodec(
        table_shape(Execution),
        EXECUTIONS,
        json_types={"results": list, "isolation": dict},
    ),
    RETRIEVAL_HITS: ColumnCodec(table_shape(RetrievalHit), RETRIEVAL_HITS),
    PROBLEMS: ColumnCodec(table_shape(ProblemRecord), PROBLEMS, json_types={"aliases": list, "tests": list}),
}
TABLE_FILES = (RUNS, TRIALS, STEPS, LLM_CALLS, EXECUTIONS, RETRIEVAL_HITS, PROBLEMS)


def trial_verdict(status: str | None, passed: bool | None, error_class: str | None) -> str | None:
    """One word for a trial's outcome: passed, its error class, failed, or its status while unfinished."""
    if status in ("queued", "running", "cancelled"):
        return status
    if passed:
        return "passed"
    if error_class:
        return error_class
    return "error" if status == "error" else "failed"
