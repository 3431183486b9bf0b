"""Reads about runs as wholes: narrow headers, listings for pickers, counts per run, lookups by content and family.

Each function reads narrow columns (never a whole trial row) and aggregates in
the database, so pickers and listings stay fast on stores with tens of
thousands of trials. Callers decide what to show; these only fetch.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import String, case, cast, func, select

from execugraph.domain.json_types import JsonObject
from execugraph.store.models import RUN_STATUSES, Run, Trial
from execugraph.store.queries import FINISHED_STATUSES
from execugraph.store.validation import table_of

if TYPE_CHECKING:
    from sqlalchemy.engine import Row

    from execugraph.store.store import Store

RUN = table_of(Run)
TRIAL = table_of(Trial)
HEADER_COLUMNS = (RUN.c.id, RUN.c.title, RUN.c.kind, RUN.c.benchmark, RUN.c.config, RUN.c.models, RUN.c.created_at)


@dataclass(frozen=True)
class RunHeader:
    """What names and describes a run, without its lease bookkeeping or trials."""

    id: int
    title: str
    kind: str
    benchmark: str | None
    config: JsonObject | None  # the run's config column, as stored
    models: JsonObject | None  # its role -> model column, as stored
    created_at: datetime


def header_of(row: Row[Any]) -> RunHeader:
    """A RunHeader from a row of HEADER_COLUMNS."""
    return RunHeader(int(row.id), row.title, row.kind, row.benchmark, row.config, row.models, row.created_at)


def run_headers(store: Store, run_ids: Sequence[int]) -> list[RunHeader]:
    """The headers of those of `run_ids` that exist (in no particular order)."""
    if not run_ids:
        return []
    with store.engine.connect() as conn:
        return [header_of(r) for r in conn.execute(select(*HEADER_COLUMNS).where(RUN.c.id.in_(list(run_ids))))]


def newest_run_headers(
    store: Store, *, kind: str | None = None, limit: int = 300, include: Sequence[int] = ()
) -> list[RunHeader]:
    """The `limit` newest runs (of `kind`), then the runs in `include` that were not among them; newest first each."""
    stmt = select(*HEADER_COLUMNS).order_by(RUN.c.id.desc()).limit(limit)
    if kind:
        stmt = stmt.where(RUN.c.kind == kind)
    with store.engine.connect() as conn:
        rows = [header_of(r) for r in conn.execute(stmt)]
        missing = sorted(set(include) - {row.id for row in rows}, reverse=True)
        if missing:
            extra = conn.execute(select(*HEADER_COLUMNS).where(RUN.c.id.in_(missing)).order_by(RUN.c.id.desc()))
            rows += [header_of(r) for r in extra]
    return rows


def benchmarks_in_store(store: Store) -> list[str]:
    """The benchmarks any run names, sorted."""
    with store.engine.connect() as conn:
        found = conn.execute(
            select(RUN.c.benchmark).distinct().where(RUN.c.benchmark.is_not(None)).order_by(RUN.c.benchmark)
        ).scalars()
        return [b for b in found if b]


def trial_count_rows(store: Store, run_ids: Sequence[int]) -> list[tuple[int, int, int, int, int, int]]:
    """(run id, trials, finished, graded, passed, errored) for each of these runs that has trials (one GROUP BY)."""
    if not run_ids:
        return []
    t = TRIAL.c
    stmt = (
        select(
            t.run_id,
            func.count(),
            func.sum(case((t.status.in_(FINISHED_STATUSES), 1), else_=0)),
            func.sum(case((t.status == "done", 1), else_=0)),
            func.sum(case((t.passed.is_(True), 1), else_=0)),
            func.sum(case((t.status == "error", 1), else_=0)),
        )
        .where(t.run_id.in_(list(run_ids)))
        .group_by(t.run_id)
    )
    with store.engine.connect() as conn:
        return [
            (int(run_id), int(n), int(f or 0), int(g or 0), int(p or 0), int(e or 0))
            for run_id, n, f, g, p, e in conn.execute(stmt)
        ]


def trial_count(store: Store, run_id: int) -> int:
    """How many trials a run has."""
    with store.engine.connect() as conn:
        return int(conn.execute(select(func.count()).where(TRIAL.c.run_id == run_id)).scalar_one())


def conditions_in_order(store: Store, run_ids: Sequence[int]) -> list[str]:
    """The conditions of these runs' trials, in the order they first appear (the order a batch launched them)."""
    if not run_ids:
        return []
    t = TRIAL.c
    stmt = (
        select(t.condition, func.min(t.id).label("first"))
        .where(t.run_id.in_(list(run_ids)))
        .group_by(t.condition)
        .order_by("first")
    )
    with store.engine.connect() as conn:
        return [c for c, _ in conn.execute(stmt) if c]


