"""The accuracy-cost frontier of a family: which arms another arm dominates, and why, in plain words.

Why: "AI Agents That Matter" (Kapoor et al., 2024) asks that agents be compared against simple baselines at
equal cost. Within the report's family, arm C dominates arm X on a cost when both were compared, C is
significantly cheaper (Holm-adjusted signed-rank p below alpha and the t-interval of the saving above 0) and
C is at least as accurate (any accuracy deficit of C is not significant after Holm). Arms nobody dominates form
the frontier. Only pairs the family tested are judged: an arm is never called dominated by one it was not
compared with.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from execugraph.stats.cost_compare import FRONTIER_METRICS, UNITS
from execugraph.stats.paired import ALPHA

METHOD = (
    f"C dominates X on a cost when the family compares them, C is significantly cheaper (Holm-adjusted signed-rank "
    f"p < {ALPHA:g} over the family, for that cost, and the 95% t-interval of X - C above 0) and C's accuracy "
    f"deficit, if any, is not significant (Holm-adjusted Wilcoxon p of the accuracy comparison >= {ALPHA:g} or C "
    "at least as accurate); the frontier is every arm no arm dominates"
)


def amount(value: float | None, metric: str) -> str:
    """A cost with thousands separators: tokens and seconds to one decimal, LLM calls to two."""
    if value is None:
        return "—"
    return f"{value:,.2f}" if metric == "llm_calls" else f"{value:,.1f}"


def _accuracy_of(pair: Mapping, cheaper_is_b: bool) -> tuple[float, float | None, float | None, float | None]:
    """(delta, lo, hi, Holm p) of the cheaper arm minus the other, in pp."""
    delta, lo, hi = pair["delta_pp"], pair["ci_lo"], pair["ci_hi"]
    p = pair.get("p_holm") if pair.get("p_holm") is not None else pair["p_wilcoxon"]
    if cheaper_is_b:
        return (delta, lo, hi, p)
    return (-delta, None if hi is None else -hi, None if lo is None else -lo, p)


def dominance(pairs: Sequence[Mapping], costs: Sequence[Mapping], metric: str, alpha: float = ALPHA) -> list[dict]:
    """One row per dominated (arm, dominating arm) on `metric`, with its sentence, in the family's pair order."""
    by_pair = {(c["a"], c["b"]): c for c in costs if c["metric"] == metric}
    rows = []
    for pair in pairs:
        cost = by_pair.get((pair["a"], pair["b"]))
        if cost is None or cost["p_holm"] is None or cost["p_holm"] >= alpha or not cost["delta"]:
            continue  # not significantly cheaper either way
        if cost["ci_lo"] is None or cost["ci_hi"] is None:
            if not cost.get("no_spread"):
                continue
            cheaper_is_b = cost["delta"] < 0  # the same saving on every problem: its sign is not in doubt
        elif not (cost["ci_hi"] < 0 or cost["ci_lo"] > 0):
            continue
        else:
            cheaper_is_b = cost["ci_hi"] < 0
        delta, lo, hi, p_acc = _accuracy_of(pair, cheaper_is_b)
        if delta < 0 and p_acc is not None and p_acc < alpha:
            continue  # cheaper, but significantly less accurate: a trade-off, not dominance
        side, other = ("b", "a") if cheaper_is_b else ("a", "b")
        saving = -cost["delta"] if cheaper_is_b else cost["delta"]
        if cost["ci_lo"] is None or cost["ci_hi"] is None:
            s_lo = s_hi = None
        else:
            s_lo, s_hi = (-cost["ci_hi"], -cost["ci_lo"]) if cheaper_is_b else (cost["ci_lo"], cost["ci_hi"])
        row = {
            "metric": metric,
            "dominated": pair[other],
            "dominated_name": pair[f"{other}_name"] or pair[other],
            "by": pair[side],
            "by_name": pair[f"{side}_name"] or pair[side],
            "n": pair["n"],
            "delta_pp": delta,
            "ci_lo": lo,
            "ci_hi": hi,
            "p_holm": p_acc,
            "cost_n": cost["n"],
            "saving": saving,
            "saving_ci_lo": s_lo,
            "saving_ci_hi": s_hi,
            "p_holm_cost": cost["p_holm"],
        }
        row["sentence"] = sentence(row)
        rows.append(row)
    return rows


def _pp(value: float | None) -> str:
    return "—" if value is None else f"{value:+.1f}"


def sentence(row: Mapping) -> str:
    """'retry dominates multi: +1.2 pp (95% CI ...), 3,029 fewer tokens per problem (95% CI ...)' (plain text)."""
    metric = row["metric"]
    return (
        f"{row['by_name']} dominates {row['dominated_name']}: {_pp(row['delta_pp'])} pp accuracy (95% CI "
        f"{_pp(row['ci_lo'])} to {_pp(row['ci_hi'])}, Holm p = {row['p_holm']:.3g}), {amount(row['saving'], metric)} "
        f"fewer {UNITS[metric]} per problem (95% CI {amount(row['saving_ci_lo'], metric)} to "
        f"{amount(row['saving_ci_hi'], metric)}, Holm p = {row['p_holm_cost']:.3g})"
    )


def frontier_points(arms: Sequence[Mapping], arm_costs: Mapping[str, Mapping], dominated: Sequence[Mapping],
                    metric: str) -> list[dict]:
    """Each arm with graded trials at (mean cost, pass rate), both with their 95% CIs, and who dominates it."""
    points = []
    for arm in arms:
        cost = arm_costs.get(arm["label"], {}).get(metric) or {}
        if not arm.get("trials") or arm.get("pass_rate") is None or cost.get("mean") is None:
            continue
        by = [d["by_name"] for d in dominated if d["dominated"] == arm["label"] and d["metric"] == metric]
        points.append({
            "metric": metric,
            "arm": arm["label"],
            "name": arm["name"],
            "pass_rate": arm["pass_rate"],
            "ci_lo": arm.get("ci_lo"),
            "ci_hi": arm.get("ci_hi"),
            "cost": cost["mean"],
            "cost_ci_lo": cost.get("ci_lo"),
            "cost_ci_hi": cost.get("ci_hi"),
            "dominated_by": by,
            "on_frontier": not by,
        })
    return points


def frontier_section(arms: Sequence[Mapping], arm_costs: Mapping[str, Mapping], pairs: Sequence[Mapping],
                     costs: Sequence[Mapping], metrics: Sequence[str] | None = None) -> tuple[list[dict], list[dict]]:
    """(points, dominance rows) for every frontier metric (tokens, LLM calls, wall-clock; `metrics` if given)."""
    points, rows = [], []
    for metric in metrics or FRONTIER_METRICS.values():
        mine = dominance(pairs, costs, metric)
        rows += mine
        points += frontier_points(arms, arm_costs, mine, metric)
    return points, rows
