"""The exact two-sided Wilcoxon signed-rank p without scipy's per-call overhead.

A report over many runs asks for thousands of signed-rank tests (every pair, every
category of every pair, each with its smallest possible p); `scipy.stats.wilcoxon`
spends about 5 ms per call in argument handling and rebuilds the null distribution
each time. This module gives the same numbers bit for bit (the same null
distribution, built once per n and cached; the same conservative rounding of a
tied statistic, gh-19872; the same tail sums in the same order), checked against
scipy in `tests/stats/test_signed_rank.py`.
"""

from __future__ import annotations

import functools
import math

import numpy as np


@functools.lru_cache(maxsize=1024)
def null_pmf(n: int) -> np.ndarray:
    """P(R+ = r) for r = 0 .. n(n+1)/2 under the null, for n non-zero differences without ties.

    Built by adding one rank at a time (each rank is positive with probability 1/2),
    as scipy builds it, so the floats are the ones scipy sums.
    """
    c = np.ones(1, dtype=np.float64)
    for k in range(1, n + 1):
        prev = c
        c = np.zeros(k * (k + 1) // 2 + 1, dtype=np.float64)
        m = len(prev)
        c[:m] = prev * 0.5
        c[-m:] += prev * 0.5
    c.setflags(write=False)
    return c


def average_ranks(values: np.ndarray) -> np.ndarray:
    """Ranks 1..n of `values`, ties sharing their average rank (scipy's 'average')."""
    n = values.size
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    starts = np.concatenate(([True], ordered[1:] != ordered[:-1]))
    first = np.flatnonzero(starts)
    counts = np.diff(np.append(first, n))
    tied = (first + 1).astype(np.float64) + (counts.astype(np.float64) - 1) / 2
    ranks = np.empty(n, dtype=np.float64)
    ranks[order] = np.repeat(tied, counts)
    return ranks


def _cdf(pmf: np.ndarray, k: int, mean: float) -> float:
    return float(pmf[: k + 1].sum()) if k <= mean else float(1 - pmf[k + 1:].sum())


def _sf(pmf: np.ndarray, k: int, mean: float) -> float:
    return float(pmf[k:].sum()) if k <= mean else float(1 - pmf[:k].sum())


def exact_signed_rank_p(nonzero: np.ndarray) -> float:
    """Two-sided exact p for non-zero paired differences (zeros already dropped), as scipy's `method='exact'`.

    With tied magnitudes the statistic can be a half-integer; the null distribution is
    defined on integers only, so the statistic is rounded down for the upper tail and
    up for the lower one (conservative, symmetric in the arms).
    """
    d = np.asarray(nonzero, dtype=np.float64)
    n = int(d.size)
    if n == 0:
        return 1.0
    ranks = average_ranks(np.abs(d))
    return p_of_statistic(n, float(np.sum((d > 0).astype(np.float64) * ranks)))


@functools.lru_cache(maxsize=65_536)
def p_of_statistic(n: int, r_plus: float) -> float:
    """The two-sided exact p for signed-rank sum `r_plus` (a multiple of 1/2) of n non-zero differences.

    The p depends on the data only through (n, R+), so it is cached: a report's thousands of tests
    share a few hundred statistics (`signed_rank_batch` computes R+ for many vectors at once).
    """
    pmf = null_pmf(n)
    mean = n * (n + 1) / 4
    upper = _sf(pmf, math.floor(r_plus), mean)
    lower = _cdf(pmf, math.ceil(r_plus), mean)
    return float(np.clip(2 * min(upper, lower), 0, 1))
