"""Cost as an outcome, compared like accuracy: per-arm mean cost with a 95% CI, and per pair the paired
per-problem cost difference with a t-interval, the exact signed-rank p, and Holm over the report's family.

Why: an arm is only better if it is better at its price. Each problem is its own control for cost as for
accuracy, so a pair's cost difference is the mean over common problems of (b's mean cost per trial on the
problem - a's), in the same units a reader pays in (tokens, LLM calls, seconds).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from scipy import stats as sps

from execugraph.stats.paired import holm
from execugraph.stats.records import ArmData, CostColumns
from execugraph.stats.row_stats import row_stats
from execugraph.stats.signed_rank_batch import wilcoxon_flat

METRICS = ("tokens", "tokens_in", "tokens_out", "llm_calls", "wallclock_s")
# The costs a frontier can be drawn on: the CLI's `--cost` word -> the metric.
FRONTIER_METRICS = {"tokens": "tokens", "calls": "llm_calls", "wallclock": "wallclock_s"}
# Model time (summed LLM call durations per trial) is compared only when asked for (`--cost model-time`), so
# reports that do not ask keep their shape; its values are loaded apart (`CostColumns.model_time_s`).
MODEL_TIME = "model_time_s"
MODEL_TIME_CHOICE = "model-time"
UNITS = {
    "tokens": "tokens",
    "tokens_in": "input tokens",
    "tokens_out": "output tokens",
    "llm_calls": "LLM calls",
    "wallclock_s": "seconds",
    MODEL_TIME: "seconds of model time",
}
METHOD = (
    "cost per arm: mean per trial over the trials that recorded it, with a 95% interval that treats problems as "
    "clusters (delta-method standard error of the ratio, t with problems - 1 df; none below two problems). Cost per pair: over the common problems where both arms recorded "
    "it, the mean of (b's mean cost per trial on the problem - a's), with a 95% t-interval (n - 1 degrees of freedom) "
    "and the exact two-sided Wilcoxon signed-rank p on the per-problem differences (zeros dropped; normal "
    "approximation above 400); p_holm is Holm over the same family of comparisons as accuracy, one metric at a time. "
    "tokens = tokens in + tokens out where both were recorded"
)


def metric_from_choice(choice: str) -> str:
    """The metric a `--cost` word (tokens, calls, wallclock) or a metric name asks for; ValueError otherwise."""
    if choice in FRONTIER_METRICS:
        return FRONTIER_METRICS[choice]
    if choice in FRONTIER_METRICS.values():
        return choice
    if choice in (MODEL_TIME_CHOICE, MODEL_TIME):
        return MODEL_TIME
    raise ValueError(f"cost {choice!r} is not one of: {', '.join([*FRONTIER_METRICS, MODEL_TIME_CHOICE])}")


def metrics_for(chosen: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(metrics compared per arm and pair, metrics with a frontier and matched budgets) for the chosen metric:
    the usual ones, and model time too only when it is the one chosen."""
    if chosen == MODEL_TIME:
        return (*METRICS, MODEL_TIME), (*FRONTIER_METRICS.values(), MODEL_TIME)
    return METRICS, tuple(FRONTIER_METRICS.values())


def trial_values(costs: CostColumns, metric: str) -> list[float | None]:
    """The metric of each trial (None where not recorded), in the order of `costs.problem_ids`."""
    if metric == "tokens":
        return [None if i is None or o is None else float(i + o) for i, o in zip(costs.tokens_in, costs.tokens_out,
                                                                                  strict=True)]
    if metric == MODEL_TIME:
        return [None if v is None else float(v) for v in costs.model_time_s]
    if metric not in METRICS:
        raise ValueError(f"unknown cost metric {metric!r}")
    return [None if v is None else float(v) for v in getattr(costs, metric)]


def problem_sums(costs: CostColumns, metric: str, rows: dict[int, list[tuple[str, list[int]]]] | None = None,
                 ) -> dict[str, tuple[float, int]]:
    """problem -> (summed cost, trials that recorded it), for problems with at least one recorded value.

    Sums are exact (`math.fsum`), so they do not depend on the order the trials were read in (SQL or records).
    `rows` (by problem list, for one arm) keeps each problem's trial positions, sorted by problem, across metrics.
    """
    values = trial_values(costs, metric)
    problem_ids = costs.model_time_problems if metric == MODEL_TIME else costs.problem_ids
    if len(problem_ids) != len(values):
        return {}  # costs loaded without their problems (an older loader): nothing can be paired
    rows = {} if rows is None else rows
    if id(problem_ids) not in rows:
        where: dict[str, list[int]] = {}
        for i, problem in enumerate(problem_ids):
            where.setdefault(problem, []).append(i)
        rows[id(problem_ids)] = sorted(where.items())
    out = {}
    for problem, positions in rows[id(problem_ids)]:
        recorded = [v for i in positions if (v := values[i]) is not None and math.isfinite(v)]
        if recorded:
            out[problem] = (math.fsum(recorded), len(recorded))
    return out


