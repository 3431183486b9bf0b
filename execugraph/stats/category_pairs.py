"""One paired comparison per problem category, the way published tables print p next to each category's rates.

Within a comparison of arms a and b, each category's common problems are compared
exactly as the whole comparison is (per-problem pass rates, delta = b - a, exact
Wilcoxon signed-rank p, zeros dropped), and Holm's correction runs over the
categories of that one comparison: the category family. No bootstrap here: the
tables report delta and p per category, and a CI over a handful of problems would
say little.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from execugraph.stats.paired import holm
from execugraph.stats.records import ProblemTally
from execugraph.stats.row_stats import row_stats
from execugraph.stats.signed_rank_batch import wilcoxon_many

METHOD = (
    "per category, the paired comparison over the common problems of that category (delta b - a in pp, "
    "two-sided Wilcoxon signed-rank p, exact as for the whole comparison); Holm-Bonferroni over the categories "
    "of each comparison (the category family)"
)


def category_comparisons(a: Mapping[str, ProblemTally], b: Mapping[str, ProblemTally]) -> list[dict]:
    """Per category (sorted): n, problems that differ, a's and b's mean per-problem rate, delta, p, Holm p.

    A problem's category is the one arm a recorded for it. Categories without a
    common problem are left out.
    """
    return category_comparisons_many([(a, b)])[0]


ArmIndex = tuple[list[str], np.ndarray, dict[str, np.ndarray]]  # problems with trials, their rates, category -> rows


def _index(tallies: Mapping[str, ProblemTally], memo: dict[int, ArmIndex]) -> ArmIndex:
    """An arm's problems with trials (sorted), their rates and each category's rows among them (kept per call)."""
    if id(tallies) not in memo:
        problems = sorted(p for p, t in tallies.items() if t.trials)
        rows: dict[str, list[int]] = {}
        for i, p in enumerate(problems):
            rows.setdefault(tallies[p].category, []).append(i)
        rates = np.array([tallies[p].rate for p in problems], dtype=float)
        memo[id(tallies)] = (problems, rates, {c: np.array(r, dtype=np.int64) for c, r in rows.items()})
    return memo[id(tallies)]


def _category_arrays(a: Mapping[str, ProblemTally], b: Mapping[str, ProblemTally],
                     memo: dict[int, ArmIndex]) -> list[tuple]:
    """(category, n, a's rates, b's rates, differences) per category with a common problem, sorted by category."""
    (problems_a, rates_a, rows_a), (problems_b, rates_b, _) = _index(a, memo), _index(b, memo)
    out = []
    if problems_a == problems_b:  # the usual case: both arms ran the same problems
        diffs = np.round(rates_b - rates_a, 12)  # rounded element by element: the same floats as per category
        for category in sorted(rows_a):
            rows = rows_a[category]
            out.append((category, rows.size, rates_a[rows], rates_b[rows], diffs[rows]))
        return out
    groups: dict[str, list[str]] = {}
    for pid in sorted(set(a) & set(b)):
        if a[pid].trials and b[pid].trials:
            groups.setdefault(a[pid].category, []).append(pid)
    for category in sorted(groups):
        ids = groups[category]
        ra = np.array([a[p].rate for p in ids], dtype=float)
        rb = np.array([b[p].rate for p in ids], dtype=float)
        # as in paired.compare_paired, so equal gaps tie in the ranks
        out.append((category, len(ids), ra, rb, np.round(rb - ra, 12)))
    return out


def category_comparisons_many(
    pairs: Sequence[tuple[Mapping[str, ProblemTally], Mapping[str, ProblemTally]]],
) -> list[list[dict]]:
    """`category_comparisons(a, b)` for each pair, every category's signed-rank test of all pairs computed at once."""
    memo: dict[int, ArmIndex] = {}
    grouped = [_category_arrays(a, b, memo) for a, b in pairs]
    flat = [group for groups in grouped for group in groups]
    tests = wilcoxon_many([diffs for *_, diffs in flat])
    a_rates = row_stats([ra for _, _, ra, _, _ in flat])
    b_rates = row_stats([rb for _, _, _, rb, _ in flat])
    deltas = row_stats([diffs for *_, diffs in flat])
    position = iter(range(len(flat)))
    out = []
    for groups in grouped:
        rows = []
        for category, n, _, _, _ in groups:
            k = next(position)
            p, method, nonzero = tests[k]
            rows.append(
                {
                    "category": category,
                    "n": n,
                    "problems_differ": nonzero,
                    "a_rate": a_rates[k],
                    "b_rate": b_rates[k],
                    "delta_pp": deltas[k] * 100.0,
                    "p_wilcoxon": p,
                    "wilcoxon_method": method,
                }
            )
        for row, adjusted in zip(rows, holm([r["p_wilcoxon"] for r in rows]), strict=True):
            row["p_holm"] = adjusted
        out.append(rows)
    return out
