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
from dataclasses import dataclass
from typing import Any

from execugraph.configuration.json_types import JsonObject

NEAR_SHARE = 0.8  # within 20% of a limit
TIMEOUT_KINDS = {"CpuTimeLimit": "cpu", "WallTimeLimit": "wall", "SuiteTimeLimit": "suite", "Timeout": "wall-clock",
                 "BlockedTimeLimit": "blocked", "NotRun": "not-run"}


def _number(value: Any) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0:
        return float(value)
    return None


@dataclass(frozen=True)
class LimitUse:
    """How close one test came to a limit: `used` of `limit` seconds of `kind` ('CPU' or 'wall')."""

    test: str
    kind: str
    used: float
    limit: float

    @property
    def share(self) -> float:
        return self.used / self.limit if self.limit > 0 else 0.0

    def text(self) -> str:
        what = "CPU limit" if self.kind == "CPU" else "wall-clock backstop"
        return f"test {self.test!r} used {self.used:.3g} s of its {self.limit:g} s {what} ({self.share:.0%})"


def limit_use(test: Mapping[str, Any]) -> LimitUse | None:
    """The larger of a test's CPU share and wall share, or None when its result records no limits."""
    name = str(test.get("name") or "?")
    uses = []
    cpu, cpu_limit = _number(test.get("cpu_s")), _number(test.get("cpu_limit_s"))
    if cpu is not None and cpu_limit:
        uses.append(LimitUse(name, "CPU", cpu, cpu_limit))
    wall, wall_limit = _number(test.get("duration_s")), _number(test.get("wall_limit_s"))
    if wall is not None and wall_limit:
        uses.append(LimitUse(name, "wall", wall, wall_limit))
    return max(uses, key=lambda u: u.share) if uses else None


def timeout_kind(test: Mapping[str, Any]) -> str | None:
    """'cpu', 'wall', 'suite', 'blocked' (sleeping or waiting past its budget), 'not-run' (after an earlier
    timeout) or 'wall-clock' (a policy before CPU limits) for a timed-out test, else None."""
    if test.get("verdict") != "timeout":
        return None
    return TIMEOUT_KINDS.get(str(test.get("error_class") or ""), "wall-clock")


def closest(results: Iterable[Mapping[str, Any]]) -> LimitUse | None:
    """The test of one execution that came closest to a limit without timing out."""
    uses = [u for t in results if timeout_kind(t) is None and (u := limit_use(t)) is not None]
    return max(uses, key=lambda u: u.share) if uses else None


def first_timeout(results: Iterable[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    return next((t for t in results if timeout_kind(t) is not None), None)


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
