"""pass@k with the unbiased estimator of Chen et al. (2021, "Evaluating Large Language
Models Trained on Code"): for a problem with n samples of which c passed,
pass@k = 1 - C(n - c, k) / C(n, k), the chance that k samples drawn without
replacement from the n contain at least one pass.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

from execugraph.stats.records import ProblemTally


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k for one problem, exact: (C(n, k) - C(n-c, k)) / C(n, k).

    Python integers make the binomials exact at any size, so the only rounding is
    the final division (correctly rounded): no overflow, no cancellation, and
    pass@1 equals c/n to the last bit. When fewer than k samples failed every
    k-subset contains a pass and the estimate is exactly 1.
    """
    if not 0 <= c <= n:
        raise ValueError(f"pass_at_k: need 0 <= c <= n, got n={n}, c={c}")
    if not 1 <= k <= n:
        raise ValueError(f"pass_at_k: need 1 <= k <= n, got n={n}, k={k}")
    if n - c < k:
        return 1.0
    total = math.comb(n, k)
    return (total - math.comb(n - c, k)) / total


def mean_pass_at_k(tallies: Iterable[ProblemTally], k: int) -> tuple[float | None, int, int]:
    """Mean pass@k over the problems with at least k samples.

    Returns (value or None when no problem qualifies, problems used, problems skipped).
    """
    used, skipped, total = 0, 0, 0.0
    for t in tallies:
        if t.trials >= k:
            total += pass_at_k(t.trials, t.passed, k)
            used += 1
        else:
            skipped += 1
    return (total / used if used else None, used, skipped)


def default_ks(max_n: int) -> list[int]:
    """The k values worth showing for up to `max_n` samples: 1, 2, 3, 5, 10, 20, 50, 100 and max_n."""
    ks = [k for k in (1, 2, 3, 5, 10, 20, 50, 100) if k <= max_n]
    if max_n >= 1 and max_n not in ks:
        ks.append(max_n)
    return ks


def pass_at_k_table(tallies: Mapping[str, ProblemTally], ks: Iterable[int] | None = None) -> list[dict]:
    """Rows {k, pass_at_k, problems, skipped} for the given or default k values."""
    rows = sorted((t for t in tallies.values() if t.trials), key=lambda t: t.problem_id)  # fixed summation order
    if ks is None:
        ks = default_ks(max((t.trials for t in rows), default=0))
    table = []
    for k in ks:
        value, used, skipped = mean_pass_at_k(rows, k)
        table.append({"k": k, "pass_at_k": value, "problems": used, "skipped": skipped})
    return table
