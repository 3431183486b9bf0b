"""Does a comparison's conclusion survive rescoring? The engine's rule (`verdicts.compare`), in words.

A conclusion is the sign of the delta (b better, a better, no difference) and
whether the Holm-adjusted p is below ALPHA; it survives under a verdict set when
both are the same as under the published verdicts. The sentence states the
numbers it rests on, so a reader (and a test) can check it against the tables.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from execugraph.stats.table_format import MISSING, number
from execugraph.verdicts.compare import ALPHA, conclusion, survives

__all__ = ["ALPHA", "claim", "conclusion", "p_text", "sentence", "survives"]


def p_text(p: float | None) -> str:
    """A p-value as the tables print it: four decimals, below 0.0001 as a bound."""
    if number(p) == MISSING:
        return MISSING
    return "<0.0001" if p < 1e-4 else f"{p:.4f}"


def claim(values: Mapping[str, Any], a: str, b: str) -> str:
    """`b better, significant` / `a ahead, not significant` / `no difference, not significant`."""
    found = conclusion(values)
    if found.direction == 0:
        who = "no difference"
    else:
        winner = b if found.direction > 0 else a
        who = f"{winner} {'better' if found.significant else 'ahead'}"
    return f"{who}, {'significant' if found.significant else 'not significant'}"


def _numbers(values: Mapping[str, Any]) -> str:
    return f"{number(values['delta_pp'], '+.1f')} pp, Holm p = {p_text(values['p_holm'])}"


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
