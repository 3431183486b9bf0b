"""Paired comparison of two arms over their common problems.

Both arms ran the same problems, so each problem is its own control: we compare
per-problem pass rates (mean over trials). Reported together: the mean
difference in percentage points with a percentile bootstrap CI over problems,
the Wilcoxon signed-rank test on the per-problem differences, the exact McNemar
test on per-problem majority outcomes, and (over a family) Holm's adjustment.

Two counts of "discordant" problems exist and both are reported, each by its name:
`problems_differ` (problems whose pass rates differ at all: the published paper's
"Disc." column, and the Wilcoxon n) and `majority_discordant` (problems whose
majority outcome differs: McNemar's b + c).

Each comparison also carries the smallest p its tests could give (`p_min_wilcoxon`,
`p_min_mcnemar`) and an `explanation` in words: with few problems that differ an
exact test cannot reach 0.05 whatever happened, and the bootstrap CI and the p
answer different questions, so a reader needs to be told when they disagree.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field

import numpy as np
from scipy import stats as sps

from execugraph.stats.bootstrap import DEFAULT_BOOTSTRAP, DEFAULT_SEED, BootstrapBatch
from execugraph.stats.signed_rank import average_ranks, exact_signed_rank_p

# Above this many non-zero differences the exact null distribution costs seconds
# (scipy builds it in O(n^3)); the normal approximation with tie correction is then
# accurate to the third decimal, so we switch and say so in `wilcoxon_method`.
EXACT_WILCOXON_MAX_N = 400
# The significance level of every conclusion (the paper's), defined here once: `verdicts.compare` decides at it,
# the explanations and tables speak of it.
ALPHA = 0.05


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


@functools.lru_cache(maxsize=4096)
def mcnemar_exact_p(a_only: int, b_only: int) -> float:
    """Exact two-sided McNemar p: binomial test of the discordant split against 1/2."""
    total = a_only + b_only
    if total == 0:
        return 1.0
    # Binomial(total, 1/2) is symmetric, so the two-sided p is twice the smaller tail
    # (the same value scipy.stats.binomtest gives, without its per-call overhead).
    return float(min(1.0, 2.0 * sps.binom.cdf(min(a_only, b_only), total, 0.5)))


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


def mcnemar_p_min(discordant: int) -> float:
    """Smallest exact two-sided McNemar p for `discordant` (b + c) problems: all on one side, 2 * 0.5^(b+c)."""
    if discordant <= 0:
        return 1.0
    return float(min(1.0, 2.0 * 0.5**discordant))


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
    problems_differ: int  # pass rates differ at all: the paper's "Disc." (Wilcoxon's n)
    majority_discordant: int  # majority outcomes differ: McNemar's b + c
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
    p_min_wilcoxon: float = 1.0  # smallest p the Wilcoxon test could give here (all differences one way)
    p_min_mcnemar: float = 1.0  # smallest exact McNemar p for b + c discordant problems
    explanation: str = ""  # what the numbers can and cannot say, in words (see `explain`)

    def as_dict(self) -> dict:
        return asdict(self)


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
    p_min_w = wilcoxon_p_min(diffs)
    a_only = [p for p, x, y in zip(common, ra, rb, strict=True) if majority_passed(x) and not majority_passed(y)]
    b_only = [p for p, x, y in zip(common, ra, rb, strict=True) if majority_passed(y) and not majority_passed(x)]
    notes = []
    if len(common) == 1:
        notes.append("one common problem: the CI and tests carry no information")
    if nonzero == 0:
        notes.append("all per-problem differences are zero")

    def finish() -> PairedComparison:
        lo, hi = batch.mean_ci(ticket, len(common))
        comp = PairedComparison(
            a=a,
            b=b,
            n=len(common),
            problems_differ=nonzero,
            majority_discordant=len(a_only) + len(b_only),
            delta_pp=float(diffs.mean() * 100.0),
            ci_lo=lo * 100.0,
            ci_hi=hi * 100.0,
            p_wilcoxon=p_w,
            p_mcnemar=mcnemar_exact_p(len(a_only), len(b_only)),
            wilcoxon_method=method,
            a_only=a_only,
            b_only=b_only,
            note="; ".join(notes),
            p_min_wilcoxon=p_min_w,
            p_min_mcnemar=mcnemar_p_min(len(a_only) + len(b_only)),
        )
        comp.explanation = explain(comp)
        return comp

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

    `problems_differ` counts problems whose pass rates differ at all (the paper's "Disc.",
    Wilcoxon's n); `majority_discordant` counts problems whose majority outcome differs
    (McNemar's b + c).
    Degenerate inputs give defined values and a `note`, never an exception.
    """
    return defer_paired(rates_a, rates_b, BootstrapBatch(n_boot, seed), a=a, b=b)()


