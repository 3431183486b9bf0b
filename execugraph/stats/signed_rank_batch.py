"""Many Wilcoxon signed-rank tests in one pass, so a report's thousands of difference vectors cost a few array calls.

`wilcoxon_many(vectors)` equals `[wilcoxon.wilcoxon_p(v) for v in vectors]` exactly: all vectors are ranked
together (one sort by vector, then magnitude; ties share their average rank), each vector's signed-rank sum R+
is a sum of half-integers (exact in any order), it is oriented into the lower half as `wilcoxon_p` does, and the
p is the cached `signed_rank.p_of_statistic(n, R+)` that the scalar path uses. Vectors with more than
EXACT_WILCOXON_MAX_N non-zero differences, or with a non-finite value, go through `wilcoxon_p` itself.
`tests/stats/test_signed_rank_batch.py` checks both paths agree on random inputs.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from execugraph.stats.signed_rank import p_of_statistic
from execugraph.stats.wilcoxon import EXACT_WILCOXON_MAX_N, wilcoxon_p


def signed_rank_sums(vectors: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """(n non-zero, R+ of the positive differences) per vector, ranking |d| within each vector (average ties)."""
    count = len(vectors)
    lengths = np.fromiter((v.size for v in vectors), dtype=np.int64, count=count)
    return _sums(np.concatenate(vectors) if count else np.zeros(0), lengths)


def _sums(values: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`signed_rank_sums` of the vectors laid end to end in `values` (`lengths` of each)."""
    count = lengths.size
    group = np.repeat(np.arange(count, dtype=np.int64), lengths)
    keep = values != 0
    values, group = values[keep], group[keep]
    n = np.bincount(group, minlength=count)
    size = values.size
    if size == 0:
        return n, np.zeros(count)
    magnitude = np.abs(values)
    # By vector, then magnitude. Tied magnitudes share one average rank, so their order is free: a quick (unstable)
    # sort by magnitude, then a stable sort by vector, which numpy does by radix for 16-bit keys (both
    # together a few times faster than lexsort).
    if count <= np.iinfo(np.uint16).max:
        order = np.argsort(magnitude)
        order = order[np.argsort(group[order].astype(np.uint16), kind="stable")]
    else:
        order = np.lexsort((magnitude, group))
    group, magnitude, positive = group[order], magnitude[order], values[order] > 0
    new_run = np.ones(size, dtype=bool)
    new_run[1:] = (group[1:] != group[:-1]) | (magnitude[1:] != magnitude[:-1])
    first = np.flatnonzero(new_run)
    runs = np.diff(np.append(first, size))
    group_start = np.concatenate(([0], np.cumsum(n)[:-1]))
    within = first - group_start[group[first]]
    tied = (within + 1).astype(np.float64) + (runs.astype(np.float64) - 1) / 2
    ranks = np.repeat(tied, runs)
    r_plus = np.bincount(group, weights=ranks * positive, minlength=count)
    return n, r_plus


def wilcoxon_many(vectors: Sequence[np.ndarray | Sequence[float]]) -> list[tuple[float, str, int]]:
    """(p, method, n non-zero) for each vector, exactly as `wilcoxon_p` gives them one at a time."""
    arrays = [v if type(v) is np.ndarray and v.dtype == np.float64 and v.ndim == 1 else
              np.asarray(v, dtype=float).ravel() for v in vectors]
    lengths = np.fromiter((a.size for a in arrays), dtype=np.int64, count=len(arrays))
    return _tests(np.concatenate(arrays) if arrays else np.zeros(0), lengths, arrays.__getitem__)


def wilcoxon_flat(values: np.ndarray, lengths: np.ndarray) -> list[tuple[float, str, int]]:
    """`wilcoxon_many` of the float64 vectors laid end to end in `values` (`lengths` of each), without splitting
    them first (a report's cost differences come that way)."""
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1])).tolist() if lengths.size else []
    return _tests(values, lengths, lambda i: values[starts[i]:starts[i] + int(lengths[i])])


def _tests(values: np.ndarray, lengths: np.ndarray, vector: Callable[[int], np.ndarray]) -> list[tuple[float, str, int]]:
    """The tests of `wilcoxon_many`; `vector(i)` is the i-th vector, for those `wilcoxon_p` takes itself."""
    bad = ~np.isfinite(values)
    finite = [True] * lengths.size
    if bad.any():  # a vector with NaN or inf is left to wilcoxon_p (its own rules); the others are ranked here
        groups = np.repeat(np.arange(lengths.size), lengths)
        for i in np.unique(groups[bad]).tolist():
            finite[i] = False
        values = np.where(np.repeat(np.array(finite), lengths), values, 0.0)
    n, r_plus = _sums(values, lengths)
    out: list[tuple[float, str, int]] = []
    for i, (count, total) in enumerate(zip(n.tolist(), r_plus.tolist(), strict=True)):
        if not finite[i] or count > EXACT_WILCOXON_MAX_N:
            out.append(wilcoxon_p(vector(i)))
            continue
        if count == 0:
            out.append((1.0, "none", 0))
            continue
        if total > count * (count + 1) / 4:
            total = count * (count + 1) / 2 - total
        p = p_of_statistic(count, total)
        out.append((min(1.0, p) if math.isfinite(p) else 1.0, "exact", count))
    return out
