"""Run listings for the Runs, Batch and picker widgets: filtered, counted in SQL, newest first."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from execugraph.batch.outcome import Counts, status_word
from execugraph.domain.run_names import conditions_of, name_of, run_name
from execugraph.store import run_reads
from execugraph.store.models import RUN_KINDS, RUN_STATUSES

if TYPE_CHECKING:
    from execugraph.store import RunFilter, Store

ACTIVE_STATUSES = ("queued", "running")


def filter_choices(store: Store) -> dict[str, list[str]]:
    """Values the Runs filters can take: kinds, statuses and the benchmarks present in the store."""
    return {"kind": list(RUN_KINDS), "status": list(RUN_STATUSES), "benchmark": run_reads.benchmarks_in_store(store)}


def trial_counts(store: Store, run_ids: Sequence[int]) -> dict[int, dict[str, int]]:
    """Trials, finished, graded, passed and errored per run, for just these runs (one GROUP BY)."""
    return {
        run_id: {"trials": n, "finished": f, "graded": g, "passed": p, "errors": e}
        for run_id, n, f, g, p, e in run_reads.trial_count_rows(store, run_ids)
    }


def _models_text(models: dict[str, Any] | None) -> str:
    specs = sorted({str(v) for v in (models or {}).values() if v})
    return ", ".join(specs)


def run_rows(store: Store, where: RunFilter | None = None, *, limit: int = 200, **fields: Any) -> list[dict[str, Any]]:
    """One table row per run meeting `where` (and `fields`, RunFilter's fields by keyword), newest first, at most
    `limit`: passed / graded / errors / trials, the pass rate of the graded trials, and the status word
    (`done with errors`, see `run_outcome`)."""
    runs = store.list_runs(where, limit=limit, **fields)
    counts = trial_counts(store, [r.id for r in runs])
    rows = []
    for run in runs:
        c = counts.get(run.id, {"trials": 0, "finished": 0, "graded": 0, "passed": 0, "errors": 0})
        outcome = Counts(total=c["trials"], graded=c["graded"], passed=c["passed"], errors=c["errors"])
        rows.append(
            {
                "id": run.id,
                "name": name_of(run),
                "title": run.title,
                "kind": run.kind,
                "status": status_word(run.status, outcome),
                "benchmark": run.benchmark or "",
                "models": _models_text(run.models),
                "tags": ", ".join(run.tags or []),
                "created": run.created_at,
                "passed": c["passed"],
                "graded": c["graded"],
                "errors": c["errors"],
                "trials": c["trials"],
                "finished": c["finished"],
                "pass_rate": outcome.pass_rate,
            }
        )
    return rows


def run_choices(
    store: Store, *, kind: str | None = None, limit: int = 300, include: Sequence[int] = ()
) -> list[tuple[int, str]]:
    """(id, name) of the newest runs for a picker, plus the runs in `include` wherever they are; narrow columns only.

    The name is `run_names.run_name`: the title (or benchmark, conditions and date) and `#id`.
    """
    return [
        (run.id, _name(run)) for run in run_reads.newest_run_headers(store, kind=kind, limit=limit, include=include)
    ]


def _name(run: run_reads.RunHeader) -> str:
    return run_name(run.id, run.title, benchmark=run.benchmark, conditions=conditions_of(run.config),
                    created=run.created_at)


def names_of_runs(store: Store, run_ids: Sequence[int]) -> dict[int, str]:
    """`run_names.run_name` of just these runs (for labels that mention runs, such as sibling trials)."""
    return {run.id: _name(run) for run in run_reads.run_headers(store, sorted(set(run_ids)))}



def active_batch_ids(store: Store) -> list[int]:
    """Ids of the queued and running batches (a cheap check of whether anything is in flight)."""
    return [r.id for s in ACTIVE_STATUSES for r in store.list_runs(kind="batch", status=s, limit=50)]


def first_of_each(runs: list[Any]) -> list[Any]:
    """Each run once, where it first appears: a batch that changes status between the queries above (queued ->
    running, running -> done) is listed by two of them, and its card must be drawn once (one key per card)."""
    seen: set[int] = set()
    return [r for r in runs if not (r.id in seen or seen.add(r.id))]


def active_batches(store: Store, *, recent: int = 3) -> list[dict[str, Any]]:
    """Queued and running batches (oldest first), then the `recent` last finished ones, with live progress."""
    from execugraph.batch.progress import progress
    from execugraph.providers.outages import waiting_lines
    from execugraph.sequential.summary import alpha_of, describe, state_of

    active = [r for s in ACTIVE_STATUSES for r in store.list_runs(kind="batch", status=s, limit=50)]
    waiting = waiting_lines(store, [r.id for r in active])
    active.sort(key=lambda r: r.id)
    finished = [r for r in store.list_runs(kind="batch", limit=recent + len(active)) if r.status not in ACTIVE_STATUSES]
    from execugraph.store import utcnow
    from ui.views.batch_cards import card_details

    now = utcnow()
    rows = []
    for run in first_of_each([*active, *finished[:recent]]):
        p = progress(store, run.id)
        sequential = state_of(run)
        rows.append(
            {
                "id": run.id,
                "title": run.title,
                "name": name_of(run),
                "status": p.status,
                "cancel_requested": bool(run.cancel_requested),
                "total": p.total,
                "done": p.done,
                "graded": p.graded,
                "passed": p.passed,
                "running": p.running,
                "errors": p.error,
                "pass_rate": p.pass_rate,
                "eta_s": p.eta_s,
                "eta_text": p.eta_text(),  # ETA with its range, or after a cancel what is still finishing
                "error": run.error,
                "waiting": waiting.get(run.id, []),  # `waiting: <endpoint> unreachable since ..., retrying`
                "sequential": describe(sequential, alpha=alpha_of(run)),  # looks and decisions, in words
                "sequential_stopped": bool((sequential or {}).get("stopped")),
                "details": card_details(store, run, now),  # per condition, elapsed, tokens, in flight, subset
            }
        )
    return rows
