"""Inputs at the edges a problem's preconditions allow: where wrong programs most often fail and correct ones
still have a stated answer (the boundary inputs an amplified suite tries first)."""

from __future__ import annotations

from typing import Any

from execugraph.amplify.preconditions import Preconditions, length_cap
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


def _caps(pre: Preconditions, index: int, args: tuple[Any, ...]) -> list[int]:
    """A count at its stated cap, another argument's length (`1 <= k <= len(arr)`), and one below it."""
    out = []
    for rule in pre.rules:
        cap = length_cap(rule, args) if rule.arg == index and rule.kind == "len_cap" else None
        if cap is not None:
            out += [cap, cap - 1]
    return out


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
            if type(value) is int:  # each stated edge, then one step inside it (where off-by-one mistakes part)
                edges = [int(b) for b in (low, high) if b is not None and float(b).is_integer()]
                edges += [int(low) + 1] if low is not None and float(low).is_integer() else []
                edges += [int(high) - 1] if high is not None and float(high).is_integer() else []
                edges += _caps(pre, i, seed.args)
                found += [seed.args[:i] + (b,) + seed.args[i + 1:] for b in edges]
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


def sign_inputs(seeds: list[Seed], limit: int) -> list[tuple[Seed, tuple[Any, ...]]]:
    """Each original with one integer argument negated or made zero, with all of them negated, zero or tied (each
    equal to the first), and with a list argument's integers negated (all, then every other one) or one of its items
    repeated in place: the signs, ties and repeats wrong programs most often mishandle, tried early so that the cap
    on kept inputs does not leave them out (the contracts and rules still drop those the problem excludes)."""
    out: list[tuple[Seed, tuple[Any, ...]]] = []
    for seed in seeds:
        args = seed.args
        ints = [i for i, v in enumerate(args) if type(v) is int]
        for i in ints:
            out += [(seed, args[:i] + (v,) + args[i + 1:]) for v in (-args[i], 0) if args[i]]
        if len(ints) >= 2:
            for value in ({i: -args[i] for i in ints}, {i: 0 for i in ints}, {i: args[ints[0]] for i in ints}):
                out.append((seed, tuple(value.get(i, v) for i, v in enumerate(args))))
        for i, value in enumerate(args):
            if isinstance(value, list) and any(type(v) is int and v for v in value):
                for step in (1, 2):
                    flipped = [-v if type(v) is int and k % step == 0 else v for k, v in enumerate(value)]
                    out.append((seed, args[:i] + (flipped,) + args[i + 1:]))
            if isinstance(value, list) and len(value) >= 2:
                middle = len(value) // 2
                out.append((seed, args[:i] + (value[:middle] + value[middle - 1:],) + args[i + 1:]))
    return out[:limit]
