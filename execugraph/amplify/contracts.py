"""Cheap preconditions implied by a problem's existing inputs, and the shape new inputs are drawn from.

Why: an input outside a problem's contract (a negative amount, an empty list the statement
rules out) can make a correct program "fail" against the reference's answer. We cannot read
the statement, but the originals say a lot cheaply: when every original value of an argument
is non-negative, non-empty, sorted or spelled from a few characters, new inputs must be too.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

SMALL_ALPHABET = 8  # strings spelled from at most this many distinct characters keep to them
INGREDIENTS = 30  # original ints kept as ingredients for new inputs (EvalPlus reuses them too)
FLAG_VALUES, FLAG_SEEN = 2, 6  # ints seen at least 6 times with at most 2 values (grid cells 0/1) keep to them


def kind_of(value: Any) -> str:
    """The type name used for shapes (bool is not an int here)."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "bool"
    return type(value).__name__


@dataclass
class Shape:
    """What the original values of one argument (or of the elements inside it) have in common."""

    kinds: set[str] = field(default_factory=set)
    low: float | None = None
    high: float | None = None
    always_nonempty: bool = True
    always_sorted: bool = True
    chars: set[str] = field(default_factory=set)
    max_len: int = 0
    lengths: set[int] = field(default_factory=set)
    element: Shape | None = None
    key: Shape | None = None
    value: Shape | None = None
    positions: list[Shape] = field(default_factory=list)  # tuples of one fixed length: per position
    ints: Counter = field(default_factory=Counter)  # int value -> times seen (the first INGREDIENTS values)
    seen: int = 0
    saw_rows: bool = False  # some value was a list of two or more lists
    always_rectangular: bool = True  # ...and in every such value the inner lists had one length

    def add(self, value: Any) -> None:
        """Widen the shape by one observed value."""
        kind = kind_of(value)
        self.kinds.add(kind)
        self.seen += 1
        if kind == "int" and (value in self.ints or len(self.ints) < INGREDIENTS):
            self.ints[value] += 1
        if kind in ("int", "float"):
            self.low = value if self.low is None else min(self.low, value)
            self.high = value if self.high is None else max(self.high, value)
        if kind in ("str", "list", "tuple", "dict"):
            self.always_nonempty &= len(value) > 0
            self.max_len = max(self.max_len, len(value))
            self.lengths.add(len(value))
        if kind == "str":
            self.chars |= set(value)
        if kind in ("list", "tuple"):
            try:
                self.always_sorted &= list(value) == sorted(value)
            except TypeError:
                self.always_sorted = False
            rows = [len(item) for item in value if isinstance(item, list | tuple)]
            if len(rows) >= 2 and len(rows) == len(value):
                self.saw_rows = True
                self.always_rectangular &= len(set(rows)) == 1
            for item in value:
                self.element = self.element or Shape()
                self.element.add(item)
            if kind == "tuple":
                self._add_positions(value)
        if kind == "dict":
            for k, v in value.items():
                self.key = self.key or Shape()
                self.value = self.value or Shape()
                self.key.add(k)
                self.value.add(v)

    def _add_positions(self, value: tuple) -> None:
        if not self.positions and len(self.lengths) == 1:
            self.positions = [Shape() for _ in value]
        if len(self.lengths) == 1 and len(self.positions) == len(value):
            for shape, item in zip(self.positions, value, strict=True):
                shape.add(item)
        else:
            self.positions = []

    @property
    def flags(self) -> list[int] | None:
        """The few values ints keep to, when many originals use only those (e.g. 0/1 cells)."""
        if self.kinds == {"int"} and self.seen >= FLAG_SEEN and len(self.ints) <= FLAG_VALUES:
            return sorted(self.ints)
        return None

    @property
    def rectangular(self) -> bool:
        """Whether values are grids: lists of equally long lists in every original that has rows."""
        return self.saw_rows and self.always_rectangular

    @property
    def small_alphabet(self) -> set[str] | None:
        """The characters strings must keep to, when the originals use only a few."""
        return set(self.chars) if self.chars and len(self.chars) <= SMALL_ALPHABET else None

    def violation(self, value: Any) -> str | None:
        """Why `value` breaks the contract the originals imply, or None when it keeps it."""
        kind = kind_of(value)
        allowed = set(self.kinds) | ({"int"} if "float" in self.kinds else set())
        if kind not in allowed:
            return f"type {kind} where the originals have {'/'.join(sorted(self.kinds))}"
        if kind == "int" and self.flags is not None and value not in self.flags:
            return f"outside {self.flags} (every original is)"
        if kind in ("int", "float") and self.low is not None:
            if self.low >= 1 and value < 1:
                return "not positive (every original is)"
            if self.low >= 0 and value < 0:
                return "negative (no original is)"
        if kind in ("str", "list", "tuple", "dict") and self.always_nonempty and len(value) == 0:
            return "empty (no original is)"
        if kind == "str" and self.small_alphabet is not None and not set(value) <= self.small_alphabet:
            return f"characters outside {''.join(sorted(self.small_alphabet))!r}"
        if kind in ("list", "tuple"):
            if self.always_sorted and self.max_len > 1 and _unsorted(value):
                return "unsorted (every original is sorted)"
            if self.rectangular and len({len(v) for v in value if isinstance(v, list | tuple)}) > 1:
                return "ragged rows (every original is rectangular)"
            if kind == "tuple" and self.positions:
                if len(value) != len(self.positions):
                    return f"a tuple of {len(value)} where the originals have {len(self.positions)}"
                for shape, item in zip(self.positions, value, strict=True):
                    why = shape.violation(item)
                    if why:
                        return why
                return None
            for item in value:
                why = self.element.violation(item) if self.element else None
                if why:
                    return f"element {why}"
        if kind == "dict":
            for k, v in value.items():
                why = (self.key.violation(k) if self.key else None) or (self.value.violation(v) if self.value else None)
                if why:
                    return f"entry {why}"
        return None


def _unsorted(value: Any) -> bool:
    try:
        return list(value) != sorted(value)
    except TypeError:
        return True


def arg_shapes(args_list: list[tuple[Any, ...]]) -> list[Shape]:
    """One shape per argument position over inputs of one arity."""
    if not args_list:
        return []
    shapes = [Shape() for _ in args_list[0]]
    for args in args_list:
        for shape, value in zip(shapes, args, strict=True):
            shape.add(value)
    return shapes


def violation(shapes: list[Shape], args: tuple[Any, ...]) -> str | None:
    """Why `args` breaks the contract of `shapes`, naming the argument, or None."""
    if len(shapes) != len(args):
        return f"{len(args)} arguments where the originals have {len(shapes)}"
    for index, (shape, value) in enumerate(zip(shapes, args, strict=True)):
        why = shape.violation(value)
        if why:
            return f"argument {index + 1}: {why}"
    return None