def conditions_by_run(store: Store, run_ids: Sequence[int]) -> list[tuple[int, str]]:
    """(run id, condition) of these runs, each pair once, in the order the pair first appears."""
    t = TRIAL.c
    stmt = (
        select(t.run_id, t.condition, func.min(t.id).label("first"))
        .where(t.run_id.in_(list(run_ids)), t.condition.is_not(None))
        .group_by(t.run_id, t.condition)
        .order_by("first")
    )
    with store.engine.connect() as conn:
        return [(int(r), c) for r, c, _ in conn.execute(stmt)]


def latest_finished_run(store: Store, kind: str | None = None, *, own_only: bool = False) -> int | None:
    """The newest run (of `kind`) with finished trials, completed runs first (then any status); `own_only`:
    only runs derived from none (not a rescore or other child of another run)."""
    t = TRIAL.c
    with store.engine.connect() as conn:
        for statuses in (("done",), RUN_STATUSES):
            runs = select(RUN.c.id).where(RUN.c.status.in_(statuses), *([RUN.c.kind == kind] if kind else []),
                                          *([RUN.c.parent_run_id.is_(None)] if own_only else []))
            stmt = select(func.max(t.run_id)).where(t.status.in_(FINISHED_STATUSES), t.run_id.in_(runs))
            found = conn.execute(stmt).scalar()
            if found is not None:
                return int(found)
    return None


def runs_mentioning(store: Store, needle: str) -> list[tuple[int, str, JsonObject]]:
    """(id, title, config) of runs whose config JSON contains `needle` (a digest), oldest first."""
    stmt = (
        select(RUN.c.id, RUN.c.title, RUN.c.config)
        .where(cast(RUN.c.config, String).like(f"%{needle}%"))
        .order_by(RUN.c.id)
    )
    with store.engine.connect() as conn:
        return [(int(r.id), r.title, dict(r.config or {})) for r in conn.execute(stmt)]


def runs_by_content_digest(store: Store, digests: set[str]) -> dict[str, int]:
    """The oldest run recording each of `digests` as its content (`config.reference.content_sha256`).

    One scan of the runs that record any content digest, so an import of N folders costs one read, not N.
    """
    if not digests:
        return {}
    found: dict[str, int] = {}
    stmt = (select(RUN.c.id, RUN.c.config).where(cast(RUN.c.config, String).like("%content_sha256%"))
            .order_by(RUN.c.id))
    with store.engine.connect() as conn:
        for row in conn.execute(stmt):
            digest = ((row.config or {}).get("reference") or {}).get("content_sha256")
            if digest in digests and digest not in found:
                found[digest] = int(row.id)
    return found


def suite_paths_in_use(store: Store) -> set[str]:
    """Resolved paths of the suite files batch runs were queued from (`config.batch.benchmark_options.path`)."""
    stmt = select(RUN.c.config).where(RUN.c.kind == "batch", cast(RUN.c.config, String).like('%"path"%'))
    paths = set()
    with store.engine.connect() as conn:
        for (config,) in conn.execute(stmt):
            path = (((config or {}).get("batch") or {}).get("benchmark_options") or {}).get("path")
            if isinstance(path, str) and path:
                paths.add(str(Path(path).resolve()))
    return paths


