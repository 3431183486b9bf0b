"""Pass rates: per arm, per problem, per category, with problem-level bootstrap CIs.

Trials of one problem are correlated (same statement, same tests), so confidence
intervals resample problems, not trials; a trial-level binomial interval would be
too narrow.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from execugraph.stats.bootstrap import DEFAULT_BOOTSTRAP, DEFAULT_SEED, BootstrapBatch
from execugraph.stats.records import ProblemTally


@dataclass(frozen=True)
class RateSummary:
    """Pooled pass rate over trials with a 95% CI that resamples problems (all None without trials: no data, not 0)."""

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


def rate_vectors(tallies: Iterable[ProblemTally]) -> tuple[list[ProblemTally], np.ndarray, np.ndarray]:
    """Problems with trials, sorted by id (the order fixes the resample), and their trials/passed vectors."""
    rows = sorted((t for t in tallies if t.trials), key=lambda t: t.problem_id)
    trials = np.array([t.trials for t in rows], dtype=np.int64)
    passed = np.array([t.passed for t in rows], dtype=np.int64)
    return rows, trials, passed


def defer_rate(tallies: Iterable[ProblemTally], batch: BootstrapBatch) -> Callable[[], RateSummary]:
    """Register a pooled pass rate's bootstrap in `batch`; call the result once all are registered."""
    rows, trials, passed = rate_vectors(tallies)
    total, wins = int(trials.sum()), int(passed.sum())
    rate = wins / total if total else None
    num, den = batch.add(passed), batch.add(trials)

    def finish() -> RateSummary:
        if not total:
            return RateSummary(len(rows), total, wins, None, None, None)
        lo, hi = batch.ratio_ci(num, den)
        return RateSummary(len(rows), total, wins, rate, lo, hi)

    return finish


def defer_category_rates(
    tallies: Mapping[str, ProblemTally], batch: BootstrapBatch
) -> Callable[[], dict[str, RateSummary]]:
    """Register every category's pass rate in `batch`; the result maps category -> RateSummary, sorted."""
    groups: dict[str, list[ProblemTally]] = {}
    for tally in tallies.values():
        groups.setdefault(tally.category, []).append(tally)
    pending = {cat: defer_rate(groups[cat], batch) for cat in sorted(groups)}
    return lambda: {cat: finish() for cat, finish in pending.items()}


def category_rates(
    tallies: Mapping[str, ProblemTally], *, n_boot: int = DEFAULT_BOOTSTRAP, seed: int = DEFAULT_SEED
) -> dict[str, RateSummary]:
    """Pass rate per problem category, categories in sorted order."""
    return defer_category_rates(tallies, BootstrapBatch(n_boot, seed))()
