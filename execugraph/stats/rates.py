"""Pass rates: per arm, per problem, per category, with a 95% Wilson score interval over problems.

Trials of one problem are correlated (same statement, same tests), so the
interval counts problems, not trials: Wilson on Kish's effective number of
problems (`intervals.rate_interval`). A trial-level binomial interval would be
too narrow; a percentile bootstrap over problems collapses to zero width on one
problem or on a 0% / 100% rate, which this interval never does.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from execugraph.stats.intervals import rate_interval
from execugraph.stats.records import ProblemTally

METHOD = (
    "Wilson score 95% interval of the pooled pass rate on the effective number of problems, "
    "(sum of trials)^2 / sum of squared trials per problem (the number of problems when each has the same "
    "number of trials): problems are the sampling unit, so it never collapses to zero width"
)


@dataclass(frozen=True)
class RateSummary:
    """Pooled pass rate over trials with a 95% interval over problems (all None without trials: no data, not 0)."""

    problems: int
    trials: int
    passed: int
    pass_rate: float | None
    ci_lo: float | None
    ci_hi: float | None

    def as_dict(self) -> dict:
        return {
            "problems": self.problems,
            "trials": self.trials,
            "passed": self.passed,
            "pass_rate": self.pass_rate,
            "ci_lo": self.ci_lo,
            "ci_hi": self.ci_hi,
        }


def per_problem_rates(tallies: Mapping[str, ProblemTally]) -> dict[str, float]:
    """Mean pass rate of each problem over its trials (problems without trials are skipped)."""
    return {pid: t.rate for pid, t in tallies.items() if t.trials}


def rate_summary(tallies: Iterable[ProblemTally]) -> RateSummary:
    """The pooled pass rate of these problems and its Wilson interval over problems."""
    rows = sorted((t for t in tallies if t.trials), key=lambda t: t.problem_id)
    total, wins = sum(t.trials for t in rows), sum(t.passed for t in rows)
    interval = rate_interval([t.passed for t in rows], [t.trials for t in rows])
    if interval is None:
        return RateSummary(len(rows), total, wins, None, None, None)
    return RateSummary(len(rows), total, wins, wins / total, interval[0], interval[1])


def category_rates(tallies: Mapping[str, ProblemTally]) -> dict[str, RateSummary]:
    """Pass rate per problem category, categories in sorted order."""
    groups: dict[str, list[ProblemTally]] = {}
    for tally in tallies.values():
        groups.setdefault(tally.category, []).append(tally)
    return {cat: rate_summary(groups[cat]) for cat in sorted(groups)}
