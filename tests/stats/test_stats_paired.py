"""Paired comparison: hand-computed answers, agreement with scipy, Holm, degenerate inputs."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sps

from execugraph.stats.bootstrap import CHUNK_ELEMENTS, bootstrap_mean_ci
from execugraph.stats.intervals import Z95
from execugraph.stats.paired import (
    EXACT_WILCOXON_MAX_N,
    adjust_family,
    compare_paired,
    holm,
    majority_passed,
    mcnemar_exact_p,
    wilcoxon_p,
)

# Five problems, per-problem pass rates (hand-written so every number below can be checked on paper).
RATES_A = {"p1": 1.0, "p2": 0.5, "p3": 0.0, "p4": 1.0, "p5": 0.0}
RATES_B = {"p1": 1.0, "p2": 1.0, "p3": 0.5, "p4": 0.0, "p5": 1.0}


def test_known_answer_small_case():
    # differences b - a: 0, +.5, +.5, -1, +1 -> mean 1.0 / 5 = 0.2 -> +20 pp.
    # Wilcoxon, zero dropped: |d| = .5 .5 1 1 -> mid-ranks 1.5 1.5 3.5 3.5; W+ = 1.5 + 1.5 + 3.5 = 6.5.
    # Exact null for n = 4: the 16 sign patterns give W+ = 0..10 with counts 1 1 1 2 2 2 2 2 1 1 1.
    # scipy rounds a tied statistic conservatively: p = 2 * min(P(W+ >= 6), P(W+ <= 7)) = 2 * 7/16.
    # Majority (strictly more than half): a solves p1, p4; b solves p1, p2, p5 (p3 at .5 is a tie = not solved).
    # a only: p4; b only: p2, p5 -> 3 discordant; McNemar = binomial(1 of 3, 1/2) two-sided = 1.0.
    res = compare_paired(RATES_A, RATES_B, a="A", b="B")
    assert res.n == 5
    assert res.problems_differ == 4
    assert res.delta_pp == pytest.approx(20.0)
    assert res.p_wilcoxon == pytest.approx(14 / 16)
    assert res.wilcoxon_method == "exact"
    assert res.a_only == ["p4"]
    assert res.b_only == ["p2", "p5"]
    assert res.majority_discordant == 3
    assert res.p_mcnemar == pytest.approx(1.0)
    # Newcombe's method 10 on the rates: p_b = 3.5/5 = .7, p_a = 2.5/5 = .5; n^2 cov = 5 * 1.5 - 25 * .35 = -1.25
    # (negative, so uncorrected): phi = -1.25 / (25 sqrt(.21 * .25)); margins' Wilson limits by root finding
    lb, ub = _score_limits(0.7, 5)
    la, ua = _score_limits(0.5, 5)
    phi = -1.25 / (25 * np.sqrt(0.21 * 0.25))
    lo = 0.2 - np.sqrt((0.7 - lb) ** 2 - 2 * phi * (0.7 - lb) * (ua - 0.5) + (ua - 0.5) ** 2)
    hi = 0.2 + np.sqrt((ub - 0.7) ** 2 - 2 * phi * (ub - 0.7) * (0.5 - la) + (0.5 - la) ** 2)
    assert (res.ci_lo, res.ci_hi) == pytest.approx((100 * lo, 100 * hi), abs=1e-9)
    assert -100 <= res.ci_lo < res.delta_pp < res.ci_hi <= 100
    assert res.note == ""


def test_mcnemar_known_answers():
    # 0 vs 6 discordant: two-sided exact p = 2 * (1/2)^6 = 1/32.
    assert mcnemar_exact_p(0, 6) == pytest.approx(1 / 32)
    # 1 vs 7: 2 * (C(8,0) + C(8,1)) / 2^8 = 18 / 256.
    assert mcnemar_exact_p(1, 7) == pytest.approx(18 / 256)
    assert mcnemar_exact_p(7, 1) == pytest.approx(18 / 256)
    assert mcnemar_exact_p(0, 0) == 1.0


def test_majority_tie_rule_is_strict():
    assert majority_passed(0.75) and majority_passed(2 / 3)
    assert not majority_passed(0.5)  # 2 of 4: an exact split is not solved
    assert not majority_passed(0.0)


def test_holm_against_hand_computation():
    # sorted: .005*4 = .02; .01*3 = .03; .03*2 = .06; .04*1 = .04 -> running max keeps .06
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.5, 0.6]) == [1.0, 1.0]  # capped at 1 and monotone
    assert holm([0.2]) == [0.2]  # a family of one is not adjusted
    assert holm([]) == []


def test_holm_is_monotone_and_never_below_raw():
    rng = np.random.default_rng(3)
    p = list(rng.uniform(0, 0.2, size=12))
    adj = holm(p)
    assert all(a >= raw for a, raw in zip(adj, p, strict=True))
    order = np.argsort(p)
    assert all(np.diff(np.array(adj)[order]) >= 0)


def test_adjust_family_fills_both_adjustments():
    comps = [
        compare_paired({"x": 0.0, "y": 0.0}, {"x": 1.0, "y": 1.0}),
        compare_paired(RATES_A, RATES_B),
    ]
    adjust_family(comps)
    assert [c.p_holm for c in comps] == pytest.approx(holm([c.p_wilcoxon for c in comps]))
    assert [c.p_holm_mcnemar for c in comps] == pytest.approx(holm([c.p_mcnemar for c in comps]))


@pytest.mark.parametrize("seed", range(5))
def test_wilcoxon_agrees_with_direct_scipy_call(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(8, 60))
    a = rng.integers(0, 5, size=n) / 4  # 4 trials per problem: rates are exact binary fractions
    b = np.clip(a + rng.integers(-2, 3, size=n) / 4, 0, 1)
    ours = compare_paired(dict(enumerate(a)), dict(enumerate(b)))
    if np.all(a == b):
        pytest.skip("no difference drawn")
    direct = sps.wilcoxon(b, a, zero_method="wilcox", method="exact")
    assert ours.p_wilcoxon == pytest.approx(float(direct.pvalue), rel=1e-12)
    assert ours.delta_pp == pytest.approx(float(np.mean(b - a)) * 100)


def test_wilcoxon_without_ties_matches_scipy_exact():
    rng = np.random.default_rng(11)
    d = rng.normal(0.2, 1.0, size=25)
    p, method, n = wilcoxon_p(d)
    assert method == "exact" and n == 25
    assert p == pytest.approx(float(sps.wilcoxon(d, method="exact").pvalue))


def test_wilcoxon_switches_to_normal_approximation_for_large_n():
    rng = np.random.default_rng(5)
    d = rng.integers(-2, 3, size=2 * EXACT_WILCOXON_MAX_N) / 2
    p, method, n = wilcoxon_p(d)
    assert method == "asymptotic"
    assert n == int(np.count_nonzero(d))
    assert p == pytest.approx(float(sps.wilcoxon(d[d != 0], method="asymptotic").pvalue))


def test_float_noise_does_not_break_ties():
    # 2/3 - 1/3 and 1/3 - 0 are the same gap; unrounded they differ in the last bit.
    a = {"p": 1 / 3, "q": 0.0, "r": 0.0}
    b = {"p": 2 / 3, "q": 1 / 3, "r": 1 / 3}
    res = compare_paired(a, b)
    assert res.p_wilcoxon == pytest.approx(float(sps.wilcoxon([1 / 3] * 3, method="exact").pvalue))


def test_bootstrap_ci_agrees_with_scipy_percentile_bootstrap():
    rng = np.random.default_rng(7)
    d = rng.integers(-4, 5, size=60) / 4
    lo, hi = bootstrap_mean_ci(d, n_boot=10_000, seed=1)
    ref = sps.bootstrap((d,), np.mean, n_resamples=10_000, method="percentile", rng=np.random.default_rng(2))
    assert lo == pytest.approx(ref.confidence_interval.low, abs=0.02)
    assert hi == pytest.approx(ref.confidence_interval.high, abs=0.02)


def test_bootstrap_is_reproducible_and_chunking_keeps_the_stream():
    d = np.random.default_rng(1).normal(size=3000)
    rows = CHUNK_ELEMENTS // d.size
    n_boot = 3 * rows + 2  # three full chunks and a short one
    assert bootstrap_mean_ci(d, n_boot=n_boot, seed=9) == bootstrap_mean_ci(d, n_boot=n_boot, seed=9)
    rng = np.random.default_rng(9)
    sizes = [rows, rows, rows, 2]
    means = np.concatenate([d[rng.integers(0, d.size, size=(k, d.size))].mean(axis=1) for k in sizes])
    assert bootstrap_mean_ci(d, n_boot=n_boot, seed=9) == pytest.approx(tuple(np.percentile(means, [2.5, 97.5])))


def test_constant_differences_give_a_point_ci():
    assert bootstrap_mean_ci([0.25] * 7) == pytest.approx((0.25, 0.25))


def test_no_common_problems():
    res = compare_paired({"a": 1.0}, {"b": 0.0})
    assert (res.n, res.majority_discordant, res.delta_pp, res.ci_lo, res.ci_hi) == (0, 0, 0.0, 0.0, 0.0)
    assert res.p_wilcoxon == 1.0 and res.p_mcnemar == 1.0
    assert "no common problems" in res.note


def test_all_differences_zero():
    res = compare_paired({"a": 0.5, "b": 1.0}, {"a": 0.5, "b": 1.0, "c": 0.0})
    assert res.n == 2 and res.problems_differ == 0 and res.majority_discordant == 0
    assert (res.delta_pp, res.p_wilcoxon, res.p_mcnemar) == (0.0, 1.0, 1.0)
    assert res.ci_lo < 0 < res.ci_hi  # no difference seen on two problems is not a difference known to be 0
    assert "zero" in res.note


def test_one_common_problem():
    res = compare_paired({"a": 0.0}, {"a": 1.0})
    assert res.n == 1 and res.delta_pp == pytest.approx(100.0)
    # Wilson(1 of 1) = [1 / (1 + z^2), 1] and Wilson(0 of 1) = [0, z^2 / (1 + z^2)], margins empty so phi = 0:
    # lower = 1 - sqrt(2) z^2 / (1 + z^2), upper = 1 (not the zero-width [100, 100] a bootstrap gives)
    z2 = Z95**2
    assert (res.ci_lo, res.ci_hi) == pytest.approx((100 * (1 - np.sqrt(2) * z2 / (1 + z2)), 100.0))
    assert res.ci_lo == pytest.approx(-12.211, abs=1e-3)
    assert res.p_wilcoxon == pytest.approx(1.0)  # one sign can never be significant
    assert res.p_mcnemar == pytest.approx(1.0)
    assert "one common problem" in res.note


def test_tiny_p_values_do_not_cancel_to_zero():
    # 100 equal positive differences: every sign pattern but "all +" and "all -" is less extreme,
    # so the exact two-sided p is 2 / 2^100; scipy's upper tail alone would round it to 0.0
    assert wilcoxon_p(np.ones(100))[0] == pytest.approx(2.0**-99, rel=1e-9)
    assert wilcoxon_p(-np.ones(100))[0] == pytest.approx(2.0**-99, rel=1e-9)
    # 60 distinct positive differences: W+ takes its maximum, reached by one pattern of 2^60
    assert wilcoxon_p(np.arange(1, 61))[0] == pytest.approx(2 * 2.0**-60, rel=1e-9)


def test_strong_effect_is_significant():
    a = {f"p{i}": 0.0 for i in range(20)}
    b = {f"p{i}": 1.0 for i in range(20)}
    res = compare_paired(a, b)
    assert res.delta_pp == 100.0 and res.majority_discordant == 20
    assert res.p_wilcoxon == pytest.approx(2 / 2**20)
    assert res.p_mcnemar == pytest.approx(2 / 2**20)


def _score_limits(p_hat: float, n: int) -> tuple[float, float]:
    """Wilson's limits found as the roots of the score statistic |p_hat - p| / sqrt(p (1 - p) / n) = z (no formula)."""
    from scipy.optimize import brentq

    def score(p: float) -> float:
        return abs(p_hat - p) / np.sqrt(p * (1 - p) / n) - Z95

    lo = 0.0 if p_hat == 0 else brentq(score, 1e-12, p_hat, xtol=1e-14)
    hi = 1.0 if p_hat == 1 else brentq(score, p_hat, 1 - 1e-12, xtol=1e-14)
    return lo, hi
