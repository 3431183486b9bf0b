"""Verdicts decided near a time limit: how much of its CPU limit or wall-clock backstop each test used.

Why: a verdict decided within 20% of a limit could flip on a machine 20% slower or
faster, so a reader must see how many there are. Every execution under sandbox policy 3
records per test `cpu_s` (CPU seconds of the job's processes), `duration_s` (wall
seconds), `cpu_limit_s` and `wall_limit_s`; older executions have no limits and are
counted as not measured. A timeout is listed by the limit that ended it (CPU, the
wall-clock backstop, or the suite's), never as near: it cannot tell how far beyond the
limit the program would have gone.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from execugraph.domain.json_types import JsonObject
from execugraph.grading.limit_use import closest, first_timeout, limit_use, timeout_kind

NEAR_SHARE = 0.8  # within 20% of a limit (the per-test reads live in `grading.limit_use`, which re-grading uses)
__all__ = ["NEAR_SHARE", "near_limit"]


def near_limit(programs: Iterable[Mapping[str, Any]], share: float = NEAR_SHARE) -> JsonObject:
    """Which programs were decided near a limit; each program is a dict with `results` (per-test) and its key fields.

    The result is what `stats --near-limit --json` prints (each near row carries the stored program's own
    key fields, whatever the store recorded), so it stays JSON.

    Returns counts (`programs`, `measured`, `near`, `timeouts` by kind) and the near ones,
    closest first, each with its key fields, the test, and how much of which limit it used.
    """
    counts: Counter[str] = Counter()
    near = []
    total = measured = 0
    for program in programs:
        total += 1
        results = list(program.get("results") or [])
        stopped = first_timeout(results)
        if stopped is not None:
            counts[timeout_kind(stopped) or "wall-clock"] += 1
        if not any(limit_use(t) is not None for t in results):
            continue  # recorded before CPU limits: no limits to be near
        measured += 1
        use = closest(results)
        if use is not None and use.share >= share:
            row = {k: v for k, v in program.items() if k != "results"}
            row.update(test=use.test, limit=use.kind, used_s=round(use.used, 4), limit_s=use.limit,
                       share=round(use.share, 4), detail=use.text())
            near.append(row)
    near.sort(key=lambda r: -r["share"])
    return {"share": share, "programs": total, "measured": measured, "near": near,
            "timeouts": dict(sorted(counts.items()))}
