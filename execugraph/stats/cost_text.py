"""The cost part of `stats`'s terminal report: paired cost differences, who dominates whom, matched budgets.

Plain text for a terminal; every name goes through `inert_text.terminal_text` (by the caller's table and here).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from execugraph.safety.inert_text import terminal_text
from execugraph.stats.cost_compare import UNITS
from execugraph.stats.frontier import amount
from execugraph.stats.report_model import StatsReport

TableWriter = Callable[[Sequence[str], Sequence[Sequence[Any]]], str]


def _p(value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value:.2e}" if value < 1e-3 else f"{value:.3f}"


def cost_lines(report: StatsReport, *, table: TableWriter) -> list[str]:
    """Lines for the chosen cost (`stats --cost`): each pair's paired difference, the frontier, matched budgets."""
    cost = report.cost_comparison
    metric = cost.metric
    unit = UNITS.get(metric, metric)
    pairs = [p for p in cost.pairs if p.metric == metric]
    if not pairs:
        return []
    out = [f"Paired cost differences ({unit} per problem, b - a; t-interval, signed-rank p, Holm over this family)"]
    out.append(table(
        ["a", "b", "n", f"delta {unit}", "95% CI", "p signed-rank", "p holm"],
        [[p.a_name, p.b_name, p.n, amount(p.delta, metric),
          f"{amount(p.ci_lo, metric)} .. {amount(p.ci_hi, metric)}", _p(p.p_signed_rank), _p(p.p_holm)]
         for p in pairs],
    ))
    points, dominated, matched = cost.for_metric()
    out += ["", f"Accuracy-cost frontier ({unit})"]
    if dominated:
        out += [f"- {terminal_text(d.sentence)}" for d in dominated]
    else:
        out.append(f"- no arm of this family is dominated on {unit}")
    frontier = [p.name for p in points if p.on_frontier]
    if frontier:
        out.append("- on the frontier: " + ", ".join(terminal_text(n) for n in frontier))
    if matched:
        out += ["", f"Matched-budget baselines ({unit})"]
        out += [f"- {terminal_text(b.sentence)}" for b in matched]
    return out


def cost_findings(report: StatsReport, metric: str | None = None) -> dict[str, Any]:
    """The frontier in words for a written report: the cost, who dominates whom, the frontier, matched budgets
    (plain strings: the writer escapes them for its format)."""
    cost = report.cost_comparison
    m = metric or cost.metric
    points, dominated, matched = cost.for_metric(m)
    unit = UNITS.get(m, m)
    lines = [d.sentence + "." for d in dominated] or [f"No arm of this family is dominated on {unit}."]
    if points:
        lines.append("On the frontier: " + ", ".join(p.name for p in points if p.on_frontier) + ".")
    return {"metric": m, "dominance": lines, "matched_budget": [b.sentence + "." for b in matched]}
