"""Retry analysis: what the retries bought, per retry budget and per retries used.

The sweep compares like with like: a series is one benchmark, one condition family
(`budgets.condition_family`: the condition without its budget suffix) and one
generator model, and only its budgets vary. Arms of different conditions,
benchmarks or models are never pooled in a row nor joined by a line; a series with
fewer than two budgets that have graded trials is not a sweep and is listed, with
the reason, under `missing`. An arm's budget is resolved by `budgets.condition_budget`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from execugraph.stats.budgets import condition_family
from execugraph.stats.costs import cost_summary
from execugraph.stats.records import ArmData

METHOD = (
    "one series per benchmark, condition (its retry-budget suffix stripped: multi-full@1 and multi-full@3 are "
    "one series) and generator model; arms of different series are never pooled nor joined by a line; arms "
    "sharing a series and a budget are pooled; a series needs graded trials at two or more budgets to be a sweep"
)
UNRECORDED = "unrecorded benchmark"


def retries_used_distribution(arm: ArmData) -> list[dict]:
    """How many trials used 0, 1, 2, ... retries, and how often each group passed."""
    total = arm.trials
    return [
        {
            "retries_used": k,
            "trials": t.trials,
            "share": t.trials / total if total else 0.0,
            "passed": t.passed,
            "pass_rate": t.rate,
        }
        for k, t in sorted(arm.retries_used.items())
    ]


@dataclass(frozen=True)
class SeriesKey:
    """What every arm of one sweep series shares: benchmark(s), condition family and generator model."""

    benchmark: str  # '+'-joined when an arm spans several; '' when not recorded
    condition: str
    model: str | None

    def text(self, with_model: bool) -> str:
        parts = [self.benchmark or UNRECORDED, self.condition]
        return " · ".join([*parts, self.model] if with_model and self.model else parts)


@dataclass
class RetrySweep:
    """The sweep's rows (series by series, budgets ascending) and the series or arms that are not a sweep, why."""

    rows: list[dict] = field(default_factory=list)
    missing: list[dict] = field(default_factory=list)


def graded(arm: ArmData) -> int:
    """Trials that were graded: counted ones less those that ended in an error (never graded)."""
    return max(arm.trials - arm.errored, 0)


def _names(members: Sequence[ArmData]) -> list[str]:
    return [a.name or a.label for a in members]


def _budget_row(members: list[ArmData], costs: Mapping[str, dict], conditions: Mapping[str, str]) -> dict:
    def pooled_mean(metric: str) -> float | None:
        recorded = sum(costs[a.label][metric]["recorded"] for a in members)
        return sum(costs[a.label][metric]["total"] for a in members) / recorded if recorded else None

    trials = sum(a.trials for a in members)
    passed = sum(a.passed for a in members)
    retried = sum(k * t.trials for a in members for k, t in a.retries_used.items())
    return {
        "arms": [a.label for a in members],
        "names": _names(members),
        "conditions": list(dict.fromkeys(conditions[a.label] for a in members)),
        "trials": trials,
        "graded": sum(graded(a) for a in members),
        "passed": passed,
        "pass_rate": passed / trials if trials else None,
        "mean_retries_used": retried / trials if trials else None,
        "mean_llm_calls": pooled_mean("llm_calls"),
        "mean_tokens": pooled_mean("tokens"),
        "mean_wallclock_s": pooled_mean("wallclock_s"),
    }


def _not_a_sweep(key: SeriesKey, by_budget: dict[int, list[ArmData]], with_model: bool) -> str | None:
    """Why a series is not a sweep (None when it is one)."""
    with_data = [b for b, members in by_budget.items() if any(graded(a) for a in members)]
    if len(with_data) >= 2:
        return None
    names = ", ".join(n for members in by_budget.values() for n in _names(members))
    where = f"in {key.text(with_model)}"
    if len(by_budget) == 1:
        return f"{names}: only budget {next(iter(by_budget))} {where}; nothing to sweep"
    budgets = ", ".join(str(b) for b in sorted(by_budget))
    graded_at = f"only budget {with_data[0]} has" if with_data else "no budget has"
    return f"{names}: budgets {budgets} {where}, but {graded_at} graded trials; nothing to sweep"


def retry_sweep(
    arms: Sequence[ArmData],
    costs: Mapping[str, dict] | None = None,
    conditions: Mapping[str, str | None] | None = None,
) -> RetrySweep:
    """Pass rate and mean cost per retry budget within each series (see the module docstring).

    `conditions` maps an arm label to its condition where `arm.condition` is None (a run
    arm whose run ran one condition); `costs` maps arm label -> `cost_summary` (computed
    here when not given). Arms with an unknown budget are left out (the report lists them
    under `unknown_budget`); arms without a condition or without counted trials go to `missing`.
    """
    costs = dict(costs or {})
    sweep = RetrySweep()
    resolved: dict[str, str] = {}
    series: dict[SeriesKey, dict[int, list[ArmData]]] = {}
    for arm in arms:
        if arm.retry_budget is None:
            continue
        name = arm.name or arm.label
        condition = arm.condition or (conditions or {}).get(arm.label)
        if not arm.trials:
            sweep.missing.append({"arms": [arm.label], "names": [name],
                                  "note": f"{name}: no graded trials; not in any sweep"})
            continue
        if condition is None:
            sweep.missing.append({"arms": [arm.label], "names": [name],
                                  "note": f"{name}: no single condition (a run of several); not in any sweep"})
            continue
        resolved[arm.label] = condition
        if arm.label not in costs:
            costs[arm.label] = cost_summary(arm.costs)
        key = SeriesKey("+".join(sorted(b for b in arm.benchmarks if b)), condition_family(condition) or condition, arm.model)
        series.setdefault(key, {}).setdefault(arm.retry_budget, []).append(arm)
    with_model = len({k.model for k in series}) > 1
    for key, by_budget in series.items():
        base = {"series": key.text(with_model), "benchmark": key.benchmark, "condition": key.condition,
                "model": key.model}
        reason = _not_a_sweep(key, by_budget, with_model)
        if reason is not None:
            members = [a for b in sorted(by_budget) for a in by_budget[b]]
            sweep.missing.append({**base, "retry_budgets": sorted(by_budget), "arms": [a.label for a in members],
                                  "names": _names(members), "note": reason})
            continue
        for budget in sorted(by_budget):
            sweep.rows.append({**base, "retry_budget": budget, **_budget_row(by_budget[budget], costs, resolved)})
    return sweep


def by_retry_budget(
    arms: Sequence[ArmData],
    costs: Mapping[str, dict] | None = None,
    conditions: Mapping[str, str | None] | None = None,
) -> list[dict]:
    """The sweep's rows only (see `retry_sweep`)."""
    return retry_sweep(arms, costs, conditions).rows