def rescore_family(store: Store, run_id: int) -> tuple[int, list[int]] | None:
    """(root, its rescores newest first) for a run or one of its rescores; None when the run does not exist.

    The root is the run itself, or for a rescore its parent.
    """
    with store.engine.connect() as conn:
        row = conn.execute(select(RUN.c.id, RUN.c.kind, RUN.c.parent_run_id).where(RUN.c.id == run_id)).first()
        if row is None:
            return None
        root = int(row.parent_run_id if row.kind == "rescore" and row.parent_run_id else row.id)
        children = conn.execute(
            select(RUN.c.id).where(RUN.c.parent_run_id == root, RUN.c.kind == "rescore").order_by(RUN.c.id.desc())
        ).scalars()
        return root, [int(r) for r in children]


def finished_rescores(store: Store, run_id: int) -> list[tuple[int, JsonObject]]:
    """(id, config) of the finished rescores of `run_id`, newest first."""
    with store.engine.connect() as conn:
        rows = conn.execute(
            select(RUN.c.id, RUN.c.config)
            .where(RUN.c.parent_run_id == run_id, RUN.c.kind == "rescore", RUN.c.status == "done")
            .order_by(RUN.c.id.desc())
        ).all()
    return [(int(i), dict(config or {})) for i, config in rows]


def imported_children(store: Store, run_id: int) -> list[tuple[int, JsonObject]]:
    """(id, config) of the import runs whose parent is `run_id` (a file's second verdict set), newest first."""
    with store.engine.connect() as conn:
        rows = conn.execute(
            select(RUN.c.id, RUN.c.config)
            .where(RUN.c.parent_run_id == run_id, RUN.c.kind == "import")
            .order_by(RUN.c.id.desc())
        ).all()
    return [(int(i), dict(config or {})) for i, config in rows]


def run_kinds_and_configs(store: Store, run_ids: Sequence[int]) -> dict[int, tuple[str, JsonObject]]:
    """run id -> (kind, config) for those of `run_ids` that exist."""
    return {h.id: (h.kind, dict(h.config or {})) for h in run_headers(store, run_ids)}


def run_lineage(store: Store, run_ids: Sequence[int]) -> dict[int, tuple[int | None, datetime | None, datetime | None]]:
    """run id -> (parent run id, started_at, finished_at) for those of `run_ids` that exist (how runs derive)."""
    if not run_ids:
        return {}
    r = RUN.c
    stmt = select(r.id, r.parent_run_id, r.started_at, r.finished_at).where(r.id.in_(list(run_ids)))
    with store.engine.connect() as conn:
        return {
            int(i): (int(parent) if parent is not None else None, started, finished)
            for i, parent, started, finished in conn.execute(stmt)
        }


def run_cost_rows(store: Store, run_ids: Sequence[int]) -> list[tuple[int, int, int, float, int]]:
    """(run id, LLM calls, tokens in + out, wall-clock of finished trials, finished trials) per run with trials."""
    if not run_ids:
        return []
    t = TRIAL.c
    finished = t.status.in_(FINISHED_STATUSES)
    stmt = (
        select(
            t.run_id,
            func.sum(t.llm_calls),
            func.sum(func.coalesce(t.tokens_in, 0) + func.coalesce(t.tokens_out, 0)),
            func.sum(case((finished, t.wallclock_s), else_=0.0)),
            func.sum(case((finished, 1), else_=0)),
        )
        .where(t.run_id.in_(list(run_ids)))
        .group_by(t.run_id)
    )
    with store.engine.connect() as conn:
        return [
            (int(run_id), int(calls or 0), int(tokens or 0), float(wall or 0.0), int(done or 0))
            for run_id, calls, tokens, wall, done in conn.execute(stmt)
        ]
