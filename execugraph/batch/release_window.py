"""`batch --released-after / --released-before`: a batch runs only the problems released in a date window, and says
in one line what the window left out (undated problems) or, with `--cutoff` and no window, which problems come after
each model's training cutoff (the selection is never changed silently)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from execugraph.domain.json_types import JsonObject

if TYPE_CHECKING:
    from execugraph.domain.problem import Problem

SHOWN = 10  # problem ids named in a line before "..."


def _named(ids: Sequence[str]) -> str:
    return ", ".join(ids[:SHOWN]) + (" ..." if len(ids) > SHOWN else "")


def in_window(problems: Iterable[Problem], after: str | None, before: str | None, benchmark: str) -> list[Problem]:
    """The problems released in the window (all of them when it is open); ValueError when none is."""
    from execugraph.verdicts.windows import Window

    problems = list(problems)
    window = Window(after, before)
    if window.open:
        return problems
    dated = [p for p in problems if p.release_date]
    kept = [p for p in dated if window.holds(p.release_date)]
    if not kept:
        span = f", dated {min(p.release_date for p in dated)} .. {max(p.release_date for p in dated)}" if dated else ""
        raise ValueError(f"{benchmark}: no problem is {window.describe()} ({len(dated)} dated{span}; "
                         f"{len(problems) - len(dated)} without a release date): nothing to run")
    return kept


def window_record(spec: Any, candidates: Sequence[Problem], chosen: Sequence[Problem]) -> JsonObject | None:
    """What the run config keeps under `release_window`: the window, the problems in it and the undated ones
    left out; or, with cutoffs and no window, the chosen problems released after each cutoff. None otherwise.

    `candidates` are the problems the id and category filters leave (before the window), `chosen` what runs.
    """
    from execugraph.verdicts.windows import Window

    window = Window(spec.released_after, spec.released_before)
    if not window.open:
        return {"released_after": window.after, "released_before": window.before, "problems": len(chosen),
                "undated": [p.id for p in candidates if not p.release_date]}
    if not spec.model_cutoffs:
        return None
    after = {model: [p.id for p in chosen if p.release_date and p.release_date > cutoff]
             for model, cutoff in spec.model_cutoffs.items()}
    return {"released_after": None, "released_before": None, "problems": len(chosen),
            "undated": [p.id for p in chosen if not p.release_date],
            "after_cutoff": {m: {"cutoff": spec.model_cutoffs[m], "problems": ids} for m, ids in after.items()}}


def candidates_of(spec: Any, problems: Iterable[Problem]) -> list[Problem]:
    """The problems the batch's id and category filters leave (what the window then narrows)."""
    ids, categories = set(spec.problem_ids), set(spec.categories)
    return [p for p in problems if (not ids or p.id in ids) and (not categories or p.category in categories)]


def window_line(record: Mapping[str, Any] | None) -> str | None:
    """The one line `batch` prints about the window or the cutoffs (None when the run has neither)."""
    if not record:
        return None
    undated = list(record.get("undated") or [])
    if "after_cutoff" not in record:
        from execugraph.verdicts.windows import Window

        window = Window(record.get("released_after"), record.get("released_before"))
        left = (f"; {len(undated)} problem(s) without a release date left out: {_named(undated)}" if undated
                else "; every problem has a release date")
        return f"release window: {record['problems']} problem(s) {window.describe()} run{left}"
    parts = []
    for model, entry in record["after_cutoff"].items():
        ids = list(entry["problems"])
        parts.append(f"{len(ids)} of {record['problems']} released after {model}'s cutoff {entry['cutoff']}"
                     + (f" ({_named(ids)})" if ids else ""))
    undated_part = f"; {len(undated)} undated" if undated else ""
    return (f"training cutoffs: {'; '.join(parts)}{undated_part}; all {record['problems']} run "
            "(--released-after DATE runs only the problems after it)")
