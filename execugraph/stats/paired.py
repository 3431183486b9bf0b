"""Paired comparison of two arms over their common problems.

Both arms ran the same problems, so each problem is its own control: we compare
per-problem pass rates (mean over trials). Reported together: the mean
difference in percentage points with Newcombe's paired score interval over problems
(method 10, `intervals.paired_rates_interval`: never zero width, unlike a bootstrap
on few problems), the Wilcoxon signed-rank test on the per-problem differences, the exact McNemar
test on per-problem majority outcomes, and (over a family) Holm's adjustment.

Two counts of "discordant" problems exist and both are reported, each by its name:
`problems_differ` (problems whose pass rates differ at all: the published paper's
"Disc." column, and the Wilcoxon n) and `majority_discordant` (problems whose
majority outcome differs: McNemar's b + c).

Each comparison also carries the smallest p its tests could give (`p_min_wilcoxon`,
`p_min_mcnemar`) and an `explanation` in words: with few problems that differ an
exact test cannot reach 0.05 whatever happened, and the CI and the p
answer different questions, so a reader needs to be told when they disagree.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from scipy import stats as sps

from execugraph.stats.comparison import PairedComparison
from execugraph.stats.intervals import paired_rates_interval
from execugraph.stats.power import power_sentence
from execugraph.stats.row_stats import row_stats
from execugraph.stats.signed_rank_batch import wilcoxon_many
from execugraph.stats.wilcoxon import EXACT_WILCOXON_MAX_N, wilcoxon_p, wilcoxon_p_min

__all__ = [
    "ALPHA", "EXACT_WILCOXON_MAX_N", "MAJORITY", "PairedArrays", "PairedComparison", "all_one_way_p", "PairedCore", "adjust_family", "compare_arrays",
    "compare_many", "compare_paired", "explain", "holm", "paired_arrays", "paired_core",
    "majority_passed", "mcnemar_exact_p", "mcnemar_p_min", "wilcoxon_p", "wilcoxon_p_min",
]

# The significance level of every conclusion (the paper's), defined here once: `verdicts.compare` decides at it,
# the explanations and tables speak of it.
ALPHA = 0.05
MAJORITY = 0.5  # a problem is solved when MORE than this share of its trials passed


def majority_passed(rate: float) -> bool:
    """Majority outcome of a problem: solved only if MORE than half its trials passed.

    With an even number of trials an exact split (e.g. 2 of 4) counts as not
    solved. The rule is the same for both arms, so it does not favour either.
    """
    return rate > MAJORITY


@functools.lru_cache(maxsize=4096)
def mcnemar_exact_p(a_only: int, b_only: int) -> float:
    """Exact two-sided McNemar p: binomial test of the discordant split against 1/2."""
    total = a_only + b_only
    if total == 0:
        return 1.0
    # Binomial(total, 1/2) is symmetric, so the two-sided p is twice the smaller tail
    # (the same value scipy.stats.binomtest gives, without its per-call overhead).
    return float(min(1.0, 2.0 * sps.binom.cdf(min(a_only, b_only), total, 0.5)))


def all_one_way_p(count: int) -> float:
    """Smallest exact two-sided p of a sign-type test over `count` non-tied problems: all one way, 2 * 0.5^count
    (1.0 when there is none)."""
    if count <= 0:
        return 1.0
    return float(min(1.0, 2.0 * 0.5**count))


def mcnemar_p_min(discordant: int) -> float:
    """Smallest exact two-sided McNemar p for `discordant` (b + c) problems: all on one side."""
    return all_one_way_p(discordant)


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


def compare_paired(
    rates_a: Mapping[str, float],
    rates_b: Mapping[str, float],
    *,
    a: str = "a",
    b: str = "b",
    trials: int = 1,
) -> PairedComparison:
    """Compare per-problem pass rates of two arms over the problems both have (delta = b - a).

    `problems_differ` counts problems whose pass rates differ at all (the paper's "Disc.",
    Wilcoxon's n); `majority_discordant` counts problems whose majority outcome differs
    (McNemar's b + c). The 95% CI is Newcombe's method 10 on the per-problem rates;
    `trials` (the fewest trials a problem has per arm) sizes the power sentence of
    the explanation. Degenerate inputs give defined values and a `note`, never an exception.
    """
    inputs = paired_arrays(rates_a, rates_b)
    return compare_arrays(inputs, wilcoxon_p(inputs[3]), a=a, b=b, trials=trials)


PairedArrays = tuple[list[str], np.ndarray, np.ndarray, np.ndarray]  # common problems, rates a, rates b, differences


def compare_many(
    jobs: Sequence[tuple[Mapping[str, float], Mapping[str, float], str, str, int]], *, explained: bool = True,
) -> list[PairedComparison]:
    """`compare_paired(rates_a, rates_b, a=a, b=b, trials=trials)` for each job (rates_a, rates_b, a, b, trials),
    with every signed-rank test and mean difference of the batch computed at once: the same numbers. `explained`
    False leaves `explanation` empty, for a caller that runs `adjust_family` next (which writes every one anew)."""
    memo: dict[Any, Any] = {}
    inputs = [_paired_arrays_memo(ra, rb, memo) for ra, rb, *_ in jobs]
    tests = wilcoxon_many([diffs for *_, diffs in inputs])
    means = row_stats([diffs for *_, diffs in inputs])
    return [
        compare_arrays(arrays, test, a=a, b=b, trials=trials, mean=mean, explained=explained)
        for arrays, test, mean, (_, _, a, b, trials) in zip(inputs, tests, means, jobs, strict=True)
    ]


def paired_arrays(rates_a: Mapping[str, float], rates_b: Mapping[str, float]) -> PairedArrays:
    """The common problems (sorted), both arms' rates on them and the differences b - a that the tests rank."""
    common = sorted(set(rates_a) & set(rates_b))
    ra = np.array([rates_a[p] for p in common], dtype=float)
    rb = np.array([rates_b[p] for p in common], dtype=float)
    # Round away float noise so equal rational gaps (2/3 - 1/3 vs 1/3 - 0) tie in the ranks.
    return common, ra, rb, np.round(rb - ra, 12)


def _paired_arrays_memo(rates_a: Mapping[str, float], rates_b: Mapping[str, float],
                        memo: dict[Any, Any]) -> PairedArrays:
    """`paired_arrays`, keeping each arm's sorted problems and rates in `memo` (by mapping, for one batch) and using
    them as they are when both arms have the same problems (the usual case: then nothing is intersected). Arms with
    the same problems share one number in `memo`, so a pair compares two numbers, not two lists of problems."""
    known = []
    for rates in (rates_a, rates_b):
        if id(rates) not in memo:
            keys = sorted(rates)
            same = memo.setdefault(tuple(keys), len(memo))
            memo[id(rates)] = (same, keys, np.array([rates[p] for p in keys], dtype=float))
        known.append(memo[id(rates)])
    (same_a, keys_a, ra), (same_b, _, rb) = known
    if same_a != same_b:
        return paired_arrays(rates_a, rates_b)
    return keys_a, ra, rb, np.round(rb - ra, 12)


@dataclass(frozen=True)
class PairedCore:
    """The numbers of a comparison that do not need the majority outcomes: n, delta and CI in pp, Wilcoxon, notes."""

    n: int
    delta_pp: float
    ci_lo: float
    ci_hi: float
    p_wilcoxon: float
    wilcoxon_method: str
    problems_differ: int
    note: str


def paired_core(inputs: PairedArrays, wilcoxon: tuple[float, str, int], mean: float | None = None) -> PairedCore:
    """The core of `compare_arrays` (what a matched-budget row shows); `mean` is diffs.mean() when known."""
    common, ra, rb, diffs = inputs
    if not common:
        return PairedCore(0, 0.0, 0.0, 0.0, 1.0, "none", 0, "no common problems")
    p_w, method, nonzero = wilcoxon
    notes = []
    if len(common) == 1:
        notes.append("one common problem: the tests carry no information and the CI is wide")
    if nonzero == 0:
        notes.append("all per-problem differences are zero")
    lo, hi = paired_rates_interval(rb.tolist(), ra.tolist()) or (0.0, 0.0)
    delta = float(diffs.mean()) if mean is None else mean
    return PairedCore(len(common), delta * 100.0, lo * 100.0, hi * 100.0, p_w, method, nonzero, "; ".join(notes))


def compare_arrays(
    inputs: PairedArrays, wilcoxon: tuple[float, str, int], *, a: str = "a", b: str = "b", trials: int = 1,
    mean: float | None = None, explained: bool = True,
) -> PairedComparison:
    """`compare_paired` from its `paired_arrays` and the `wilcoxon_p` of their differences (computed apart, so a
    report can rank all its pairs at once: `signed_rank_batch.wilcoxon_many`); `mean` is diffs.mean() if known."""
    common, ra, rb, diffs = inputs
    if not common:
        return PairedComparison(a, b, 0, 0, 0, 0.0, 0.0, 0.0, 1.0, 1.0, "none", note="no common problems")
    core = paired_core(inputs, wilcoxon, mean)
    solved_a, solved_b = ra > MAJORITY, rb > MAJORITY  # majority_passed, for all problems at once
    a_only = [common[i] for i in np.flatnonzero(solved_a & ~solved_b).tolist()]
    b_only = [common[i] for i in np.flatnonzero(solved_b & ~solved_a).tolist()]
    nonzero = core.problems_differ
    comp = PairedComparison(
        a=a,
        b=b,
        n=core.n,
        problems_differ=nonzero,
        majority_discordant=len(a_only) + len(b_only),
        delta_pp=core.delta_pp,
        ci_lo=core.ci_lo,
        ci_hi=core.ci_hi,
        p_wilcoxon=core.p_wilcoxon,
        p_mcnemar=mcnemar_exact_p(len(a_only), len(b_only)),
        wilcoxon_method=core.wilcoxon_method,
        a_only=a_only,
        b_only=b_only,
        note=core.note,
        # all one way: 2 / 2^n for the exact test (what wilcoxon_p_min gives, without counting again)
        p_min_wilcoxon=all_one_way_p(nonzero) if nonzero <= EXACT_WILCOXON_MAX_N else wilcoxon_p_min(diffs),
        p_min_mcnemar=mcnemar_p_min(len(a_only) + len(b_only)),
        trials=max(1, trials),
    )
    return replace(comp, explanation=explain(comp)) if explained else comp


def _p_text(p: float) -> str:
    return f"{p:.4g}"


def explain(comp: PairedComparison, alpha: float = ALPHA) -> str:
    """The comparison's limits in plain sentences ("" when there is nothing to warn about).

    Says when an exact test could not reach `alpha` with this few problems, when
    the CI and the Wilcoxon p disagree (and why they may), and, once
    `p_holm` is filled, when Holm's adjustment over the family changes the verdict; last, when the pair has too
    few problems to detect a 20 pp difference, how many would (`power.power_sentence`).
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
                f"{what}: the CI describes the size of the mean difference over these problems (Newcombe's score "
                "interval); the p tests whether per-problem differences lean one way; with few discordant problems "
                "they can disagree"
            )
    if comp.p_holm is not None and comp.p_wilcoxon < alpha <= comp.p_holm:
        sentences.append(
            f"p = {_p_text(comp.p_wilcoxon)} is below {alpha:g} on its own but not after Holm's adjustment over the "
            f"family (p_holm = {_p_text(comp.p_holm)}): counted as one of several comparisons it is not significant"
        )
    power = power_sentence(comp.n, comp.trials, alpha=alpha)
    if power:
        sentences.append(power)
    return " ".join(s[0].upper() + s[1:] + "." for s in sentences)


def adjust_family(comparisons: list[PairedComparison]) -> list[PairedComparison]:
    """Fill `p_holm` (Wilcoxon, the primary test) and `p_holm_mcnemar` across one family and rewrite each
    `explanation` now that the adjusted p is known: each item of the list is replaced by its adjusted copy (the
    comparisons are frozen), and the list is returned."""
    wilcoxon = holm([c.p_wilcoxon for c in comparisons])
    mcnemar = holm([c.p_mcnemar for c in comparisons])
    for i, comp in enumerate(comparisons):
        adjusted = replace(comp, p_holm=wilcoxon[i], p_holm_mcnemar=mcnemar[i])
        object.__setattr__(adjusted, "explanation", explain(adjusted))  # a fresh copy nobody holds yet
        comparisons[i] = adjusted
    return comparisons
