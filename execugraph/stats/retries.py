"""Retry analysis: what the retries bought, per retry budget and per retries used.

An arm's budget is resolved by `budgets.condition_budget`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from execugraph.stats.costs import cost_summary
from execugraph.stats.records import ArmData


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


def by_retry_budget(arms: Sequence[ArmData], costs: Mapping[str, dict] | None = None) -> list[dict]:
    """Pass rate and mean cost per retry budget, pooling the arms that share a budget.

    `costs` maps arm label -> `cost_summary` (computed here when not given); pooled
    means are total / recorded over the member arms. Arms with an unknown budget are
    left out (listed under `unknown_budget` by the report).
    """
    costs = dict(costs or {})
    groups: dict[int, list[ArmData]] = {}
    for arm in arms:
        if arm.retry_budget is not None:
            groups.setdefault(arm.retry_budget, []).append(arm)
            if arm.label not in costs:
                costs[arm.label] = cost_summary(arm.costs)

    def pooled_mean(members: list[ArmData], metric: str) -> float | None:
        recorded = sum(costs[a.label][metric]["recorded"] for a in members)
        return sum(costs[a.label][metric]["total"] for a in members) / recorded if recorded else None

    rows = []
    for budget in sorted(groups):
        members = groups[budget]
        trials = sum(a.trials for a in members)
        passed = sum(a.passed for a in members)
        retried = sum(k * t.trials for a in members for k, t in a.retries_used.items())
        rows.append(
            {
                "retry_budget": budget,
                "arms": [a.label for a in members],
                "trials": trials,
                "pass_rate": passed / trials if trials else 0.0,
                "mean_retries_used": retried / trials if trials else None,
                "mean_llm_calls": pooled_mean(members, "llm_calls"),
                "mean_tokens": pooled_mean(members, "tokens"),
                "mean_wallclock_s": pooled_mean(members, "wallclock_s"),
            }
        )
    return rows
