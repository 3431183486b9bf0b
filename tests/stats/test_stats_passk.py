"""pass@k: the unbiased estimator against brute-force enumeration of every k-subset."""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations

import pytest

from execugraph.stats.passk import default_ks, mean_pass_at_k, pass_at_k, pass_at_k_table
from execugraph.stats.records import ProblemTally


def brute_force(n: int, c: int, k: int) -> Fraction:
    """Share of the k-subsets of n samples (c of them passing) that contain a pass."""
    samples = [True] * c + [False] * (n - c)
    subsets = list(combinations(range(n), k))
    return Fraction(sum(any(samples[i] for i in s) for s in subsets), len(subsets))


@pytest.mark.parametrize("n", range(1, 9))
def test_matches_enumeration(n):
    for c in range(n + 1):
        for k in range(1, n + 1):
            assert pass_at_k(n, c, k) == pytest.approx(float(brute_force(n, c, k)), abs=1e-15)


def test_known_answers():
    assert pass_at_k(10, 3, 1) == 0.3  # pass@1 is exactly c / n
    assert pass_at_k(3, 1, 1) == 1 / 3
    assert pass_at_k(5, 0, 3) == 0.0
    assert pass_at_k(5, 3, 3) == 1.0  # only 2 failures: every 3-subset holds a pass
    assert pass_at_k(4, 1, 2) == pytest.approx(0.5)  # 1 - C(3,2)/C(4,2) = 1 - 3/6


def test_large_n_stays_finite_and_accurate():
    value = pass_at_k(2000, 7, 200)
    expected = 1.0
    prod = 1.0
    for i in range(2000 - 7 + 1, 2001):
        prod *= 1 - 200 / i
    expected = 1 - prod
    assert 0.0 < value < 1.0
    assert value == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("n,c,k", [(3, 4, 1), (3, -1, 1), (3, 1, 0), (3, 1, 4)])
def test_bad_arguments_name_the_problem(n, c, k):
    with pytest.raises(ValueError, match="pass_at_k"):
        pass_at_k(n, c, k)


def test_mean_skips_problems_with_too_few_samples():
    tallies = [ProblemTally("a", "x", 4, 1), ProblemTally("b", "x", 2, 2), ProblemTally("c", "x", 4, 0)]
    value, used, skipped = mean_pass_at_k(tallies, 3)
    # a: 1 - C(3,3)/C(4,3) = 3/4; c: 0; b (2 samples) cannot give pass@3
    assert (used, skipped) == (2, 1)
    assert value == pytest.approx((0.75 + 0.0) / 2)
    assert mean_pass_at_k(tallies, 5) == (None, 0, 3)


def test_table_default_ks():
    assert default_ks(0) == []
    assert default_ks(4) == [1, 2, 3, 4]
    assert default_ks(12) == [1, 2, 3, 5, 10, 12]
    rows = pass_at_k_table({"a": ProblemTally("a", "x", 3, 1), "b": ProblemTally("b", "x", 3, 0)})
    assert [r["k"] for r in rows] == [1, 2, 3]
    assert rows[0]["pass_at_k"] == pytest.approx(1 / 6)
    assert rows[2]["pass_at_k"] == pytest.approx(0.5)
