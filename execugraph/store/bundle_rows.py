"""What an export reads: every column of the exported runs and of everything under them, in a fixed order.

A publication bundle holds whole rows (see `publication.layout`), so these reads
take every column, unlike the narrow reads of the pages: the runs, their trials
in id order, each trial's steps (by sequence), LLM calls, executions and
retrieval hits (by id), and the problems the trials name. Rows come back as
plain dicts with database ids; the export renumbers them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from sqlalchemy import select

from execugraph.domain.json_types import JsonObject
from execugraph.store.models import Execution, LLMCall, ProblemRecord, RetrievalHit, Run, Step, Trial
from execugraph.store.validation import table_of

if TYPE_CHECKING:
    from execugraph.store.store import Store

Row = JsonObject  # one table row by column name, as a bundle writes it


@dataclass
class BundleRows:
    """Everything under some runs, with database ids still in place."""

    runs: list[Row]
    trials: list[Row]
    steps: list[Row]
    llm_calls: list[Row]
    executions: list[Row]
    hits: list[Row]
    problems: list[Row]


def run_rows(store: Store, run_ids: Sequence[int]) -> list[Row]:
    """Every column of those of `run_ids` that exist, by id."""
    runs = table_of(Run)
    with store.engine.connect() as conn:
        stmt = select(runs).where(runs.c.id.in_(sorted(set(run_ids)))).order_by(runs.c.id)
        return [dict(r._mapping) for r in conn.execute(stmt)]


def rows_of_runs(store: Store, run_ids: Sequence[int]) -> BundleRows:
    """The runs (by id), their trials (by id), the trials' trace rows (by trial, then step sequence or id)
    and their problems (by benchmark and id), read in one snapshot."""
    runs_t, trials_t, problems_t = table_of(Run), table_of(Trial), table_of(ProblemRecord)
    wanted = sorted({int(r) for r in run_ids})
    with store.engine.connect() as conn:
        runs = [dict(r._mapping) for r in conn.execute(select(runs_t).where(runs_t.c.id.in_(wanted)))]
        runs.sort(key=lambda r: r["id"])
        trials = [
            dict(r._mapping)
            for r in conn.execute(select(trials_t).where(trials_t.c.run_id.in_(wanted)).order_by(trials_t.c.id))
        ]
        trial_ids = select(trials_t.c.id).where(trials_t.c.run_id.in_(wanted))

        def children(model: Any, order: str) -> list[Row]:
            table = table_of(model)
            stmt = select(table).where(table.c.trial_id.in_(trial_ids)).order_by(table.c.trial_id, table.c[order])
            return [dict(r._mapping) for r in conn.execute(stmt)]

        steps = children(Step, "seq")
        llm_calls = children(LLMCall, "id")
        executions = children(Execution, "id")
        hits = children(RetrievalHit, "id")
        keys = sorted({(t["benchmark"], t["problem_id"]) for t in trials})
        problems = []
        for benchmark in sorted({b for b, _ in keys}):
            ids = [p for b, p in keys if b == benchmark]
            stmt = select(problems_t).where(problems_t.c.benchmark == benchmark, problems_t.c.problem_id.in_(ids))
            problems.extend(dict(r._mapping) for r in conn.execute(stmt))
    problems.sort(key=lambda p: (p["benchmark"], p["problem_id"]))
    return BundleRows(runs, trials, steps, llm_calls, executions, hits, problems)


def database_folder(store: Store) -> Path | None:
    """The folder holding a SQLite store's file (None for a server database)."""
    if store.engine.dialect.name != "sqlite":
        return None
    database = unquote(str(store.engine.url.database or "").removeprefix("file:").partition("?")[0])
    return Path(database).parent if database else None
