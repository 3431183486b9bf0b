"""Score intervals against independent computations: scipy's Wilson, a published Newcombe example, hand algebra."""

from __future__ import annotations

import math
import random

import pytest
from scipy.stats import binomtest

from execugraph.stats.intervals import (
    Z95,
    effective_problems,
    newcombe_paired,
    paired_rates_interval,
    rate_interval,
    wilson,
)


@pytest.mark.parametrize("n", [1, 2, 3, 5, 10, 30, 164])
def test_wilson_matches_scipy_and_never_collapses(n):
    for k in range(n + 1):
        ref = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
        lo, hi = wilson(k, n)
        assert (lo, hi) == pytest.approx((ref.low, ref.high), abs=1e-12)
        assert hi - lo > 0 and lo <= k / n <= hi


def test_wilson_at_the_edges_by_hand():
    # p = 1 of n = 1: (1 + z^2/2 -+ z^2/2) / (1 + z^2) -> [1 / (1 + z^2), 1]
    z2 = Z95**2
    assert wilson(1, 1) == pytest.approx((1 / (1 + z2), 1.0))
    assert wilson(0, 1) == pytest.approx((0.0, z2 / (1 + z2)))
    assert wilson(1, 1)[0] == pytest.approx(0.20654931, abs=1e-8)
    with pytest.raises(ValueError, match="n > 0"):
        wilson(0, 0)
    with pytest.raises(ValueError, match="successes <= n"):
        wilson(3, 2)


def test_newcombe_method_10_reproduces_the_published_example():
    # Fagerland, Lydersen & Laake (2017), "Statistical Analysis of Contingency Tables", ch. 8: complete response
    # before and after consolidation therapy (Cavo et al., 2012), a=59, b=6, c=16, d=80: -0.0621 (-0.1186 to -0.0046)
    lo, hi = newcombe_paired(59, 6, 16, 80)
    assert (round(lo, 4), round(hi, 4)) == (-0.1186, -0.0046)
    assert (6 - 16) / 161 == pytest.approx(-0.0621, abs=5e-5)


def _by_hand(a: int, b: int, c: int, d: int) -> tuple[float, float]:
    """Method 10 written out from the paper's definitions, with scipy's Wilson limits for the margins."""
    n = a + b + c + d
    p1, p2 = (a + b) / n, (a + c) / n
    w1 = binomtest(a + b, n).proportion_ci(method="wilson")
    w2 = binomtest(a + c, n).proportion_ci(method="wilson")
    margins = (a + b) * (c + d) * (a + c) * (b + d)
    ad_bc = a * d - b * c
    if margins == 0:
        phi = 0.0
    elif ad_bc > n / 2:
        phi = (ad_bc - n / 2) / math.sqrt(margins)
    elif ad_bc >= 0:
        phi = 0.0
    else:
        phi = ad_bc / math.sqrt(margins)
    dl, eu = p1 - w1.low, w2.high - p2
    du, el = w1.high - p1, p2 - w2.low
    return (p1 - p2 - math.sqrt(dl**2 - 2 * phi * dl * eu + eu**2),
            p1 - p2 + math.sqrt(du**2 - 2 * phi * du * el + el**2))


@pytest.mark.parametrize("table", [(5, 0, 0, 5), (1, 1, 1, 1), (36, 12, 2, 0), (1, 0, 0, 0), (0, 3, 0, 0),
                                   (12, 2, 6, 2), (0, 0, 0, 7)])
def test_newcombe_method_10_equals_the_formula_written_out(table):
    assert newcombe_paired(*table) == pytest.approx(_by_hand(*table), abs=1e-12)


def test_phi_correction_branches_by_hand():
    # a=d=5, b=c=0: AD - BC = 25 > N/2 = 5, so phi* = (25 - 5) / sqrt(5^4) = 0.8; p1 = p2 = .5 and the Wilson
    # interval of 5/10 is symmetric (half-width h), so each limit is -+ h sqrt(2 - 1.6) = -+ h sqrt(0.4)
    half = 0.5 - wilson(5, 10)[0]
    assert newcombe_paired(5, 0, 0, 5) == pytest.approx((-half * math.sqrt(0.4), half * math.sqrt(0.4)))
    # uncorrected phi would be 1 and collapse the interval to [0, 0]
    assert newcombe_paired(5, 0, 0, 5)[1] > 0.16


def test_one_problem_both_passing_has_a_wide_interval_not_zero_width():
    # both margins are 1 of 1 (phi = 0 with an empty margin): -+ (1 - 1 / (1 + z^2)) = -+ z^2 / (1 + z^2)
    z2 = Z95**2
    assert newcombe_paired(1, 0, 0, 0) == pytest.approx((-z2 / (1 + z2), z2 / (1 + z2)))
    assert paired_rates_interval([1.0], [1.0]) == pytest.approx((-0.7934507, 0.7934507), abs=1e-7)
    assert rate_interval([1], [1]) == pytest.approx((0.2065493, 1.0), abs=1e-7)
    assert rate_interval([5], [5]) == pytest.approx((0.2065493, 1.0), abs=1e-7)  # one problem is one unit


def test_rates_interval_is_newcombe_on_binary_outcomes():
    rng = random.Random(3)
    for _ in range(200):
        n = rng.randint(1, 40)
        x = [float(rng.random() < 0.6) for _ in range(n)]
        y = [float(rng.random() < 0.4) if rng.random() < 0.5 else xi for xi in x]
        a = sum(1 for u, v in zip(x, y, strict=True) if u and v)
        b = sum(1 for u, v in zip(x, y, strict=True) if u and not v)
        c = sum(1 for u, v in zip(x, y, strict=True) if v and not u)
        assert paired_rates_interval(x, y) == pytest.approx(newcombe_paired(a, b, c, n - a - b - c), abs=1e-12)
    assert paired_rates_interval([], []) is None
    with pytest.raises(ValueError, match="not paired"):
        paired_rates_interval([1.0], [])


def test_rate_interval_uses_the_effective_number_of_problems():
    # one trial per problem: Wilson on the trials (scipy); equal trials: Wilson on the problems; unequal: Kish
    ref = binomtest(7, 10).proportion_ci(method="wilson")
    assert rate_interval([1] * 7 + [0] * 3, [1] * 10) == pytest.approx((ref.low, ref.high))
    assert rate_interval([3, 2, 0, 3], [3, 3, 3, 3]) == pytest.approx(wilson(4 * 8 / 12, 4))
    assert effective_problems([1, 3]) == pytest.approx(16 / 10)
    assert rate_interval([1, 3], [1, 3]) == pytest.approx(wilson(1.6, 1.6))
    assert rate_interval([], []) is None and rate_interval([0], [0]) is None


def test_fractional_rates_cover_at_least_nominally():
    # 12 problems, 3 trials each, problem difficulties spread out, arm b 15 pp better: the interval is conservative
    rng = random.Random(11)
    covered, reps = 0, 1500
    base = [0.15 + 0.6 * i / 11 for i in range(12)]
    for _ in range(reps):
        ra = [sum(rng.random() < p for _ in range(3)) / 3 for p in base]
        rb = [sum(rng.random() < min(1.0, p + 0.15) for _ in range(3)) / 3 for p in base]
        lo, hi = paired_rates_interval(rb, ra)
        true = sum(min(1.0, p + 0.15) - p for p in base) / 12
        covered += lo <= true <= hi
    assert covered / reps >= 0.93
