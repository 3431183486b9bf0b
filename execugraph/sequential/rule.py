"""What one look at a paired comparison decides, from the per-problem differences so far.

The statistic is the paired score statistic Z = sum(d) / sqrt(sum(d^2)) over the problems
finished, d being a problem's mean pass rate in the arm minus the baseline's. It is the
normal form of the sign-flip (permutation) test of "no difference", equals McNemar's z with
one trial per problem, and stays finite when every difference is the same (a +1 on every
problem early on gives Z = sqrt(n), not infinity). Its null variance does not need a
separate variance estimate, so the spending boundaries apply to it as to a known-variance z.

- **Efficacy**: |Z_k| >= b_k, the boundary of look k from the rule's Lan-DeMets spending function
  (Hwang-Shih-DeCani gamma -2 for `hsd-trend`, O'Brien-Fleming type for `obf-mdd`) at level
  alpha / m (m comparisons against the baseline). Under `hsd-trend` an interim look's Z is
  half-continuity-corrected (|sum d| less half the smallest non-zero |d|, `corrected_z`): with few
  discordant problems the sign-flip distribution of sum d is a coarse lattice whose tails are heavier
  than the normal's, and spending more alpha early (as HSD does) would otherwise let the label-swapped
  error creep past alpha; the final look is uncorrected, so it is the full-data test at b_K.
- **Futility** (non-binding), by the design's rule:
  - `hsd-trend`: the **predictive power** of the observed trend below `design.futility_threshold`
    (0.04): the chance of crossing the final boundary c, averaged over what the data so far say
    the drift is (flat prior; Spiegelhalter, Freedman & Blackburn 1986). With B = Z_t sqrt(t) the
    final statistic is then N(B / t, (1 - t) / t), so
    PP = max(Phi((B / t - c) / sqrt((1 - t) / t)), Phi((-c - B / t) / sqrt((1 - t) / t))), the side
    the trend points to (as conditional power takes the larger direction).
    Unlike conditional power at the point trend B / t, it allows for the trend's own error, so a
    study that ends just past c is stopped at any one look with a chance of at most about the
    threshold, while a null one stops early;
  - `obf-mdd`: conditional power below `design.futility_threshold` (0.10), i.e. the chance of
    crossing the final boundary, given the data so far, were the true difference the planned
    MDD in either direction, with the spread of the differences estimated from the data
    (at least the MDD, the least any difference in [-1, 1] with that mean can spread).
- The **repeated confidence interval** mean(d) +- b_k sqrt(sum d^2) / n (within [-1, 1]; when every
  difference so far is 0, the spread of one added pseudo-problem of difference +-1, so it never has zero
  width) holds with the family's coverage at every look at once, so it may be read whenever the batch stops;
  the **repeated p-value** is the smallest family level at which look k would have stopped
  for efficacy (Jennison & Turnbull, 2000, ch. 9), times m; both are conservative.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from scipy.optimize import brentq
from scipy.stats import norm

from execugraph.sequential.design import SequentialDesign
from execugraph.stats.group_sequential import obf_boundaries

EFFICACY, FUTILITY, CONTINUE, NOT_SIGNIFICANT = "efficacy", "futility", "continue", "not significant"
P_POINTS = 401  # integration points per look for repeated p-values (agrees with the default to 1e-8 in z)


@dataclass(frozen=True)
class LookResult:
    """One look at one comparison: what it saw and what it decided."""

    look: int  # 1-based
    looks: int  # planned looks
    problems: int  # finished problems this look used
    planned: int  # problems in the batch
    delta: float  # mean per-problem difference (arm - baseline), a pass-rate fraction
    z: float  # the efficacy statistic (half-continuity-corrected at hsd-trend's interim looks)
    bound: float  # |z| needed to stop for efficacy at this look
    conditional_power: float | None  # the futility statistic (predictive power under hsd-trend); None at the end
    decision: str  # efficacy, futility, continue, or not significant (final look, no crossing)
    ci_low: float
    ci_high: float
    p_repeated: float | None = None  # filled by `with_p` (it costs a root search)

    @property
    def fraction(self) -> float:
        return self.problems / self.planned

    @property
    def stopped(self) -> bool:
        return self.decision != CONTINUE

    def as_dict(self) -> dict:
        return asdict(self) | {"fraction": self.fraction}


def score_z(diffs: Sequence[float]) -> float:
    """sum(d) / sqrt(sum(d^2)); 0 when every difference is 0."""
    total, squares = math.fsum(diffs), math.fsum(d * d for d in diffs)
    return 0.0 if squares <= 0 else total / math.sqrt(squares)


def half_step(diffs: Sequence[float]) -> float:
    """Half of the smallest non-zero |d|: half the step of sum(d) when one problem's sign flips (0 if none)."""
    steps = [abs(d) for d in diffs if d != 0]
    return 0.5 * min(steps) if steps else 0.0


def corrected_z(diffs: Sequence[float], correction: float) -> float:
    """sign(sum d) max(0, |sum d| - correction) / sqrt(sum d^2): the score statistic, continuity-corrected."""
    total, squares = math.fsum(diffs), math.fsum(d * d for d in diffs)
    if squares <= 0:
        return 0.0
    return math.copysign(max(0.0, abs(total) - correction), total) / math.sqrt(squares)


