"""Assemble the report's cost section from the loaded arms and the already finished accuracy sections.

Why a module of its own: `report.report_from_arms` stays one call away from it (`cost_comparison(...)`), and
the cost engine (`cost_compare`), the frontier and the matched budgets stay independent of the report's shape.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from execugraph.stats.cost_compare import METHOD as COST_METHOD
from execugraph.stats.cost_compare import arm_cost_intervals, arm_sums, cost_pairs, metric_from_choice, metrics_for
from execugraph.stats.frontier import METHOD as FRONTIER_METHOD
from execugraph.stats.frontier import frontier_section
from execugraph.stats.matched_budget import METHOD as MATCHED_METHOD
from execugraph.stats.matched_budget import matched_budgets
from execugraph.stats.records import ArmData

METHODS = {"cost": COST_METHOD, "frontier": FRONTIER_METHOD, "matched_budget": MATCHED_METHOD}


def cost_comparison(arms: Sequence[ArmData], planned: Sequence[tuple[int, int]], arm_sections: Sequence[Mapping],
                    pair_sections: Sequence[Mapping], *, metric: str = "tokens") -> dict:
    """The `cost_comparison` section: `arm_sections`/`pair_sections` are the report's own (pass rates, Holm p)."""
    chosen = metric_from_choice(metric)
    compared, charted = metrics_for(chosen)
    sums = {a.label: arm_sums(a, compared) for a in arms}
    intervals = {a.label: arm_cost_intervals(a, sums[a.label]) for a in arms}
    pairs = cost_pairs(arms, planned, sums, compared)
    points, dominated = frontier_section(arm_sections, intervals, pair_sections, pairs, charted)
    return {
        "metric": chosen,
        "arms": [{"arm": a.label, "name": a.name or a.label, "metrics": intervals[a.label]} for a in arms],
        "pairs": pairs,
        "frontier": points,
        "dominance": dominated,
        "matched_budget": matched_budgets(arms, planned, intervals, charted),
    }
