"""Inputs spelled from the statement's own values: strings of the words it lists as the valid choices, and a
formatted string's digit groups replaced by the numbers its rules name.

Why: a statement that lists its valid words ("Valid choices are 'zero', 'one', ... 'nine'") or states its rules in
numbers ("not higher than 30 days for months 4,6,9,11", "not less than 1 or higher than 12") names exactly the values
where programs part; mutation and Hypothesis rarely spell them (a new word is outside the vocabulary, a random digit
is rarely 31 or 13). Each input stays inside what the statement and the examples show: only listed words, joined by
single spaces as the examples join them; only digit groups of the examples' own widths (zero-padded, the format
unchanged: a malformed width is a question the statement may leave open). Deterministic from the problem's seed.
"""

from __future__ import annotations

import random
import re
from typing import Any

from execugraph.amplify.templates import Seed

_QUOTED_WORD = re.compile(r"""(?<!\w)['"]([A-Za-z]+)['"](?!\w)""")
_STATED_INT = re.compile(r"(?<![\d.\w])\d{1,4}(?!\d)")
_DIGITS = re.compile(r"\d+")
_SPAN = re.compile(r"between\s+(-?\d+)\s+and\s+(-?\d+)")
SPAN_MAX = 12  # the widest stated span spelled out whole as one list
WORDS_MIN = 3  # quoted words the statement must list before they are its vocabulary
GROUPS_MIN = 2  # digit groups an original string must hold to show a format
FORMAT_SHARE = 0.6  # ... and the share of the originals that must show one


def listed_words(statement: str) -> list[str]:
    """The single words the statement quotes, in its order, once each."""
    return list(dict.fromkeys(_QUOTED_WORD.findall(statement)))


def word_inputs(statement: str, seeds: list[Seed], rng: random.Random,
                limit: int) -> list[tuple[Seed, tuple[Any, ...]]]:
    """Strings of the listed words (repeats allowed, single spaces) in each string argument made of them only."""
    words = listed_words(statement)
    if len(words) < WORDS_MIN or not seeds:
        return []
    positions = [i for i in range(len(seeds[0].args))  # every original (an empty one aside) made of the words
                 if all(len(s.args) > i and isinstance(s.args[i], str)
                        and all(w in words for w in s.args[i].split(" ") if s.args[i]) for s in seeds)
                 and any(s.args[i] for s in seeds)]
    out: list[tuple[Seed, tuple[Any, ...]]] = []
    for n in range(limit):
        seed = seeds[n % len(seeds)]
        for i in positions:
            size = 1 + n % (2 * len(words))  # short and long, repeats certain once longer than the list
            text = " ".join(rng.choice(words) for _ in range(size))
            out.append((seed, seed.args[:i] + (text,) + seed.args[i + 1:]))
    return out[:limit]


def stated_numbers(statement: str) -> list[int]:
    """The whole numbers the statement names (up to 4 digits), each with its neighbours, ascending."""
    named = {int(m) for m in _STATED_INT.findall(statement)}
    return sorted({v + d for v in named for d in (-1, 0, 1) if v + d >= 0})


def keyed_bounds(statement: str) -> list[tuple[int, int]]:
    """(key, bound) pairs a sentence states: in a sentence naming three or more numbers, each number above 1 but
    its largest is a key, and the largest (and one past it) a bound for it ("not higher than 30 days for months
    4,6,9,11": months 4, 6, 9 and 11 with days 30 and 31)."""
    out: list[tuple[int, int]] = []
    for sentence in re.split(r"(?<=[.!?;])\s+|\n", statement):
        named = list(dict.fromkeys(int(m) for m in _STATED_INT.findall(sentence)))
        if len(named) >= 3:
            bound = max(named)
            out += [(key, b) for key in named if 1 < key < bound for b in (bound, bound + 1)]
    return out


def _fill(text: str, spans: list[tuple[int, int]], values: dict[int, int]) -> str:
    out, last = [], 0
    for k, (lo, hi) in enumerate(spans):
        out.append(text[last:lo])
        out.append(f"{values[k]:0{hi - lo}d}" if k in values else text[lo:hi])
        last = hi
    return "".join(out) + text[last:]


