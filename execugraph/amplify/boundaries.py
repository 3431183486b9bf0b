"""Inputs at the edges a problem's preconditions allow: where wrong programs most often fail and correct ones
still have a stated answer (the boundary inputs an amplified suite tries first)."""

from __future__ import annotations

from typing import Any

from execugraph.amplify.preconditions import Preconditions
from execugraph.amplify.templates import Seed


def _bounds(pre: Preconditions, index: int) -> tuple[float | None, float | None]:
    low = high = None
    for rule in pre.rules:
        if rule.arg == index and rule.kind == "min":
            bound, strict = rule.param
            value = bound + 1 if strict and float(bound).is_integer() else bound
            low = value if low is None else max(low, value)
        if rule.arg == index and rule.kind == "max":
            bound, strict = rule.param
            value = bound - 1 if strict and float(bound).is_integer() else bound
            high = value if high is None else min(high, value)
    return low, high


def _min_len(pre: Preconditions, index: int) -> int:
    return max([r.param[0] for r in pre.rules if r.arg == index and r.kind == "len_min"] or [0])


def boundary_inputs(pre: Preconditions, seeds: list[Seed], limit: int) -> list[tuple[Seed, tuple[Any, ...]]]:
    """Inputs at the edges the rules allow, from each original of the main arity: a number at its stated least
    or greatest value, every sized argument cut to its least allowed length (together, so length relations
    hold), a string spelled from one allowed character, a list of one repeated value; those the rules reject
    left out."""
    out: list[tuple[Seed, tuple[Any, ...]]] = []
    seen: set[str] = set()
    for seed in seeds:
        if len(seed.args) != len(pre.names):
            continue
        found: list[tuple[Any, ...]] = []
        for i, value in enumerate(seed.args):
            low, high = _bounds(pre, i)
            if type(value) is int:
                found += [seed.args[:i] + (int(b),) + seed.args[i + 1:] for b in (low, high) if b is not None]
            chars = [r.param[0] for r in pre.rules if r.arg == i and r.kind == "chars"]
            if isinstance(value, str) and chars and value:
                for ch in sorted(chars[0])[:4]:
                    found.append(seed.args[:i] + (ch * len(value),) + seed.args[i + 1:])
            if isinstance(value, list) and len(value) >= 2:
                found.append(seed.args[:i] + ([value[-1]] * len(value),) + seed.args[i + 1:])
        sized = [i for i, v in enumerate(seed.args) if isinstance(v, str | list | tuple)]
        if sized:
            base = min(len(seed.args[i]) - _min_len(pre, i) for i in sized)
            for drop in sorted({base, base - 1, base - 2} & set(range(1, base + 1)), reverse=True):
                args = list(seed.args)
                for i in sized:  # the same number of items off each end: length relations still hold
                    args[i] = seed.args[i][: len(seed.args[i]) - drop]
                found.append(tuple(args))
        for args in found:
            key = repr(args)
            if key not in seen and args != seed.args and pre.violation(args) is None:
                seen.add(key)
                out.append((seed, args))
    return out[:limit]
