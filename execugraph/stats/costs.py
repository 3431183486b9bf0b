"""Cost per trial (wallclock, tokens, LLM calls) and the cost-versus-accuracy view.

Means tell the budget, medians tell the typical trial; both are reported because
a few runaway retries skew the mean.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from execugraph.stats.records import ArmData, CostColumns

COST_METRICS = ("wallclock_s", "tokens_in", "tokens_out", "tokens", "llm_calls")


def _column(values: Sequence[float | int | None]) -> np.ndarray:
    """Recorded values, sorted so that sums do not depend on the order trials were fetched in."""
    arr = np.array(values, dtype=float)  # None becomes NaN in C, no Python loop
    return np.sort(arr[~np.isnan(arr)])


def metric_summary(values: Sequence[float | int | None]) -> dict:
    """Mean, median and total of the recorded values; `recorded` counts non-missing ones."""
    arr = _column(values)
    if arr.size == 0:
        return {"recorded": 0, "mean": None, "median": None, "total": 0.0}
    return {
        "recorded": int(arr.size),
        "mean": float(arr.mean()),
        "median": float(np.median(arr)),
        "total": float(arr.sum()),
    }


def cost_summary(costs: CostColumns) -> dict:
    """Per-trial cost summary of one arm; `tokens` is tokens_in + tokens_out where both exist."""
    tokens = [None if i is None or o is None else i + o for i, o in zip(costs.tokens_in, costs.tokens_out, strict=True)]
    columns = {
        "wallclock_s": costs.wallclock_s,
        "tokens_in": costs.tokens_in,
        "tokens_out": costs.tokens_out,
        "tokens": tokens,
        "llm_calls": costs.llm_calls,
    }
    return {name: metric_summary(columns[name]) for name in COST_METRICS}


def mean_calls(arm: ArmData) -> float | None:
    """Mean LLM calls per trial of an arm (None when no trial recorded it)."""
    return metric_summary(arm.costs.llm_calls)["mean"]


def cost_accuracy_point(arm: ArmData, summary: dict | None = None) -> dict:
    """One point of the cost-vs-accuracy chart: pass rate against mean cost per trial."""
    summary = summary or cost_summary(arm.costs)
    trials = arm.trials
    return {
        "arm": arm.label,
        "pass_rate": arm.passed / trials if trials else None,  # no trials: no data, not 0%
        "mean_llm_calls": summary["llm_calls"]["mean"],
        "mean_tokens": summary["tokens"]["mean"],
        "mean_wallclock_s": summary["wallclock_s"]["mean"],
    }
