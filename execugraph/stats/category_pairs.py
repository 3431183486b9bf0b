"""One paired comparison per problem category, the way published tables print p next to each category's rates.

Within a comparison of arms a and b, each category's common problems are compared
exactly as the whole comparison is (per-problem pass rates, delta = b - a, exact
Wilcoxon signed-rank p, zeros dropped), and Holm's correction runs over the
categories of that one comparison: the category family. No bootstrap here: the
tables report delta and p per category, and a CI over a handful of problems would
say little.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from execugraph.stats.paired import holm, wilcoxon_p
from execugraph.stats.records import ProblemTally

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
    groups: dict[str, list[str]] = {}
    for pid in sorted(set(a) & set(b)):
        if a[pid].trials and b[pid].trials:
            groups.setdefault(a[pid].category, []).append(pid)
    rows = []
    for category in sorted(groups):
        ids = groups[category]
        ra = np.array([a[p].rate for p in ids], dtype=float)
        rb = np.array([b[p].rate for p in ids], dtype=float)
        diffs = np.round(rb - ra, 12)  # as in paired.compare_paired, so equal gaps tie in the ranks
        p, method, nonzero = wilcoxon_p(diffs)
        rows.append(
            {
                "category": category,
                "n": len(ids),
                "problems_differ": nonzero,
                "a_rate": float(ra.mean()),
                "b_rate": float(rb.mean()),
                "delta_pp": float(diffs.mean() * 100.0),
                "p_wilcoxon": p,
                "wilcoxon_method": method,
            }
        )
    for row, adjusted in zip(rows, holm([r["p_wilcoxon"] for r in rows]), strict=True):
        row["p_holm"] = adjusted
    return rows