def number_inputs(statement: str, seeds: list[Seed], rng: random.Random,
                  limit: int) -> list[tuple[Seed, tuple[Any, ...]]]:
    """Each formatted string argument (every original holds `GROUPS_MIN` digit groups) with one or two of its digit
    groups replaced by numbers the statement names, at the group's own width; shuffled, up to `limit`."""
    numbers = stated_numbers(statement)
    if not numbers or not seeds:
        return []
    positions = [i for i in range(len(seeds[0].args))  # most originals show a format with digit groups
                 if all(len(s.args) > i and isinstance(s.args[i], str) for s in seeds)
                 and sum(len(_DIGITS.findall(s.args[i])) >= GROUPS_MIN for s in seeds) >= FORMAT_SHARE * len(seeds)]
    zero = 0 in {int(m) for m in _STATED_INT.findall(statement)} or any(  # a zero group only where one is shown
        int(g) == 0 for s in seeds for i in positions for g in _DIGITS.findall(s.args[i]))
    numbers = [v for v in numbers if v or zero]
    widths = {len(m) for m in _STATED_INT.findall(statement)}  # a group is the statement's business at its widths
    singles: list[tuple[Seed, tuple[Any, ...]]] = []
    pairs: list[tuple[Seed, tuple[Any, ...]]] = []
    keyed: list[tuple[Seed, tuple[Any, ...]]] = []  # a key, then its bound, in neighbouring groups: first
    bounds = keyed_bounds(statement)
    for seed in seeds:
        for i in positions:
            text = seed.args[i]
            if len(_DIGITS.findall(text)) < GROUPS_MIN:
                continue
            spans = [m.span() for m in _DIGITS.finditer(text)]
            fits = [[v for v in numbers if len(str(v)) <= hi - lo] if hi - lo in widths else [] for lo, hi in spans]
            for k, values in enumerate(fits):
                singles += [(seed, seed.args[:i] + (_fill(text, spans, {k: v}),) + seed.args[i + 1:]) for v in values]
            for a in range(len(spans) - 1):
                for x, y in bounds:
                    keyed += [(seed, seed.args[:i] + (_fill(text, spans, {a: u, a + 1: v}),) + seed.args[i + 1:])
                              for u, v in ((x, y),) if u in fits[a] and v in fits[a + 1]]
            for a in range(len(spans)):
                for b in range(a + 1, len(spans)):
                    for va in fits[a]:
                        pairs += [(seed, seed.args[:i] + (_fill(text, spans, {a: va, b: vb}),) + seed.args[i + 1:])
                                  for vb in fits[b]]
    for found in (keyed, singles, pairs):
        rng.shuffle(found)
    mixed = [x for pair in zip(pairs, singles, strict=False) for x in pair]
    longer = pairs if len(pairs) > len(singles) else singles
    return (keyed[: limit // 2] + mixed + longer[min(len(pairs), len(singles)):])[:limit]


def span_inputs(statement: str, seeds: list[Seed]) -> list[tuple[Seed, tuple[Any, ...]]]:
    """Each list-of-integers argument replaced by every value of a small span the statement names ("the integers
    that are between 1 and 9"), descending then ascending: a program that mishandles one value of the span
    (a wrong name for 7) fails there, while few random lists hold every value."""
    spans = [(int(a), int(b)) for a, b in _SPAN.findall(statement) if 1 <= int(b) - int(a) <= SPAN_MAX]
    out: list[tuple[Seed, tuple[Any, ...]]] = []
    for seed in seeds[:1]:
        for i, value in enumerate(seed.args):
            if not (isinstance(value, list) and value and all(type(v) is int for v in value)):
                continue
            for low, high in spans:
                whole = list(range(low, high + 1))
                out += [(seed, seed.args[:i] + (list(reversed(whole)),) + seed.args[i + 1:]),
                        (seed, seed.args[:i] + (whole,) + seed.args[i + 1:])]
    return out