def conditional_power(z: float, t: float, final_bound: float, drift: float) -> float:
    """P(|Z_final| >= final_bound | Z_t = z), the true drift +-`drift` (whichever direction gives more)."""
    if t >= 1:
        return float(abs(z) >= final_bound)
    b_t, rest = z * math.sqrt(t), math.sqrt(1 - t)
    up = norm.sf((final_bound - b_t - drift * (1 - t)) / rest)
    down = norm.cdf((-final_bound - b_t + drift * (1 - t)) / rest)
    return float(max(up, down))


def predictive_power(z: float, t: float, final_bound: float) -> float:
    """P(Z_final crosses +-final_bound) given Z_t = z, the drift unknown with a flat prior (the observed trend).

    The side that gives more counts, as in `conditional_power`: the chance of becoming significant in the
    direction the data point to (the other side adds at most as much again, near z = 0).
    """
    if t >= 1:
        return float(abs(z) >= final_bound)
    if t <= 0:
        raise ValueError(f"information fraction must lie in (0, 1], got {t}")
    mean, sd = z / math.sqrt(t), math.sqrt((1 - t) / t)
    # Phi(x) = erfc(-x / sqrt 2) / 2, as scipy's norm.cdf, without its per-call overhead (replays call this a lot)
    return max(0.5 * math.erfc((final_bound - mean) / sd / math.sqrt(2)),
               0.5 * math.erfc((final_bound + mean) / sd / math.sqrt(2)))


def look(
    diffs: Sequence[float], *, design: SequentialDesign, planned: int, comparisons: int = 1, mdd: float
) -> LookResult:
    """The decision at the look whose size is len(diffs) (one of `design.look_sizes(planned)`)."""
    sizes = design.look_sizes(planned)
    n = len(diffs)
    if n not in sizes:
        raise ValueError(f"{n} problems is not a planned look of {planned} (looks at {sizes})")
    k = sizes.index(n)
    bounds = design.boundaries(planned, comparisons)
    trend = score_z(diffs)
    squares = math.fsum(d * d for d in diffs)
    delta = math.fsum(diffs) / n
    final = k == len(sizes) - 1
    correction = 0.0 if final or design.rule != "hsd-trend" else half_step(diffs)
    z = corrected_z(diffs, correction)
    # sum d^2 = 0 (every problem so far agrees, e.g. one problem both arms passed) would give [+0.0, +0.0]: then the
    # spread is that of one added pseudo-problem of difference +-1; otherwise the interval is the test's inversion
    spread = math.sqrt(squares / n) if squares > 0 else math.sqrt(1.0 / (n + 1.0))
    half = bounds[k] * spread / math.sqrt(n) + correction / n
    cp = None
    if not final and design.rule == "hsd-trend":
        cp = predictive_power(trend, n / planned, bounds[-1])
    elif not final:
        spread = max(math.sqrt(squares / n), mdd)
        cp = conditional_power(z, n / planned, bounds[-1], mdd * math.sqrt(planned) / spread)
    threshold = design.futility_threshold
    if abs(z) >= bounds[k]:
        decision = EFFICACY
    elif final:
        decision = NOT_SIGNIFICANT
    elif threshold > 0 and cp is not None and cp < threshold:
        decision = FUTILITY
    else:
        decision = CONTINUE
    low, high = max(-1.0, delta - half), min(1.0, delta + half)  # a pass-rate difference lies in [-1, 1]
    return LookResult(k + 1, len(sizes), n, planned, delta, z, bounds[k], cp, decision, low, high)


def first_stop(
    diffs_in_order: Sequence[float], *, design: SequentialDesign, comparisons: int = 1, mdd: float,
    planned: int | None = None,
) -> LookResult:
    """Walk the looks over the differences in the order the problems ran; the first that stops.

    With fewer differences than `planned`, the last look reached is returned (deciding `continue`).
    """
    planned = len(diffs_in_order) if planned is None else planned
    result: LookResult | None = None
    for size in design.look_sizes(planned):
        if size > len(diffs_in_order):
            break
        result = look(diffs_in_order[:size], design=design, planned=planned, comparisons=comparisons, mdd=mdd)
        if result.stopped:
            return result
    if result is None:
        raise ValueError(f"no look reached: the first is at {design.look_sizes(planned)[0]} problems")
    return result


def repeated_p(result: LookResult, design: SequentialDesign, comparisons: int = 1) -> float:
    """The smallest family level at which `result`'s look would have stopped for efficacy (<= 1)."""
    sizes = design.look_sizes(result.planned)[: result.look]
    fractions = [n / result.planned for n in sizes]
    target = abs(result.z)
    m = max(1, comparisons)
    spent = design.spending()

    def gap(family_alpha: float) -> float:
        return obf_boundaries(fractions, family_alpha / m, two_sided=True, points=P_POINTS, spent=spent)[-1] - target

    lo, hi = 1e-12, 0.999
    if gap(hi) > 0:
        return 1.0
    if gap(lo) <= 0:
        return lo
    return float(brentq(gap, lo, hi, xtol=1e-10, rtol=1e-8))


def with_p(result: LookResult, design: SequentialDesign, comparisons: int = 1) -> LookResult:
    """`result` with its repeated p-value filled in."""
    from dataclasses import replace

    return replace(result, p_repeated=repeated_p(result, design, comparisons))
