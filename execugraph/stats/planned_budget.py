"""The matched budgets a batch planned (`batch --match-budget`), found again in the report: its plan and its result.

Why: a batch that queued extra samples of a cheaper arm did so for one comparison; `stats` shows that comparison's
pass@k at the costlier arm's budget without being asked, on the measure the batch planned it on.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from execugraph.stats.cost_compare import metric_from_choice
from execugraph.stats.report_model import StatsReport

STATS_COST = {"tokens": "tokens", "calls": "calls", "time": "wallclock", "model-time": "model-time"}


def plans_of(configs: Mapping[str, Any]) -> list[tuple[str, dict]]:
    """(run id, plan) of each run whose stored batch config planned a matched budget, in request order."""
    out = []
    for run_id, config in configs.items():
        batch = (config or {}).get("batch") if isinstance(config, dict) else None
        plan = batch.get("matched_budget") if isinstance(batch, dict) else None
        if isinstance(plan, dict) and plan.get("samples"):
            out.append((str(run_id), plan))
    return out


def planned_cost(plans: Sequence[tuple[str, dict]]) -> str | None:
    """The `stats --cost` word every plan agrees on, or None (no plan, or plans on different measures)."""
    words = {STATS_COST.get(p.get("measure", "tokens"), "tokens") for _, p in plans}
    return words.pop() if len(words) == 1 else None


def planned_results(report: StatsReport, plans: Sequence[tuple[str, dict]]) -> list[dict]:
    """Each plan with the report's matched-budget row for its pair and measure (None, and why, when missing)."""
    arms = {(a.run, a.condition): a.label for a in report.arms}
    out = []
    for run_id, plan in plans:
        metric = metric_from_choice(STATS_COST.get(plan.get("measure", "tokens"), "tokens"))
        cheap, costly = arms.get((run_id, plan["cheap"])), arms.get((run_id, plan["costly"]))
        row = next((b for b in report.cost_comparison.matched_budget
                    if b.metric == metric and b.sampler == cheap and b.reference == costly), None)
        note = ""
        if row is None and metric not in {b.metric for b in report.cost_comparison.matched_budget} | {
                "tokens", "llm_calls", "wallclock_s"}:
            note = f"planned on {plan.get('measure')}: run stats with --cost {STATS_COST[plan['measure']]}"
        elif row is None:
            note = (f"{plan['cheap']} against {plan['costly']} is not in this report's family, or {plan['cheap']} was "
                    f"not cheaper per sample in this batch, or has fewer than two samples on every problem"
                    if cheap and costly else f"{plan['cheap']} or {plan['costly']} is not among the report's arms")
        out.append({"run": run_id, "cheap": plan["cheap"], "costly": plan["costly"], "measure": plan.get("measure"),
                    "samples": plan.get("samples"), "plan": plan.get("text", ""),
                    "result": None if row is None else row.model_dump(mode="json"), "note": note})
    return out


def planned_lines(results: Sequence[Mapping]) -> list[str]:
    """Terminal lines: per plan, its words and the pass@k at the budget (or why there is none)."""
    out = []
    for r in results:
        out += ["", f"Planned matched budget (run {r['run']}): {r['cheap']} at the budget of {r['costly']}",
                f"- plan: {r['plan']}"]
        out.append(f"- result: {r['result']['sentence']}" if r["result"] else f"- no result: {r['note']}")
    return out