Sums = dict[str, dict[str, tuple[float, int]]]  # metric -> problem -> (summed cost, trials)


def arm_sums(arm: ArmData, metrics: Sequence[str] = METRICS) -> Sums:
    """`problem_sums` of every metric of one arm (computed once, read by the intervals and the pairs)."""
    rows: dict[int, list[tuple[str, list[int]]]] = {}
    return {metric: problem_sums(arm.costs, metric, rows) for metric in metrics}


def problem_means(sums: Mapping[str, tuple[float, int]]) -> dict[str, float]:
    """problem -> mean cost per trial on it (recorded trials only), from `problem_sums`."""
    return {p: total / n for p, (total, n) in sums.items()}


def ratio_interval(totals: np.ndarray, counts: np.ndarray) -> tuple[float | None, float | None]:
    """95% interval of sum(totals) / sum(counts) with problems as clusters: the linearised (delta-method) standard
    error of a ratio estimator, sqrt(m / (m - 1) * sum((y_p - R n_p)^2)) / sum(n_p), on a t with m - 1 df."""
    m = totals.size
    if m < 2:
        return (None, None)
    ratio = math.fsum(totals) / math.fsum(counts)
    residual = totals - ratio * counts
    se = math.sqrt(m / (m - 1) * float(np.sum(residual**2))) / float(counts.sum())
    half = _t_quantile(m - 1) * se
    return (ratio - half, ratio + half)


def arm_cost_intervals(arm: ArmData, all_sums: Sums | None = None) -> dict[str, dict]:
    """metric -> {recorded, problems, mean, ci_lo, ci_hi}: mean per trial with a 95% interval over problems."""
    all_sums = all_sums or arm_sums(arm)
    out = {}
    for metric in all_sums:
        sums = all_sums[metric]
        problems = sorted(sums)
        totals = np.array([sums[p][0] for p in problems], dtype=float)
        counts = np.array([sums[p][1] for p in problems], dtype=float)
        recorded = int(counts.sum())
        mean = math.fsum(totals) / recorded if recorded else None
        lo, hi = ratio_interval(totals, counts)
        out[metric] = {"recorded": recorded, "problems": len(problems), "mean": mean, "ci_lo": lo, "ci_hi": hi}
    return out


def t_interval(diffs: np.ndarray) -> tuple[float | None, float | None, float | None]:
    """(lower, upper, two-sided p) of the one-sample t-test of mean 0; Nones with fewer than two values."""
    return t_intervals([np.asarray(diffs, dtype=float)])[0]


@functools.lru_cache(maxsize=4096)
def _t_quantile(df: int) -> float:
    return float(sps.t.ppf(0.975, df))


def t_intervals(vectors: Sequence[np.ndarray], means: Sequence[float] | None = None,
                ) -> list[tuple[float | None, float | None, float | None]]:
    """`t_interval` of each vector, computed for all at once (the same floats: tests/stats/test_signed_rank_batch.py);
    `means` are the vectors' `row_stats` means when already known."""
    means, sds = row_stats(vectors, None) if means is None else means, row_stats(vectors, 1)
    out: list[tuple[float | None, float | None, float | None]] = [(None, None, None)] * len(vectors)
    tested, stats, dfs = [], [], []
    for i, v in enumerate(vectors):
        n = v.size
        if n < 2:
            continue
        se = sds[i] / math.sqrt(n)
        if se == 0.0:  # no spread: every problem differs by the same amount, so a t-interval would have no width
            continue
        half = _t_quantile(n - 1) * se
        out[i] = (means[i] - half, means[i] + half, None)
        tested.append(i)
        stats.append(abs(means[i]) / se)
        dfs.append(n - 1)
    if tested:
        p = (2 * sps.t.sf(np.array(stats), np.array(dfs))).tolist()
        for i, value in zip(tested, p, strict=True):
            out[i] = (out[i][0], out[i][1], float(value))
    return out


