"""Runs that used retrieval but recorded no hits, each with the reason, so the Retrieval page says why they are
missing from its hit list (a published run whose logs carry no retrieval fields shows nothing otherwise)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from execugraph.configuration.conditions import CONDITIONS
from execugraph.domain.run_names import run_name
from execugraph.store import run_reads, trace_reads

if TYPE_CHECKING:
    from execugraph.store import Store

RAG_NAME = re.compile(r"(^|[^a-z])rag([^a-z]|$)", re.IGNORECASE)  # `multi-rag`, `e4_rag_on`, `RAG`


def uses_retrieval(config: Mapping[str, Any] | None) -> bool:
    """Whether a run's config names a condition with retrieval on (by its settings, or by a `rag` name)."""
    conditions = (config or {}).get("conditions")
    named = (config or {}).get("condition")
    entries: dict[str, Any] = {}
    if isinstance(conditions, Mapping):
        entries = {str(k): v for k, v in conditions.items()}
    elif isinstance(conditions, list | tuple):
        entries = {str(c): None for c in conditions}
    if named:
        entries.setdefault(str(named), None)
    for name, settings in entries.items():
        if isinstance(settings, Mapping) and settings.get("retrieval") is True:
            return True
        if (CONDITIONS.get(name) or {}).get("retrieval") is True or RAG_NAME.search(name):
            return True
    return bool(RAG_NAME.search(str((config or {}).get("title") or "")))


def silent_retrieval_runs(store: Store, *, limit: int = 300) -> list[str]:
    """One line per recent run that used retrieval yet stored no hit: which run, and why nothing is shown."""
    with_hits = {r for r, _, _ in trace_reads.runs_with_hits(store, limit=10_000)}
    lines = []
    for run in run_reads.newest_run_headers(store, limit=limit):
        if run.id in with_hits or not (uses_retrieval(run.config) or RAG_NAME.search(run.title or "")):
            continue
        name = run_name(run.id, run.title, benchmark=run.benchmark, created=run.created_at)
        why = ("its logs carry no retrieval fields" if run.kind == "import"
               else "its trials retrieved nothing, or it has not run yet")
        lines.append(f"{name}: this run recorded no retrieval hits ({why})")
    return lines
