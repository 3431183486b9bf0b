"""Cost as an outcome, compared like accuracy: per-arm mean cost with a 95% CI, and per pair the paired
per-problem cost difference with a t-interval, the exact signed-rank p, and Holm over the report's family.

Why: an arm is only better if it is better at its price. Each problem is its own control for cost as for
accuracy, so a pair's cost difference is the mean over common problems of (b's mean cost per trial on the
problem - a's), in the same units a reader pays in (tokens, LLM calls, seconds).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
from scipy import stats as sps

from execugraph.stats.paired import holm, wilcoxon_p
from execugraph.stats.records import ArmData, CostColumns

METRICS = ("tokens", "tokens_in", "tokens_out", "llm_calls", "wallclock_s")
# The costs a frontier can be drawn on: the CLI's `--cost` word -> the metric.
FRONTIER_METRICS = {"tokens": "tokens", "calls": "llm_calls", "wallclock": "wallclock_s"}
UNITS = {
    "tokens": "tokens",
    "tokens_in": "input tokens",
    "tokens_out": "output tokens",
    "llm_calls": "LLM calls",
    "wallclock_s": "seconds",
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
    raise ValueError(f"cost {choice!r} is not one of: {', '.join(FRONTIER_METRICS)}")


def trial_values(costs: CostColumns, metric: str) -> list[float | None]:
    """The metric of each trial (None where not recorded), in the order of `costs.problem_ids`."""
    if metric == "tokens":
        return [None if i is None or o is None else float(i + o) for i, o in zip(costs.tokens_in, costs.tokens_out,
                                                                                  strict=True)]
    if metric not in METRICS:
        raise ValueError(f"unknown cost metric {metric!r}")
    return [None if v is None else float(v) for v in getattr(costs, metric)]


def problem_sums(costs: CostColumns, metric: str) -> dict[str, tuple[float, int]]:
    """problem -> (summed cost, trials that recorded it), for problems with at least one recorded value.

    Sums are exact (`math.fsum`), so they do not depend on the order the trials were read in (SQL or records).
    """
    values = trial_values(costs, metric)
    if len(costs.problem_ids) != len(values):
        return {}  # costs loaded without their problems (an older loader): nothing can be paired
    seen: dict[str, list[float]] = {}
    for problem, value in zip(costs.problem_ids, values, strict=True):
        if value is not None and math.isfinite(value):
            seen.setdefault(problem, []).append(value)
    return {p: (math.fsum(v), len(v)) for p, v in sorted(seen.items())}


Sums = dict[str, dict[str, tuple[float, int]]]  # metric -> problem -> (summed cost, trials)


def arm_sums(arm: ArmData) -> Sums:
    """`problem_sums` of every metric of one arm (computed once, read by the intervals and the pairs)."""
    return {metric: problem_sums(arm.costs, metric) for metric in METRICS}


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
    half = float(sps.t.ppf(0.975, m - 1)) * se
    return (ratio - half, ratio + half)


def arm_cost_intervals(arm: ArmData, all_sums: Sums | None = None) -> dict[str, dict]:
    """metric -> {recorded, problems, mean, ci_lo, ci_hi}: mean per trial with a 95% interval over problems."""
    all_sums = all_sums or arm_sums(arm)
    out = {}
    for metric in METRICS:
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
    n = diffs.size
    if n < 2:
        return (None, None, None)
    mean = float(diffs.mean())
    se = float(diffs.std(ddof=1)) / math.sqrt(n)
    if se == 0.0:  # no spread: every problem differs by the same amount, so a t-interval would have no width
        return (None, None, None)
    half = float(sps.t.ppf(0.975, n - 1)) * se
    p = float(2 * sps.t.sf(abs(mean) / se, n - 1))
    return (mean - half, mean + half, p)


def cost_difference(a_means: Mapping[str, float], b_means: Mapping[str, float], *, metric: str) -> dict:
    """b - a over the problems where both recorded the metric: mean, t-interval, signed-rank p, t-test p."""
    common = sorted(set(a_means) & set(b_means))
    if not common:
        return {"metric": metric, "n": 0, "a_mean": None, "b_mean": None, "delta": None, "ci_lo": None,
                "ci_hi": None, "p_signed_rank": None, "signed_rank_method": "none", "p_t": None, "p_holm": None,
                "note": f"no common problem recorded {UNITS[metric]}"}
    a = np.array([a_means[p] for p in common], dtype=float)
    b = np.array([b_means[p] for p in common], dtype=float)
    diffs = b - a
    lo, hi, p_t = t_interval(diffs)
    p_w, method, _ = wilcoxon_p(np.round(diffs, 9))
    return {
        "metric": metric,
        "n": len(common),
        "a_mean": float(a.mean()),
        "b_mean": float(b.mean()),
        "delta": float(diffs.mean()),
        "ci_lo": lo,
        "ci_hi": hi,
        "p_signed_rank": p_w,
        "signed_rank_method": method,
        "p_t": p_t,
        "p_holm": None,
        "note": ("one common problem: no interval or test" if len(common) == 1 else
                 "every common problem differs by the same amount: no spread to put an interval on"
                 if lo is None else ""),
        "no_spread": len(common) > 1 and lo is None,
    }


def cost_pairs(arms: Sequence[ArmData], planned: Sequence[tuple[int, int]],
               sums: Mapping[str, Sums] | None = None) -> list[dict]:
    """Every planned pair's cost difference for every metric, Holm-adjusted within each metric over the family."""
    sums = sums or {arm.label: arm_sums(arm) for arm in arms}
    means = [{m: problem_means(sums[arm.label][m]) for m in METRICS} for arm in arms]
    rows = []
    for metric in METRICS:
        mine = []
        for i, j in planned:
            row = {"a": arms[i].label, "b": arms[j].label, "a_name": arms[i].name or arms[i].label,
                   "b_name": arms[j].name or arms[j].label,
                   **cost_difference(means[i][metric], means[j][metric], metric=metric)}
            mine.append(row)
        tested = [r for r in mine if r["p_signed_rank"] is not None]
        for row, p in zip(tested, holm([r["p_signed_rank"] for r in tested]), strict=True):
            row["p_holm"] = p
        rows += mine
    return rows
