"""Means and standard deviations of many vectors at once, equal to numpy's `v.mean()` / `v.std(ddof=...)` one by one.

Why: a report takes thousands of small means (pairs, categories, cost differences); one numpy call per vector costs
more than the arithmetic. Vectors of one length are stacked and reduced along their rows: numpy sums each
contiguous row exactly as it sums a lone vector (pairwise, same blocks), so the floats are the same
(`tests/stats/test_signed_rank_batch.py` checks it on random inputs).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np


def row_stats(vectors: Sequence[np.ndarray], ddof: int | None = None) -> list[float]:
    """Each vector's mean (`ddof` None) or standard deviation with `ddof`; NaN where undefined (empty, n <= ddof)."""
    out = [math.nan] * len(vectors)
    by_length: dict[int, list[int]] = {}
    for i, v in enumerate(vectors):
        by_length.setdefault(v.size, []).append(i)
    for n, rows in by_length.items():
        if n == 0 or (ddof is not None and n <= ddof):
            continue
        stacked = np.stack([vectors[i] for i in rows])
        values = stacked.mean(axis=1) if ddof is None else stacked.std(axis=1, ddof=ddof)
        for i, value in zip(rows, values.tolist(), strict=True):
            out[i] = value
    return out
