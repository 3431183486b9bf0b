"""The two-sided Wilcoxon signed-rank p of paired differences, exact where affordable (shared by the paired
comparisons and the power simulations, so neither imports the other)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy import stats as sps

from execugraph.stats.signed_rank import average_ranks, exact_signed_rank_p

# Above this many non-zero differences the exact null distribution costs seconds
# (scipy builds it in O(n^3)); the normal approximation with tie correction is then
# accurate to the third decimal, so we switch and say so in `wilcoxon_method`.
EXACT_WILCOXON_MAX_N = 400


def wilcoxon_p(diffs: Sequence[float] | np.ndarray) -> tuple[float, str, int]:
    """Two-sided Wilcoxon signed-rank p on paired differences, zeros dropped.

    Returns (p, method, n_nonzero). Exact null distribution up to
    EXACT_WILCOXON_MAX_N non-zero differences; with tied magnitudes scipy's exact
    method rounds the statistic conservatively (gh-19872). No non-zero difference
    means no evidence either way: p = 1.0.

    The two-sided p does not depend on the sign convention, but scipy computes an
    upper tail above the null mean as 1 - cdf, which cancels to 0.0 for p below
    ~1e-16; the differences are therefore oriented so that the signed-rank sum
    lies in the lower half, where both tails are summed directly.
    """
    d = np.asarray(diffs, dtype=float)
    nonzero = d[d != 0]
    n = int(nonzero.size)
    if n == 0:
        return (1.0, "none", 0)
    ranks = average_ranks(np.abs(nonzero))
    if ranks[nonzero > 0].sum() > n * (n + 1) / 4:
        nonzero = -nonzero
    if n <= EXACT_WILCOXON_MAX_N:
        # scipy's exact test, computed without its per-call overhead (identical floats: signed_rank.py)
        method, p = "exact", exact_signed_rank_p(nonzero)
    else:
        method = "asymptotic"
        p = float(sps.wilcoxon(nonzero, zero_method="wilcox", method=method, alternative="two-sided").pvalue)
    return (min(1.0, p) if math.isfinite(p) else 1.0, method, n)


def wilcoxon_p_min(diffs: Sequence[float] | np.ndarray) -> float:
    """Smallest two-sided Wilcoxon p these differences could give: every non-zero one of the same sign.

    Computed by `wilcoxon_p` itself on the magnitudes, so it keeps the pair's tied
    ranks and the method (exact or asymptotic) the real p used; 2 / 2^n for the
    exact test on n non-zero differences. 1.0 when no difference is non-zero.
    """
    d = np.asarray(diffs, dtype=float)
    n = int(np.count_nonzero(d))
    if n <= EXACT_WILCOXON_MAX_N:
        # all one way: R+ = 0 after orientation, so p = 2 P(R+ = 0) = 2 / 2^n whatever the ties
        return float(min(1.0, 2.0 * 0.5**n)) if n else 1.0
    return wilcoxon_p(np.abs(d))[0]
