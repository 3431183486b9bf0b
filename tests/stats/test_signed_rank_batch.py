"""The report's all-at-once paths give the floats of the one-at-a-time ones they replaced, on random inputs."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from scipy import stats as sps

from execugraph.stats.category_pairs import category_comparisons, category_comparisons_many
from execugraph.stats.cost_compare import cost_difference, cost_differences, t_intervals
from execugraph.stats.paired import adjust_family, compare_many, compare_paired, holm
from execugraph.stats.records import ProblemTally
from execugraph.stats.row_stats import row_stats
from execugraph.stats.signed_rank_batch import wilcoxon_flat, wilcoxon_many
from execugraph.stats.wilcoxon import EXACT_WILCOXON_MAX_N, wilcoxon_p

GAPS = [-1.0, -2 / 3, -0.5, -1 / 3, 0.0, 0.0, 1 / 3, 0.5, 2 / 3, 1.0, 0.2]


def _vectors(seed: int, count: int) -> list[np.ndarray]:
    """Rational pass-rate gaps (ties, zeros), reals, +-1/0 only, rounded integers, empties, a long one, a NaN."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(count):
        n = int(rng.integers(0, 120))
        kind = i % 4
        if kind == 0:
            d = rng.choice(GAPS, size=n)
        elif kind == 1:
            d = rng.normal(size=n) * 1000
        elif kind == 2:
            d = rng.choice([-1.0, 0.0, 1.0], size=n, p=[0.2, 0.5, 0.3])
        else:
            d = np.round(rng.normal(size=n) * 3)
        out.append(np.round(d, 12))
    out += [np.zeros(0), np.zeros(5), rng.normal(size=EXACT_WILCOXON_MAX_N + 20), np.array([1.0, np.nan, -2.0])]
    return out


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_wilcoxon_many_equals_wilcoxon_p_one_at_a_time(seed: int) -> None:
    vectors = _vectors(seed, 400)
    batch = wilcoxon_many(vectors)
    single = [wilcoxon_p(v) for v in vectors]
    assert len(batch) == len(vectors)
    for d, got, want in zip(vectors, batch, single, strict=True):
        assert got == want or (math.isnan(got[0]) and math.isnan(want[0])), d
    assert {method for _, method, _ in batch} == {"none", "exact", "asymptotic"}


def test_wilcoxon_flat_equals_wilcoxon_many_on_the_same_vectors_laid_end_to_end() -> None:
    vectors = _vectors(3, 300)  # empties, a NaN vector and one past the exact limit among them
    sizes = np.array([v.size for v in vectors], dtype=np.int64)
    flat = wilcoxon_flat(np.concatenate(vectors), sizes)
    many = wilcoxon_many(vectors)
    assert len(flat) == len(many) == len(vectors)
    for got, want in zip(flat, many, strict=True):
        assert got == want or (math.isnan(got[0]) and math.isnan(want[0]))
    assert {method for _, method, _ in flat} == {"none", "exact", "asymptotic"}
    assert wilcoxon_flat(np.zeros(0), np.zeros(0, dtype=np.int64)) == []


def test_compare_many_unexplained_differs_only_in_the_explanation_adjust_family_writes() -> None:
    rng = np.random.default_rng(8)
    problems = [f"p{i}" for i in range(40)]
    jobs = [(_rates(rng, problems, 1 + k % 3), _rates(rng, problems, 2), f"a{k}", f"b{k}", 2) for k in range(20)]
    explained, bare = compare_many(jobs), compare_many(jobs, explained=False)
    assert [c.explanation for c in bare] == [""] * len(jobs) and any(c.explanation for c in explained)
    assert [replace(c, explanation="") for c in explained] == bare
    assert adjust_family(list(explained)) == adjust_family(list(bare))


def test_wilcoxon_many_matches_scipy_on_tied_vectors() -> None:
    # scipy's exact p of the differences oriented into the lower half (wilcoxon_p's orientation: either sign)
    vectors = [v for v in _vectors(5, 120) if 0 < np.count_nonzero(v) <= 60 and np.isfinite(v).all()]
    for d, (p, method, n) in zip(vectors, wilcoxon_many(vectors), strict=True):
        either = {min(1.0, float(sps.wilcoxon(s * d[d != 0], method="exact").pvalue)) for s in (1, -1)}
        assert p in either and (method, n) == ("exact", np.count_nonzero(d)), d


@pytest.mark.parametrize("ddof", [None, 0, 1])
def test_row_stats_equal_numpy_one_vector_at_a_time(ddof: int | None) -> None:
    rng = np.random.default_rng(3)
    vectors = [rng.normal(size=int(n)) * rng.uniform(1, 1e5) for n in rng.integers(0, 300, size=300)]
    vectors += [rng.normal(size=n) for n in (1, 2, 8, 9, 127, 128, 129, 1000)]
    got = row_stats(vectors, ddof)
    for v, value in zip(vectors, got, strict=True):
        if v.size == 0 or (ddof is not None and v.size <= ddof):
            assert math.isnan(value)
        else:
            want = float(v.mean()) if ddof is None else float(v.std(ddof=ddof))
            assert value == want, v.size


