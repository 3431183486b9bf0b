"""Score confidence intervals that keep a width on few problems: Wilson for a rate, Newcombe's for a paired delta.

Why: a percentile bootstrap over n problems collapses to zero width when every
resample looks the same (one problem, or every problem passing), and a Wald
interval does the same at 0% or 100%. Score intervals never do.

- `wilson`: the Wilson (1927) score interval for a binomial proportion, the
  inversion of the score test; accepts a fractional count (an effective sample).
- `rate_interval`: a pooled pass rate over problems with several trials each.
  Problems are the sampling unit (trials of one problem are correlated), so the
  Wilson interval is taken on Kish's effective number of problems
  n_eff = (sum m_i)^2 / sum m_i^2 (m_i = trials of problem i; the number of
  problems when all have the same number of trials, the number of trials when
  each problem has one). A mean of values in [0, 1] has variance at most
  p(1 - p), so this is conservative whatever the correlation within a problem.
- `newcombe_paired`: Newcombe (1998, "Improved confidence intervals for the
  difference between binomial proportions based on paired data", Stat Med 17,
  2635-2650), method 10: square-and-add of the two margins' Wilson intervals with
  the correlation phi, whose numerator AD - BC is corrected to AD - BC - N/2 when
  above N/2, to 0 when within [0, N/2], and kept when negative; phi = 0 when any
  margin is empty.
- `paired_rates_interval`: method 10 on per-problem pass rates. For 0/1 rates it
  is exactly `newcombe_paired` (AD - BC = n^2 cov(x, y), EFGH = n^4 p1(1-p1)p2(1-p2));
  for fractional rates the same formula uses their covariance and the margins'
  Wilson intervals on n problems, which bound the true variances from above.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from statistics import NormalDist

Z95 = NormalDist().inv_cdf(0.975)  # 1.959963984540054

WILSON = "Wilson score"
NEWCOMBE = "Newcombe method 10"


def wilson(successes: float, n: float, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of successes / n at the two-sided level of `z` (95% by default); never zero width.

    (p + z^2/2n -+ z sqrt(p(1-p)/n + z^2/4n^2)) / (1 + z^2/n). `successes` may be
    fractional (an effective count); ValueError unless 0 <= successes <= n and n > 0.
    """
    if not n > 0:
        raise ValueError(f"wilson: need n > 0, got n={n}")
    if not -1e-9 <= successes <= n + 1e-9:
        raise ValueError(f"wilson: need 0 <= successes <= n, got successes={successes}, n={n}")
    p = min(1.0, max(0.0, successes / n))
    z2 = z * z
    denominator = 1.0 + z2 / n
    centre = (p + z2 / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denominator
    lower = 0.0 if p == 0.0 else max(0.0, centre - half)  # exact ends: rounding must not leave 1 - 1e-16
    upper = 1.0 if p == 1.0 else min(1.0, centre + half)
    return (lower, upper)


def effective_problems(trials: Sequence[float]) -> float:
    """Kish's effective sample size of a pooled rate over problems: (sum m)^2 / sum m^2 (0.0 without trials)."""
    squares = sum(m * m for m in trials)
    return (sum(trials) ** 2) / squares if squares else 0.0


def rate_interval(passed: Sequence[float], trials: Sequence[float], z: float = Z95) -> tuple[float, float] | None:
    """95% interval of the pooled rate sum(passed) / sum(trials): Wilson on the effective number of problems.

    One value per problem; None without trials (no data is not 0%).
    """
    total = float(sum(trials))
    if total <= 0:
        return None
    n_eff = effective_problems(trials)
    return wilson(n_eff * float(sum(passed)) / total, n_eff, z)


def _corrected_phi(n: float, p1: float, p2: float, n2_cov: float) -> float:
    """Newcombe's corrected phi from AD - BC (= n^2 cov) and the margins; 0 when a margin is empty."""
    if min(p1, 1 - p1, p2, 1 - p2) <= 0:
        return 0.0
    if n2_cov > n / 2:
        numerator = n2_cov - n / 2
    elif n2_cov >= 0:
        numerator = 0.0
    else:
        numerator = n2_cov
    return max(-1.0, min(1.0, numerator / (n * n * math.sqrt(p1 * (1 - p1) * p2 * (1 - p2)))))


def _square_and_add(n: float, p1: float, p2: float, n2_cov: float, z: float) -> tuple[float, float]:
    """Method 10's limits for p1 - p2 from the margins' Wilson intervals and the corrected phi."""
    l1, u1 = wilson(n * p1, n, z)
    l2, u2 = wilson(n * p2, n, z)
    phi = _corrected_phi(n, p1, p2, n2_cov)
    d1, e1, d2, e2 = p1 - l1, u1 - p1, p2 - l2, u2 - p2
    theta = p1 - p2
    lower = theta - math.sqrt(max(0.0, d1 * d1 - 2 * phi * d1 * e2 + e2 * e2))
    upper = theta + math.sqrt(max(0.0, e1 * e1 - 2 * phi * e1 * d2 + d2 * d2))
    return (max(-1.0, lower), min(1.0, upper))


def newcombe_paired(a: int, b: int, c: int, d: int, z: float = Z95) -> tuple[float, float]:
    """Newcombe's method 10 interval for p1 - p2 = (b - c) / n of a paired 2x2 table.

    a: both succeed, b: only the first, c: only the second, d: neither
    (p1 = (a + b) / n, p2 = (a + c) / n). ValueError for negative counts or an empty table.
    """
    if min(a, b, c, d) < 0 or a + b + c + d == 0:
        raise ValueError(f"newcombe_paired: need counts >= 0 and a table that is not empty, got {(a, b, c, d)}")
    n = a + b + c + d
    return _square_and_add(n, (a + b) / n, (a + c) / n, float(a * d - b * c), z)


def paired_rates_interval(
    first: Sequence[float], second: Sequence[float], z: float = Z95
) -> tuple[float, float] | None:
    """Method 10 for mean(first) - mean(second) over paired per-problem rates in [0, 1] (None without problems).

    With 0/1 rates it equals `newcombe_paired` on their 2x2 table; with fractional
    rates it uses their covariance for AD - BC / n^2.
    """
    n = len(first)
    if n != len(second):
        raise ValueError(f"paired_rates_interval: {n} and {len(second)} values are not paired")
    if n == 0:
        return None
    p1 = math.fsum(first) / n
    p2 = math.fsum(second) / n
    n2_cov = n * math.fsum(map(operator.mul, first, second)) - n * n * p1 * p2  # lengths checked above
    return _square_and_add(float(n), p1, p2, n2_cov, z)
