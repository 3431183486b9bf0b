"""Type-aware mutation of existing test inputs (EvalPlus-style), deterministic from a seed.

Why: the inputs a benchmark's authors wrote are where its problems' interesting values
live; small, typed changes to them (a boundary, a sign, an empty or duplicated list)
reach the edge cases hand-written tests miss. Every candidate is listed in a fixed order
and then sampled with a `random.Random` seeded by (seed, problem), so the same seed gives
the same inputs on every machine.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from typing import Any

from execugraph.amplify.templates import Seed, is_literal_data

LONG = 40  # "long" collections are about this many elements
LARGE = 10**6
MAX_STR = 200
FIRST_TIER = 8  # per value, mutations tried before the others
PAIRED = 3  # a boundary of one argument is also tried with the first PAIRED mutations of each other argument
_NUMERIC = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)")


def _number(value: int | float) -> list[Any]:
    if isinstance(value, float):
        return [0.0, -value, value + 1.0, value - 1.0, value / 2, value * 10, 1e-9, float(LARGE), -float(LARGE)]
    return [0, 1, -1, value + 1, value - 1, -value, value * 2, LARGE, -LARGE, 2**31 - 1]


def _string(value: str) -> list[Any]:
    out = _numeric_string(value) if _NUMERIC.fullmatch(value) else []
    out += ["", value[1:], value + value, value[::-1]]
    if " " in value:  # word-splitting code: runs of spaces inside and at the end (split() vs split(" "), a last run)
        out += [value.replace(" ", "  "), value.rstrip(" ") + "   "]
    out += [f" {value} ", value[:-1], " ", value[:1], value.upper(), value.lower(), (value * 3)[:MAX_STR],
            "é" + value, value + "\u00a0", value.replace("a", "ä") if "a" in value else value + "ü"]
    return out


def _numeric_string(value: str) -> list[str]:
    """A number spelled as a string is mutated as a number, spelled back with as many decimals: its fractional part
    alone (0.5 for '14.5': rounding code between 0 and 1), sign, +-1, zero."""
    number = float(value)
    if "." not in value:
        return [str(v) for v in _number(int(number))]
    decimals = len(value.split(".", 1)[1])
    whole = int(number)
    fraction = number - whole
    spelled = [f"{v:.{decimals}f}" for v in (fraction, -fraction, 0.0, -number, number + 1, number - 1, number * 10)]
    return [v for v in spelled if v != value]


def _sequence(value: list | tuple) -> list[Any]:
    items = list(value)
    out: list[list[Any]] = [[], items[:1], items + items, items[::-1], *_shaped(items), items[:-1], items[1:]]
    try:
        out.append(sorted(items))
        out.append(sorted(items, reverse=True))
    except TypeError:
        pass
    if items:
        out.append([items[0]] * len(items))  # all duplicates
        out.append((items * (LONG // max(1, len(items)) + 1))[:LONG])  # long
        for index in (0, len(items) // 2, len(items) - 1):
            for changed in mutate_value(items[index]):
                out.append(items[:index] + [changed] + items[index + 1 :])
        out.append([items])  # nested one level deeper
    return [tuple(v) for v in out] if isinstance(value, tuple) else out


def _shaped(items: list[Any]) -> list[list[Any]]:
    """Inputs whose survivors the distinguishability search found: a palindrome and one that breaks only
    inside (an inner pair differs, the outer matches), and every small int between the smallest and
    largest seen (a lookup table's keys, all covered at once)."""
    out: list[list[Any]] = []
    if len(items) >= 2:
        out.append(items + items[::-1])
        inner = mutate_value(items[1])
        if inner:
            out.append(items[:1] + [items[1]] + [inner[0]] + items[:1])
        out.append([items[1], items[0], *items[2:]])  # out of order only at the start (a loop from index 2)
    numbers = [v for v in items if type(v) in (int, float)]
    if numbers and len(numbers) == len(items):
        out += _sweep(numbers)
    return out


def _sweep(numbers: list[int | float]) -> list[list[Any]]:
    """Values between those seen: every small int from the least to the greatest (a lookup table's keys), or for
    floats each midpoint of two neighbouring values (each interval of a threshold table)."""
    if all(type(v) is int for v in numbers):
        if 1 < max(numbers) - min(numbers) + 1 <= LONG:
            sweep = list(range(int(min(numbers)), int(max(numbers)) + 1))
            return [sweep] if sweep != numbers else []
        return []
    ordered = sorted(set(numbers))
    mids = [round((a + b) / 2, 6) for a, b in zip(ordered, ordered[1:], strict=False)]
    return [mids] if mids else []


def _mapping(value: dict) -> list[Any]:
    items = list(value.items())
    out: list[dict] = [{}, dict(items[:1]), dict(items[::-1])]
    if items:
        key, first = items[0]
        for changed in mutate_value(first):
            out.append({**value, key: changed})
        for changed in mutate_value(key):
            if is_literal_data(changed) and not isinstance(changed, list | dict):
                out.append({**{k: v for k, v in items[1:]}, changed: first})
    return out


def mutate_value(value: Any) -> list[Any]:
    """Every mutation of one value by its type, in a fixed order (the value itself excluded)."""
    if isinstance(value, bool):
        out: list[Any] = [not value]
    elif isinstance(value, int | float):
        out = _number(value)
    elif isinstance(value, str):
        out = _string(value)
    elif isinstance(value, list | tuple):
        out = _sequence(value)
    elif isinstance(value, dict):
        out = _mapping(value)
    elif value is None:
        out = []
    else:
        out = []
    return [v for v in out if not (type(v) is type(value) and v == value) and is_literal_data(v)]


def mutate_args(args: tuple[Any, ...]) -> Iterator[tuple[Any, ...]]:
    """Inputs that differ from `args` in one argument, position by position."""
    for index, value in enumerate(args):
        for changed in mutate_value(value):
            yield args[:index] + (changed,) + args[index + 1 :]


def _tiered(args: tuple[Any, ...], rng: random.Random) -> list[tuple[Any, ...]]:
    """Mutations of `args`: the arguments reordered (every value stays in the contract), then each argument's first
    FIRST_TIER (the structural ones: boundaries, empty, duplicates, order) and pairs of changes, then the rest;
    each tier but the first shuffled by `rng`."""
    first: list[tuple[Any, ...]] = []
    rest: list[tuple[Any, ...]] = []
    each = [mutate_value(value) for value in args]
    for index, found in enumerate(each):
        for rank, changed in enumerate(found):
            (first if rank < FIRST_TIER else rest).append(args[:index] + (changed,) + args[index + 1 :])
    first += _paired(args, each)
    rng.shuffle(first)
    rng.shuffle(rest)
    return _reordered(args) + first + rest


def _reordered(args: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    """Arguments of one scalar type rotated and reversed: sides of a triangle, bounds of a range (which one is
    checked against which)."""
    if len(args) < 2 or len({type(a) for a in args}) != 1 or not isinstance(args[0], int | float | str):
        return []
    out = [args[i:] + args[:i] for i in range(1, len(args))] + [args[::-1]]
    return [a for a in dict.fromkeys(out) if a != args]


def _paired(args: tuple[Any, ...], each: list[list[Any]]) -> list[tuple[Any, ...]]:
    """A number argument at its first mutation (its boundary: 0) with each of the first PAIRED shapes of a
    collection argument (a threshold of 0 on duplicated values: `<` against `<=`)."""
    out: list[tuple[Any, ...]] = []
    for i, found in enumerate(each):
        if not found or type(args[i]) not in (int, float):
            continue
        for j, other in enumerate(each):
            if not isinstance(args[j], str | list | tuple | dict):
                continue
            for changed in other[:PAIRED]:
                pair = list(args)
                pair[i], pair[j] = found[0], changed
                out.append(tuple(pair))
    return out


def mutated_inputs(seeds: list[Seed], rng: random.Random, limit: int) -> list[tuple[Seed, tuple[Any, ...]]]:
    """Up to `limit` (seed, mutated args) pairs, drawn by `rng` from every seed's mutations, spread over seeds."""
    pools = []
    unique: dict[str, Seed] = {}
    for seed in seeds:  # a seed the tests repeat gets no larger share
        unique.setdefault(repr(seed.args), seed)
    for seed in unique.values():
        pools.append([(seed, args) for args in reversed(_tiered(seed.args, rng))])  # popped from the end
    out: list[tuple[Seed, tuple[Any, ...]]] = []
    while len(out) < limit and any(pools):
        for pool in pools:
            if pool and len(out) < limit:
                out.append(pool.pop())
    return out


def problem_rng(seed: int, problem_id: str, purpose: str) -> random.Random:
    """A generator seeded by (seed, problem, purpose) only: string seeds hash the same on every run."""
    return random.Random(f"{seed}:{problem_id}:{purpose}")
