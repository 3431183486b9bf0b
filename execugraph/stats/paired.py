"""Paired comparison of two arms over their common problems.

Both arms ran the same problems, so each problem is its own control: we compare
per-problem pass rates (mean over trials). Reported together: the mean
difference in percentage points with a percentile bootstrap CI over problems,
the Wilcoxon signed-rank test on the per-problem differences, the exact McNemar
test on per-problem majority outcomes, and (over a family) Holm's adjustment.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field

import numpy as np
from scipy import stats as sps

from execugraph.stats.bootstrap import DEFAULT_BOOTSTRAP, DEFAULT_SEED, BootstrapBatch

# Above this many non-zero differences the exact null distribution costs seconds
# (scipy builds it in O(n^3)); the normal approximation with tie correction is then
# accurate to the third decimal, so we switch and say so in `wilcoxon_method`.
EXACT_WILCOXON_MAX_N = 400


def majority_passed(rate: float) -> bool:
    """Majority outcome of a problem: solved only if MORE than half its trials passed.

    With an even number of trials an exact split (e.g. 2 of 4) counts as not
    solved. The rule is the same for both arms, so it does not favour either.
    """
    return rate > 0.5


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
    ranks = sps.rankdata(np.abs(nonzero))
    if ranks[nonzero > 0].sum() > n * (n + 1) / 4:
        nonzero = -nonzero
    method = "exact" if n <= EXACT_WILCOXON_MAX_N else "asymptotic"
    res = sps.wilcoxon(nonzero, zero_method="wilcox", method=method, alternative="two-sided")
    p = float(res.pvalue)
    return (min(1.0, p) if math.isfinite(p) else 1.0, method, n)


def mcnemar_exact_p(a_only: int, b_only: int) -> float:
    """Exact two-sided McNemar p: binomial test of the discordant split against 1/2."""
    total = a_only + b_only
    if total == 0:
        return 1.0
    # Binomial(total, 1/2) is symmetric, so the two-sided p is twice the smaller tail
    # (the same value scipy.stats.binomtest gives, without its per-call overhead).
    return float(min(1.0, 2.0 * sps.binom.cdf(min(a_only, b_only), total, 0.5)))


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm-Bonferroni adjusted p-values, returned in the input order.

    Sort ascending, multiply the i-th smallest (0-based) by (m - i), enforce
    monotonicity with a running maximum, cap at 1.
    """
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        adjusted[i] = running
    return adjusted


@dataclass
class PairedComparison:
    """Result of comparing arm b against arm a (delta = b - a)."""

    a: str
    b: str
    n: int
    discordant: int
    nonzero: int
    delta_pp: float
    ci_lo: float
    ci_hi: float
    p_wilcoxon: float
    p_mcnemar: float
    wilcoxon_method: str
    p_holm: float | None = None
    p_holm_mcnemar: float | None = None
    a_only: list[str] = field(default_factory=list)  # solved (majority) by a, not by b
    b_only: list[str] = field(default_factory=list)  # solved (majority) by b, not by a
    note: str = ""

    def as_dict(self) -> dict:
        """The fields, plus the paper's column names: problems that differ (Wilcoxon's n) and majority-discordant."""
        return {**asdict(self), "problems_differ": self.nonzero, "majority_discordant": self.discordant}


def defer_paired(
    rates_a: Mapping[str, float],
    rates_b: Mapping[str, float],
    batch: BootstrapBatch,
    *,
    a: str = "a",
    b: str = "b",
) -> Callable[[], PairedComparison]:
    """`compare_paired` with the bootstrap registered in `batch`; call the result once all are registered."""
    common = sorted(set(rates_a) & set(rates_b))
    if not common:
        result = PairedComparison(a, b, 0, 0, 0, 0.0, 0.0, 0.0, 1.0, 1.0, "none", note="no common problems")
        return lambda: result
    ra = np.array([rates_a[p] for p in common], dtype=float)
    rb = np.array([rates_b[p] for p in common], dtype=float)
    # Round away float noise so equal rational gaps (2/3 - 1/3 vs 1/3 - 0) tie in the ranks.
    diffs = np.round(rb - ra, 12)
    ticket = batch.add(diffs)
    p_w, method, nonzero = wilcoxon_p(diffs)
    a_only = [p for p, x, y in zip(common, ra, rb, strict=True) if majority_passed(x) and not majority_passed(y)]
    b_only = [p for p, x, y in zip(common, ra, rb, strict=True) if majority_passed(y) and not majority_passed(x)]
    notes = []
    if len(common) == 1:
        notes.append("one common problem: the CI and tests carry no information")
    if nonzero == 0:
        notes.append("all per-problem differences are zero")

    def finish() -> PairedComparison:
        lo, hi = batch.mean_ci(ticket, len(common))
        return PairedComparison(
            a=a,
            b=b,
            n=len(common),
            discordant=len(a_only) + len(b_only),
            nonzero=nonzero,
            delta_pp=float(diffs.mean() * 100.0),
            ci_lo=lo * 100.0,
            ci_hi=hi * 100.0,
            p_wilcoxon=p_w,
            p_mcnemar=mcnemar_exact_p(len(a_only), len(b_only)),
            wilcoxon_method=method,
            a_only=a_only,
            b_only=b_only,
            note="; ".join(notes),
        )

    return finish


def compare_paired(
    rates_a: Mapping[str, float],
    rates_b: Mapping[str, float],
    *,
    a: str = "a",
    b: str = "b",
    n_boot: int = DEFAULT_BOOTSTRAP,
    seed: int = DEFAULT_SEED,
) -> PairedComparison:
    """Compare per-problem pass rates of two arms over the problems both have (delta = b - a).

    `discordant` counts problems whose majority outcome differs (McNemar's b + c);
    `nonzero` counts problems whose pass rates differ at all (Wilcoxon's n).
    Degenerate inputs give defined values and a `note`, never an exception.
    """
    return defer_paired(rates_a, rates_b, BootstrapBatch(n_boot, seed), a=a, b=b)()


def adjust_family(comparisons: Sequence[PairedComparison]) -> None:
    """Fill `p_holm` (Wilcoxon, the primary test) and `p_holm_mcnemar` across one family, in place."""
    for comp, p in zip(comparisons, holm([c.p_wilcoxon for c in comparisons]), strict=True):
        comp.p_holm = p
    for comp, p in zip(comparisons, holm([c.p_mcnemar for c in comparisons]), strict=True):
        comp.p_holm_mcnemar = p
