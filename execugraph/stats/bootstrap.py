"""Problem-level bootstrap resampling, for statistics that have no score interval.

Pass rates and paired deltas use score intervals instead (`intervals`: Wilson, Newcombe), which keep a width on
one problem or a 0% / 100% rate, where every bootstrap resample looks the same and the interval collapses.

A resample of n problems is stored as a row of counts (how often each problem was
drawn), so a bootstrap statistic is a matrix product: means are W @ d / n and pooled
rates (W @ passed) / (W @ trials). Every CI uses the same fixed seed, so for a given
number of problems the count matrix is always the same; it is cached (bounded)
and reused by all arms, categories and pairs of a report. Large problem sets are
processed in chunks drawn from one random stream, so chunking never changes a result.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import lru_cache

import numpy as np

DEFAULT_BOOTSTRAP = 10_000
DEFAULT_SEED = 20_240_611  # any fixed value: reports must be reproducible byte for byte
CHUNK_ELEMENTS = 2_000_000  # bound one (resamples x problems) matrix to ~16 MB
CACHE_ELEMENTS = 2_500_000  # cache count matrices up to ~20 MB each
CACHE_ENTRIES = 4


def bootstrap_indices(n: int, n_boot: int, seed: int) -> Iterator[np.ndarray]:
    """Yield (chunk, n) matrices of drawn problem positions, n_boot rows in total, from one stream."""
    rng = np.random.default_rng(seed)
    rows = max(1, CHUNK_ELEMENTS // max(n, 1))
    done = 0
    while done < n_boot:
        size = min(rows, n_boot - done)
        yield rng.integers(0, n, size=(size, n))
        done += size


def _count_chunks(n: int, n_boot: int, seed: int) -> Iterator[np.ndarray]:
    for idx in bootstrap_indices(n, n_boot, seed):
        rows = idx.shape[0]
        flat = (idx + n * np.arange(rows)[:, None]).ravel()
        counts = np.bincount(flat, minlength=rows * n).reshape(rows, n).astype(np.float64)
        counts.flags.writeable = False
        yield counts


@lru_cache(maxsize=CACHE_ENTRIES)
def _cached_counts(n: int, n_boot: int, seed: int) -> tuple[np.ndarray, ...]:
    return tuple(_count_chunks(n, n_boot, seed))


def resample_counts(n: int, n_boot: int, seed: int) -> Iterable[np.ndarray]:
    """Count matrices (rows = resamples, columns = problems) covering n_boot resamples."""
    if n * n_boot <= CACHE_ELEMENTS:
        return _cached_counts(n, n_boot, seed)
    return _count_chunks(n, n_boot, seed)


def percentile_ci(values: np.ndarray) -> tuple[float, float]:
    """The 2.5th and 97.5th percentiles (numpy's default linear interpolation)."""
    lo, hi = np.percentile(values, [2.5, 97.5])
    return (float(lo), float(hi))


class BootstrapBatch:
    """Collect vectors over problems, then resample them all at once.

    For each problem count n, one (B x n) @ (n x k) product gives the resampled
    sums of all k vectors of that length: a report with 8 arms, their categories
    and 28 pairs costs a few matrix products instead of a hundred.
    """

    def __init__(self, n_boot: int = DEFAULT_BOOTSTRAP, seed: int = DEFAULT_SEED) -> None:
        self.n_boot = n_boot
        self.seed = seed
        self._pending: dict[int, list[tuple[int, np.ndarray]]] = {}
        self._sums: dict[int, np.ndarray] = {}
        self._next = 0

    def add(self, values: Iterable[float] | np.ndarray) -> int:
        """Register a vector (one value per problem); returns a ticket for `sums`."""
        vec = np.asarray(values, dtype=float)
        ticket = self._next
        self._next += 1
        if vec.size == 0:
            self._sums[ticket] = np.zeros(0)
        else:
            self._pending.setdefault(vec.size, []).append((ticket, vec))
        return ticket

    def _evaluate(self) -> None:
        for n, jobs in self._pending.items():
            matrix = np.column_stack([vec for _, vec in jobs])
            sums = np.concatenate([w @ matrix for w in resample_counts(n, self.n_boot, self.seed)])
            for col, (ticket, _) in enumerate(jobs):
                self._sums[ticket] = sums[:, col]
        self._pending.clear()

    def sums(self, ticket: int) -> np.ndarray:
        """The B resampled sums of a registered vector (empty for an empty vector)."""
        if self._pending:
            self._evaluate()
        return self._sums[ticket]

    def mean_ci(self, ticket: int, n: int) -> tuple[float, float]:
        """Percentile 95% CI of the mean of a registered vector of length n."""
        sums = self.sums(ticket)
        return (0.0, 0.0) if sums.size == 0 else percentile_ci(sums / n)

    def ratio_ci(self, numerator: int, denominator: int) -> tuple[float, float]:
        """Percentile 95% CI of sum(numerator) / sum(denominator) over resampled problems."""
        num, den = self.sums(numerator), self.sums(denominator)
        return (0.0, 0.0) if num.size == 0 else percentile_ci(num / den)


def bootstrap_mean_ci(
    diffs: Iterable[float] | np.ndarray, *, n_boot: int = DEFAULT_BOOTSTRAP, seed: int = DEFAULT_SEED
) -> tuple[float, float]:
    """Percentile 95% CI of the mean of `diffs`, resampling the problems with replacement."""
    d = np.asarray(diffs, dtype=float)
    batch = BootstrapBatch(n_boot, seed)
    return batch.mean_ci(batch.add(d), d.size)


