"""The fast exact signed-rank p is scipy's, bit for bit, and the smallest possible p is what the test itself gives."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sps

from execugraph.stats.paired import EXACT_WILCOXON_MAX_N, wilcoxon_p, wilcoxon_p_min
from execugraph.stats.signed_rank import average_ranks, exact_signed_rank_p, null_pmf


def _draws(seed: int, count: int) -> list[np.ndarray]:
    """Per-problem differences as the engine sees them: rational pass-rate gaps (many ties), reals, +-1 only."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(count):
        n = int(rng.integers(1, 90))
        kind = i % 3
        if kind == 0:
            d = rng.choice([-1.0, -2 / 3, -0.5, -1 / 3, 1 / 3, 0.5, 2 / 3, 1.0, 0.2], size=n)
        elif kind == 1:
            d = rng.normal(size=n)
        else:
            d = rng.choice([-1.0, 1.0], size=n, p=[0.3, 0.7])
        out.append(np.round(d, 12))
    return out


@pytest.mark.parametrize("seed", [0, 1])
def test_exact_p_equals_scipy_exactly(seed: int) -> None:
    for d in _draws(seed, 600):
        want = float(sps.wilcoxon(d, zero_method="wilcox", method="exact", alternative="two-sided").pvalue)
        assert exact_signed_rank_p(d) == want, d


def test_half_integer_statistic_is_rounded_conservatively() -> None:
    # ranks 1.5, 1.5, 3: R+ = 1.5 is not on the null's support; scipy rounds down for the upper tail, up for the lower
    d = np.array([1.0, -1.0, -2.0])
    want = float(sps.wilcoxon(d, method="exact").pvalue)
    assert exact_signed_rank_p(d) == want
    # hand-worked: P(R+ <= 2) over 8 equally likely sign patterns of ranks {1,2,3}: sums 0,1,2 -> 3/8; p = 2 * 3/8
    assert want == pytest.approx(0.75)


def test_ranks_and_null_distribution() -> None:
    assert average_ranks(np.array([3.0, 1.0, 3.0, 2.0])).tolist() == [3.5, 1.0, 3.5, 2.0]
    pmf = null_pmf(3)
    assert pmf.tolist() == [1 / 8, 1 / 8, 1 / 8, 2 / 8, 1 / 8, 1 / 8, 1 / 8]
    assert not pmf.flags.writeable


def test_engine_p_and_smallest_p_agree_with_scipy() -> None:
    for d in _draws(7, 300):
        with_zeros = np.concatenate([d, np.zeros(3)])
        p, method, n = wilcoxon_p(with_zeros)
        nonzero = with_zeros[with_zeros != 0]
        assert (method, n) == ("exact", nonzero.size)
        # the engine orients the differences so the statistic sits in the lower tail (no 1 - cdf cancellation),
        # so it is scipy's p for one of the two orientations
        both = {float(sps.wilcoxon(sign * nonzero, method="exact").pvalue) for sign in (1, -1)}
        assert p in both
        assert wilcoxon_p_min(with_zeros) == wilcoxon_p(np.abs(with_zeros))[0]


def test_large_samples_still_use_the_normal_approximation() -> None:
    d = np.linspace(-1, 2, EXACT_WILCOXON_MAX_N + 5)
    p, method, _ = wilcoxon_p(d)
    assert method == "asymptotic"
    assert 0 <= p <= 1
    assert wilcoxon_p_min(d) == wilcoxon_p(np.abs(d))[0]
