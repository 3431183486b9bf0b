"""What one look at a paired comparison decides, from the per-problem differences so far.

The statistic is the paired score statistic Z = sum(d) / sqrt(sum(d^2)) over the problems
finished, d being a problem's mean pass rate in the arm minus the baseline's. It is the
normal form of the sign-flip (permutation) test of "no difference", equals McNemar's z with
one trial per problem, and stays finite when every difference is the same (a +1 on every
problem early on gives Z = sqrt(n), not infinity). Its null variance does not need a
separate variance estimate, so the spending boundaries apply to it as to a known-variance z.

- **Efficacy**: |Z_k| >= b_k, the Lan-DeMets O'Brien-Fleming-type boundary of look k at level
  alpha / m (m comparisons against the baseline).
- **Futility** (non-binding): conditional power below `design.futility`, i.e. the chance of
  crossing the final boundary, given the data so far, were the true difference the planned
  MDD in either direction, with the spread of the differences estimated from the data
  (at least the MDD, the least any difference in [-1, 1] with that mean can spread).
- The **repeated confidence interval** mean(d) +- b_k sqrt(sum d^2) / n (within [-1, 1]) holds with the
  family's coverage at every look at once, so it may be read whenever the batch stops;
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
    z: float
    bound: float  # |z| needed to stop for efficacy at this look
    conditional_power: float | None  # None at the final look
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


def conditional_power(z: float, t: float, final_bound: float, drift: float) -> float:
    """P(|Z_final| >= final_bound | Z_t = z), the true drift +-`drift` (whichever direction gives more)."""
    if t >= 1:
        return float(abs(z) >= final_bound)
    b_t, rest = z * math.sqrt(t), math.sqrt(1 - t)
    up = norm.sf((final_bound - b_t - drift * (1 - t)) / rest)
    down = norm.cdf((-final_bound - b_t + drift * (1 - t)) / rest)
    return float(max(up, down))


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
    z = score_z(diffs)
    squares = math.fsum(d * d for d in diffs)
    delta = math.fsum(diffs) / n
    half = bounds[k] * math.sqrt(squares) / n
    final = k == len(sizes) - 1
    cp = None
    if not final:
        spread = max(math.sqrt(squares / n), mdd)
        cp = conditional_power(z, n / planned, bounds[-1], mdd * math.sqrt(planned) / spread)
    if abs(z) >= bounds[k]:
        decision = EFFICACY
    elif final:
        decision = NOT_SIGNIFICANT
    elif design.futility > 0 and cp is not None and cp < design.futility:
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

    def gap(family_alpha: float) -> float:
        return obf_boundaries(fractions, family_alpha / m, two_sided=True, points=P_POINTS)[-1] - target

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
