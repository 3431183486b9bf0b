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

import functools
import math
from dataclasses import asdict, dataclass

import numpy as np
from scipy import stats as sps

DETECT_PP = 20.0  # the difference the power sentence speaks of, in percentage points
MAX_PROBLEMS = 1_000_000


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


@functools.lru_cache(maxsize=4096)
def _t_factor(problems: int, alpha: float, power: float) -> float:
    """t[1 - alpha/2, P-1] + t[power, P-1] (cached: the MDD's bisection asks for the same P sixty times)."""
    df = problems - 1
    return float(sps.t.ppf(1 - alpha / 2, df) + sps.t.ppf(power, df))


def _required_delta(delta: float, p0: float, problems: int, trials: int, alpha: float, power: float) -> float:
    p1 = p0 + delta
    s2 = (p0 * (1 - p0) + p1 * (1 - p1)) / trials
    return _t_factor(problems, alpha, power) * math.sqrt(s2 / problems)


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
    from execugraph.stats.wilcoxon import wilcoxon_p

    rng = np.random.default_rng(seed)
    a = rng.binomial(trials, baseline, size=(simulations, problems)) / trials
    b = rng.binomial(trials, baseline + delta, size=(simulations, problems)) / trials
    return float(np.mean([wilcoxon_p(row)[0] < alpha for row in b - a]))


def problems_to_detect(
    delta: float, trials: int, *, baseline: float | None = None, alpha: float = 0.05, power: float = 0.8
) -> int | None:
    """The fewest problems (>= 2) whose paired batch detects `delta` (a fraction) with `power`, by the MDD model.

    `baseline` defaults to 0.5 - delta / 2, the two rates centred on 50% where the
    variance is largest; None when even MAX_PROBLEMS would not do.
    """
    p0 = 0.5 - delta / 2 if baseline is None else baseline
    if not 0.0 < delta <= 1.0 - p0 or trials < 1:
        raise ValueError(f"need 0 < delta <= 1 - baseline and trials >= 1, got delta={delta}, trials={trials}")

    def enough(problems: int) -> bool:
        return _required_delta(delta, p0, problems, trials, alpha, power) <= delta

    if not enough(MAX_PROBLEMS):
        return None
    lo, hi = 1, 2
    while not enough(hi):
        lo, hi = hi, hi * 2
    while hi - lo > 1:  # enough(hi), not enough(lo) (or lo = 1, which a paired test cannot use)
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if enough(mid) else (mid, hi)
    return max(2, hi)


@functools.lru_cache(maxsize=1024)
def power_sentence(
    problems: int, trials: int = 1, *, delta_pp: float = DETECT_PP, alpha: float = 0.05, power: float = 0.8
) -> str:
    """A warning in words when `problems` paired problems cannot detect `delta_pp` ('' when they can).

    "with 1 problem no difference can be detected; about 94 problems would detect a 20 pp
    difference at 80% power (...)": the MDD model above, pass rates centred on 50%.
    """
    trials = max(1, trials)
    delta = delta_pp / 100.0
    needed = problems_to_detect(delta, trials, alpha=alpha, power=power)
    if needed is not None and problems >= needed:
        return ""
    each = f"{trials} trial{'s' if trials != 1 else ''} per problem and arm"
    would = (
        f"about {needed:,} problems would detect a {delta_pp:g} pp difference at {power:.0%} power"
        if needed is not None
        else f"no practical number of problems would detect a {delta_pp:g} pp difference at {power:.0%} power"
    )
    how = f"(paired, two-sided alpha {alpha:g}, {each}, pass rates around 50%)"
    if problems < 2:
        return f"with {problems} problem{'s' if problems != 1 else ''} no difference can be detected; {would} {how}"
    found = minimum_detectable_difference(problems, trials, 0.5 - delta / 2, alpha=alpha, power=power)
    smallest = (
        f"the smallest difference detectable at {power:.0%} power is {found.mdd_pp:.1f} pp"
        if found.mdd_pp is not None
        else "no difference is reliably detectable"
    )
    return f"with {problems} problems {smallest}; {would} {how}"
