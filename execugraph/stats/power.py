"""Planning: the smallest pass-rate difference a planned paired batch can detect.

Approximation (documented because the Batch form shows its result before launch):
every problem has the baseline pass rate p0 in arm A and p1 = p0 + delta in arm B,
and trials are independent Bernoulli draws. The per-problem difference of mean
pass rates over T trials then has variance s2 = (p0(1-p0) + p1(1-p1)) / T, and the
paired test on the mean over P problems detects delta with the requested power when

    delta = (t[1 - alpha/2, P-1] + t[power, P-1]) * sqrt(s2 / P),

the usual normal-theory power equation with Student quantiles for small P. Because
s2 depends on delta the equation is solved numerically. Heterogeneous problem
difficulty only lowers the within-problem variance, so with respect to difficulty
the answer is conservative; it assumes the effect is the same on every problem.
The test the report uses (exact Wilcoxon on the per-problem differences) is less
powerful than this t-test when the differences are heavily tied, as they are with
few trials per problem: simulated power at the MDD is about 0.76 with 5 trials and
0.68 with 1 trial (30 and 164 problems). `simulated_power` measures it for a
concrete design when that matters.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np
from scipy import stats as sps

from execugraph.stats.paired import wilcoxon_p


@dataclass(frozen=True)
class DetectableDifference:
    """Minimum detectable improvement over the baseline, in percentage points (None if none)."""

    problems: int
    trials: int
    baseline: float
    alpha: float
    power: float
    mdd_pp: float | None
    note: str = ""

    def as_dict(self) -> dict:
        return asdict(self)


def _required_delta(delta: float, p0: float, problems: int, trials: int, alpha: float, power: float) -> float:
    p1 = p0 + delta
    s2 = (p0 * (1 - p0) + p1 * (1 - p1)) / trials
    df = problems - 1
    factor = sps.t.ppf(1 - alpha / 2, df) + sps.t.ppf(power, df)
    return float(factor * math.sqrt(s2 / problems))


def minimum_detectable_difference(
    problems: int, trials: int, baseline: float, *, alpha: float = 0.05, power: float = 0.8
) -> DetectableDifference:
    """MDD (upwards from `baseline`) for P problems x T trials per arm, two-sided at `alpha`.

    Raises ValueError naming the bad argument; returns mdd_pp=None with a note when
    even the largest possible improvement (to a 100% pass rate) is not detectable.
    """
    if problems < 2:
        raise ValueError(f"problems must be >= 2 for a paired test, got {problems}")
    if trials < 1:
        raise ValueError(f"trials per problem must be >= 1, got {trials}")
    if not 0.0 <= baseline < 1.0:
        raise ValueError(f"baseline pass rate must be in [0, 1), got {baseline}")
    if not 0.0 < alpha < 1.0 or not 0.0 < power < 1.0:
        raise ValueError(f"alpha and power must be in (0, 1), got alpha={alpha}, power={power}")

    def gap(delta: float) -> float:
        return delta - _required_delta(delta, baseline, problems, trials, alpha, power)

    hi = 1.0 - baseline
    if gap(hi) < 0:
        return DetectableDifference(
            problems, trials, baseline, alpha, power, None, "no improvement up to a 100% pass rate is detectable"
        )
    lo = 0.0  # gap(0) < 0 whenever there is any noise, so the root lies in (0, hi]
    for _ in range(60):
        mid = (lo + hi) / 2
        if gap(mid) < 0:
            lo = mid
        else:
            hi = mid
    return DetectableDifference(problems, trials, baseline, alpha, power, hi * 100.0)


def simulated_power(
    problems: int,
    trials: int,
    baseline: float,
    delta: float,
    *,
    alpha: float = 0.05,
    simulations: int = 500,
    seed: int = 0,
) -> float:
    """Share of simulated paired batches in which the report's Wilcoxon test rejects at `alpha`.

    Same model as the MDD (every problem at `baseline` vs `baseline + delta`,
    independent trials); about 1 ms per simulation for 30 problems.
    """
    if not 0.0 <= baseline + delta <= 1.0:
        raise ValueError(f"baseline + delta must be a pass rate in [0, 1], got {baseline + delta}")
    rng = np.random.default_rng(seed)
    a = rng.binomial(trials, baseline, size=(simulations, problems)) / trials
    b = rng.binomial(trials, baseline + delta, size=(simulations, problems)) / trials
    return float(np.mean([wilcoxon_p(row)[0] < alpha for row in b - a]))