def cost_difference(a_means: Mapping[str, float], b_means: Mapping[str, float], *, metric: str) -> dict:
    """b - a over the problems where both recorded the metric: mean, t-interval, signed-rank p, t-test p."""
    return cost_differences([(a_means, b_means)], metric=metric)[0]


def _common_arrays(a_means: Mapping[str, float], b_means: Mapping[str, float],
                   memo: dict[Any, Any]) -> tuple[np.ndarray, np.ndarray]:
    """Both arms' means over their common problems (sorted); `memo` (by mapping, for one call) keeps each arm's
    sorted problems and means, used as they are when both arms recorded the same problems (arms with the same
    problems share one number in `memo`, so a pair compares two numbers, not two lists of problems)."""
    known = []
    for means in (a_means, b_means):
        if id(means) not in memo:
            keys = tuple(sorted(means))
            memo[id(means)] = (memo.setdefault(keys, len(memo)), np.array([means[p] for p in keys], dtype=float))
        known.append(memo[id(means)])
    (keys_a, values_a), (keys_b, values_b) = known
    if keys_a == keys_b:
        return (values_a, values_b)
    common = sorted(set(a_means) & set(b_means))
    return (np.array([a_means[p] for p in common], dtype=float), np.array([b_means[p] for p in common], dtype=float))


def cost_differences(pairs: Sequence[tuple[Mapping[str, float], Mapping[str, float]]], *, metric: str) -> list[dict]:
    """`cost_difference` of each (a_means, b_means), with all signed-rank tests and t-intervals computed at once."""
    memo: dict[Any, Any] = {}
    arrays = [_common_arrays(a, b, memo) for a, b in pairs]
    diffs = [b - a for a, b in arrays]
    sizes = np.fromiter((d.size for d in diffs), dtype=np.int64, count=len(diffs))
    rounded = np.round(np.concatenate(diffs), 9) if diffs else np.zeros(0)  # one call, the same floats
    tests = wilcoxon_flat(rounded, sizes)
    deltas = row_stats(diffs, None)
    intervals = t_intervals(diffs, deltas)
    distinct = list({id(v): v for pair in arrays for v in pair}.values())  # arms' arrays are shared between pairs
    mean_of = dict(zip([id(v) for v in distinct], row_stats(distinct, None), strict=True))
    a_means, b_means = [mean_of[id(a)] for a, _ in arrays], [mean_of[id(b)] for _, b in arrays]
    rows = []
    for k, (a, _) in enumerate(arrays):
        n = a.size
        if not n:
            rows.append({"metric": metric, "n": 0, "a_mean": None, "b_mean": None, "delta": None, "ci_lo": None,
                         "ci_hi": None, "p_signed_rank": None, "signed_rank_method": "none", "p_t": None,
                         "p_holm": None, "note": f"no common problem recorded {UNITS[metric]}"})
            continue
        lo, hi, p_t = intervals[k]
        p_w, method, _ = tests[k]
        rows.append({
            "metric": metric,
            "n": n,
            "a_mean": a_means[k],
            "b_mean": b_means[k],
            "delta": deltas[k],
            "ci_lo": lo,
            "ci_hi": hi,
            "p_signed_rank": p_w,
            "signed_rank_method": method,
            "p_t": p_t,
            "p_holm": None,
            "note": ("one common problem: no interval or test" if n == 1 else
                     "every common problem differs by the same amount: no spread to put an interval on"
                     if lo is None else ""),
            "no_spread": n > 1 and lo is None,
        })
    return rows


def cost_pairs(arms: Sequence[ArmData], planned: Sequence[tuple[int, int]],
               sums: Mapping[str, Sums] | None = None, metrics: Sequence[str] = METRICS) -> list[dict]:
    """Every planned pair's cost difference for every metric, Holm-adjusted within each metric over the family."""
    sums = sums or {arm.label: arm_sums(arm, metrics) for arm in arms}
    means = [{m: problem_means(sums[arm.label][m]) for m in metrics} for arm in arms]
    rows = []
    for metric in metrics:
        found = cost_differences([(means[i][metric], means[j][metric]) for i, j in planned], metric=metric)
        mine = [
            {"a": arms[i].label, "b": arms[j].label, "a_name": arms[i].name or arms[i].label,
             "b_name": arms[j].name or arms[j].label, **row}
            for (i, j), row in zip(planned, found, strict=True)
        ]
        tested = [r for r in mine if r["p_signed_rank"] is not None]
        for row, p in zip(tested, holm([r["p_signed_rank"] for r in tested]), strict=True):
            row["p_holm"] = p
        rows += mine
    return rows