def _t_interval_one(diffs: np.ndarray) -> tuple[float | None, float | None, float | None]:
    """The per-vector t-interval the report computed before (one scipy call per quantile and p)."""
    n = diffs.size
    if n < 2:
        return (None, None, None)
    mean = float(diffs.mean())
    se = float(diffs.std(ddof=1)) / math.sqrt(n)
    if se == 0.0:
        return (None, None, None)
    half = float(sps.t.ppf(0.975, n - 1)) * se
    return (mean - half, mean + half, float(2 * sps.t.sf(abs(mean) / se, n - 1)))


def test_t_intervals_equal_the_per_vector_t_interval() -> None:
    rng = np.random.default_rng(4)
    vectors = [rng.normal(loc=rng.uniform(-50, 50), size=int(n)) * 100 for n in rng.integers(0, 200, size=300)]
    vectors += [np.full(7, 3.0), np.array([1.0]), np.zeros(0), rng.normal(size=3) * 1e-6]
    assert t_intervals(vectors) == [_t_interval_one(v) for v in vectors]


def _rates(rng: np.random.Generator, problems: list[str], trials: int) -> dict[str, float]:
    return {p: int(rng.integers(0, trials + 1)) / trials for p in problems}


def test_compare_many_equals_compare_paired() -> None:
    rng = np.random.default_rng(5)
    problems = [f"p{i}" for i in range(80)]
    jobs = []
    for k in range(60):
        a = _rates(rng, problems, 1 + k % 5)
        b = _rates(rng, problems[k % 7:] if k % 3 else problems, 1 + k % 3)
        jobs.append((a, b, f"a{k}", f"b{k}", 1 + k % 4))
    jobs.append(({}, {"x": 1.0}, "empty", "other", 1))
    batch = compare_many(jobs)
    single = [compare_paired(a, b, a=x, b=y, trials=t) for a, b, x, y, t in jobs]
    assert [c.as_dict() for c in batch] == [c.as_dict() for c in single]
    assert any(c.problems_differ for c in batch) and batch[-1].note == "no common problems"


def _tallies(rng: np.random.Generator, problems: list[str], trials: int) -> dict[str, ProblemTally]:
    return {p: ProblemTally(p, f"c{int(p[1:]) % 4}", trials if i % 11 else 0, int(rng.integers(0, trials + 1)))
            for i, p in enumerate(problems)}


def _categories_one(a: dict[str, ProblemTally], b: dict[str, ProblemTally]) -> list[dict]:
    """The per-pair category comparison the report computed before (one signed-rank test per category)."""
    groups: dict[str, list[str]] = {}
    for pid in sorted(set(a) & set(b)):
        if a[pid].trials and b[pid].trials:
            groups.setdefault(a[pid].category, []).append(pid)
    rows = []
    for category in sorted(groups):
        ra = np.array([a[p].rate for p in groups[category]])
        rb = np.array([b[p].rate for p in groups[category]])
        diffs = np.round(rb - ra, 12)
        p, method, nonzero = wilcoxon_p(diffs)
        rows.append({"category": category, "n": len(groups[category]), "problems_differ": nonzero,
                     "a_rate": float(ra.mean()), "b_rate": float(rb.mean()), "delta_pp": float(diffs.mean() * 100.0),
                     "p_wilcoxon": p, "wilcoxon_method": method})
    for row, adjusted in zip(rows, holm([r["p_wilcoxon"] for r in rows]), strict=True):
        row["p_holm"] = adjusted
    return rows


def test_category_comparisons_many_equal_the_per_pair_computation() -> None:
    rng = np.random.default_rng(6)
    problems = [f"p{i}" for i in range(60)]
    arms = [_tallies(rng, problems if k % 2 else problems[k:], 1 + k % 5) for k in range(8)]
    pairs = [(arms[i], arms[j]) for i in range(8) for j in range(i + 1, 8)]
    batch = category_comparisons_many(pairs)
    assert batch == [_categories_one(a, b) for a, b in pairs]
    assert batch[0] == category_comparisons(*pairs[0]) and sum(len(rows) for rows in batch) > 50


def test_cost_differences_equal_the_per_pair_computation() -> None:
    rng = np.random.default_rng(7)
    problems = [f"p{i:03d}" for i in range(90)]

    def means(drop: int) -> dict[str, float]:
        return {p: float(rng.integers(100, 5000)) / int(rng.integers(1, 6)) for p in problems[drop:]}

    arms = [means(0), means(0), means(10), means(0), {}, {problems[0]: 5.0}]
    pairs = [(a, b) for a in arms for b in arms if a is not b]
    got = cost_differences(pairs, metric="tokens")
    for (a, b), row in zip(pairs, got, strict=True):
        assert row == cost_difference(a, b, metric="tokens")
        common = sorted(set(a) & set(b))
        if not common:
            assert row["n"] == 0 and row["p_signed_rank"] is None
            continue
        va, vb = np.array([a[p] for p in common]), np.array([b[p] for p in common])
        diffs = vb - va
        lo, hi, p_t = _t_interval_one(diffs)
        assert (row["a_mean"], row["b_mean"], row["delta"]) == (float(va.mean()), float(vb.mean()),
                                                                 float(diffs.mean()))
        assert (row["ci_lo"], row["ci_hi"], row["p_t"]) == (lo, hi, p_t)
        assert (row["p_signed_rank"], row["signed_rank_method"]) == wilcoxon_p(np.round(diffs, 9))[:2]
