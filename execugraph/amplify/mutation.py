"""Type-aware mutation of existing test inputs (EvalPlus-style), deterministic from a seed.

Why: the inputs a benchmark's authors wrote are where its problems' interesting values
live; small, typed changes to them (a boundary, a sign, an empty or duplicated list)
reach the edge cases hand-written tests miss. Every candidate is listed in a fixed order
and then sampled with a `random.Random` seeded by (seed, problem), so the same seed gives
the same inputs on every machine.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from execugraph.amplify.templates import Seed, is_literal_data

LONG = 40  # "long" collections are about this many elements
LARGE = 10**6
MAX_STR = 200
FIRST_TIER = 8  # per value, mutations tried before the others


def _number(value: int | float) -> list[Any]:
    if isinstance(value, float):
        return [0.0, -value, value + 1.0, value - 1.0, value / 2, value * 10, 1e-9, float(LARGE), -float(LARGE)]
    return [0, 1, -1, value + 1, value - 1, -value, value * 2, LARGE, -LARGE, 2**31 - 1]


def _string(value: str) -> list[Any]:
    out = ["", " ", value + value, value[::-1], f" {value} ", value.upper(), value.lower(), value[:1],
           (value * 3)[:MAX_STR], "é" + value, value + "\u00a0", value.replace("a", "ä") if "a" in value else value + "ü"]
    if len(value) > 1:
        out += [value[1:], value[:-1]]
    return out


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
    ints = [v for v in items if type(v) is int]
    if ints and len(ints) == len(items) and 1 < max(ints) - min(ints) + 1 <= LONG:
        sweep = list(range(min(ints), max(ints) + 1))
        if sweep != items:
            out.append(sweep)
    return out


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
    """Mutations of `args`: each argument's first FIRST_TIER (the structural ones: boundaries, empty,
    duplicates, order) before the rest, each tier shuffled by `rng`."""
    first: list[tuple[Any, ...]] = []
    rest: list[tuple[Any, ...]] = []
    for index, value in enumerate(args):
        for rank, changed in enumerate(mutate_value(value)):
            (first if rank < FIRST_TIER else rest).append(args[:index] + (changed,) + args[index + 1 :])
    rng.shuffle(first)
    rng.shuffle(rest)
    return first + rest


def mutated_inputs(seeds: list[Seed], rng: random.Random, limit: int) -> list[tuple[Seed, tuple[Any, ...]]]:
    """Up to `limit` (seed, mutated args) pairs, drawn by `rng` from every seed's mutations, spread over seeds."""
    pools = []
    for seed in seeds:
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