def _p_text(p: float) -> str:
    return f"{p:.4g}"


def explain(comp: PairedComparison, alpha: float = ALPHA) -> str:
    """The comparison's limits in plain sentences ("" when there is nothing to warn about).

    Says when an exact test could not reach `alpha` with this few problems, when
    the bootstrap CI and the Wilcoxon p disagree (and why they may), and, once
    `p_holm` is filled, when Holm's adjustment over the family changes the verdict.
    """
    sentences = []
    exact = comp.wilcoxon_method == "exact"
    if comp.problems_differ and exact and comp.p_min_wilcoxon > alpha:
        sentences.append(
            f"with {comp.problems_differ} problem(s) that differ, the exact Wilcoxon test cannot give p below "
            f"{_p_text(comp.p_min_wilcoxon)}: no result could be significant at {alpha:g}"
            + (" (and Holm's adjustment only raises p)" if comp.p_holm is not None else "")
        )
    if comp.majority_discordant and comp.p_min_mcnemar > alpha:
        sentences.append(
            f"with {comp.majority_discordant} majority-discordant problem(s), the exact McNemar test cannot give p "
            f"below {_p_text(comp.p_min_mcnemar)}"
        )
    if comp.n > 1 and comp.problems_differ:
        excludes = comp.ci_lo > 0 or comp.ci_hi < 0
        significant = comp.p_wilcoxon < alpha
        if excludes != significant:
            what = (
                f"the CI excludes 0 but p = {_p_text(comp.p_wilcoxon)} is not below {alpha:g}"
                if excludes
                else f"p = {_p_text(comp.p_wilcoxon)} is below {alpha:g} but the CI includes 0"
            )
            sentences.append(
                f"{what}: the CI describes the size of the mean difference over these problems (percentile "
                "bootstrap, which is optimistic with few problems); the p tests whether per-problem differences "
                "lean one way; with few discordant problems they can disagree"
            )
    if comp.p_holm is not None and comp.p_wilcoxon < alpha <= comp.p_holm:
        sentences.append(
            f"p = {_p_text(comp.p_wilcoxon)} is below {alpha:g} on its own but not after Holm's adjustment over the "
            f"family (p_holm = {_p_text(comp.p_holm)}): counted as one of several comparisons it is not significant"
        )
    return " ".join(s[0].upper() + s[1:] + "." for s in sentences)


def adjust_family(comparisons: Sequence[PairedComparison]) -> None:
    """Fill `p_holm` (Wilcoxon, the primary test) and `p_holm_mcnemar` across one family, in place,
    and rewrite each `explanation` now that the adjusted p is known."""
    for comp, p in zip(comparisons, holm([c.p_wilcoxon for c in comparisons]), strict=True):
        comp.p_holm = p
    for comp, p in zip(comparisons, holm([c.p_mcnemar for c in comparisons]), strict=True):
        comp.p_holm_mcnemar = p
    for comp in comparisons:
        comp.explanation = explain(comp)
