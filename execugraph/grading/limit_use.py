"""How close one test result came to its limits, and which limit ended a timeout: per-test reads of grading results.

Why here and not in `execugraph.stats`: re-grading (`verdicts.flip_reasons`) reads them for every flip, and
importing anything under `execugraph.stats` loads the whole statistics engine (scipy) into a `rescore` that
needs none of it. `execugraph.stats.near_limit` builds its counts on these.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

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
