"""Does a comparison's conclusion survive rescoring? Direction and significance at 0.05 after Holm, in words.

A conclusion is the sign of the delta (b better, a better, no difference) and
whether the Holm-adjusted p is below 0.05. It survives under a protocol when
both are the same as under the published verdicts. The sentence states the
numbers it rests on, so a reader (and a test) can check it against the tables.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

ALPHA = 0.05
PAIR_FIELDS = ("n", "problems_differ", "majority_discordant", "delta_pp", "ci_lo", "ci_hi", "p_wilcoxon",
               "wilcoxon_method", "p_holm", "p_mcnemar", "p_holm_mcnemar")


def p_text(p: float | None) -> str:
    """A p-value as the tables print it: four decimals, below 0.0001 as a bound."""
    if p is None:
        return "–"
    return "<0.0001" if p < 1e-4 else f"{p:.4f}"


def direction(delta_pp: float) -> int:
    """+1 when b is ahead, -1 when a is, 0 for no difference (deltas are shown to one decimal; smaller is noise)."""
    rounded = round(delta_pp, 9)
    return (rounded > 0) - (rounded < 0)


def significant(p_holm: float | None) -> bool:
    """Holm-adjusted p below 0.05."""
    return p_holm is not None and p_holm < ALPHA


def conclusion(values: Mapping[str, Any]) -> dict[str, Any]:
    """The conclusion one set of verdicts supports: direction and significance."""
    return {"direction": direction(values["delta_pp"]), "significant": significant(values["p_holm"])}


def survives(published: Mapping[str, Any], other: Mapping[str, Any]) -> bool:
    """Same direction and the same side of 0.05 after Holm."""
    return conclusion(published) == conclusion(other)


def claim(values: Mapping[str, Any], a: str, b: str) -> str:
    """`b better, significant` / `a ahead, not significant` / `no difference, not significant`."""
    found = conclusion(values)
    if found["direction"] == 0:
        who = "no difference"
    else:
        winner = b if found["direction"] > 0 else a
        who = f"{winner} {'better' if found['significant'] else 'ahead'}"
    return f"{who}, {'significant' if found['significant'] else 'not significant'}"


def _numbers(values: Mapping[str, Any]) -> str:
    return f"{values['delta_pp']:+.1f} pp, Holm p = {p_text(values['p_holm'])}"


def sentence(a: str, b: str, by_set: Mapping[str, Mapping[str, Any]], published: str = "published") -> str:
    """One plain sentence per comparison: the published conclusion, then whether it survives under each protocol."""
    base = by_set[published]
    parts = [f"{b} vs {a} (delta = {b} minus {a}): as published, {_numbers(base)}: {claim(base, a, b)}."]
    for name, values in by_set.items():
        if name == published:
            continue
        verdict = "the conclusion survives" if survives(base, values) else "the conclusion does not survive"
        parts.append(f"Rescored under {name}: {_numbers(values)}: {claim(values, a, b)}; {verdict}.")
    return " ".join(parts)
