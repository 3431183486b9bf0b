"""Plain-data codec for values that cross the sandbox boundary.

Results leave the candidate's process as tagged JSON built only from builtin
types, and are rebuilt outside it into fresh builtin objects. Anything else
(an object whose `__eq__` always says True, a generator, a custom class)
becomes an `Opaque` placeholder that equals nothing, so comparisons made on
the decoded value cannot be steered by candidate code. Builtin subclasses are
read through the base type's own slots, ignoring overridden methods.
"""

from __future__ import annotations

import base64
import collections
import decimal
import fractions
from typing import Any

MAX_DEPTH = 200
MAX_NODES = 5_000_000
BIG_INT_BITS = 12_000  # above this, ints travel as hex (no int/str digit limit applies)
REPR_LIMIT = 200


class CodecError(ValueError):
    """Data that does not decode as this codec's output."""


class Opaque:
    """Stand-in for a value that is not plain data; it equals nothing but itself."""

    __slots__ = ("type_name", "text")

    def __init__(self, type_name: str, text: str) -> None:
        self.type_name = type_name
        self.text = text

    def __eq__(self, other: object) -> bool:
        return self is other

    def __ne__(self, other: object) -> bool:
        return self is not other

    def __hash__(self) -> int:
        return id(self)

    def __repr__(self) -> str:
        return f"<{self.type_name}: {self.text}>" if self.text else f"<{self.type_name}>"


def _safe_repr(value: Any) -> str:
    try:
        text = repr(value)
    except BaseException:  # noqa: BLE001 - candidate __repr__ may raise anything
        return ""
    if not issubclass(type(text), str):
        return ""
    text = str.__str__(text)
    return text if len(text) <= REPR_LIMIT else text[:REPR_LIMIT] + "..."


def _opaque(value: Any, why: str = "") -> dict[str, list[str]]:
    try:
        type_name = type.__getattribute__(type(value), "__name__")
    except BaseException:  # noqa: BLE001
        type_name = "object"
    if type(type_name) is not str:
        type_name = "object"
    return {"$u": [why or f"unserialisable {type_name}", _safe_repr(value)]}


class _Encoder:
    def __init__(self) -> None:
        self.nodes = 0
        self.path: set[int] = set()

    def encode(self, value: Any, depth: int) -> Any:
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise CodecError(f"result has more than {MAX_NODES} parts")
        t = type(value)
        if value is None or t is bool or t is str:
            return value
        if t is int:
            return value if value.bit_length() <= BIG_INT_BITS else {"$i": hex(value)}
        if t is float:
            return value
        if issubclass(t, int):
            return self.encode(int.__index__(value), depth)
        if issubclass(t, float):
            return float.__float__(value)
        if issubclass(t, str):
            return str.__str__(value)
        if t is complex:
            return {"$c": [value.real, value.imag]}
        if t is decimal.Decimal or t is fractions.Fraction:
            try:
                return float(value)
            except (OverflowError, ValueError):
                return _opaque(value)
        if issubclass(t, bytes | bytearray):
            raw = bytes.__bytes__(value) if issubclass(t, bytes) else bytes(memoryview(value))
            return {"$b": base64.b64encode(raw).decode("ascii")}
        if depth >= MAX_DEPTH:
            return _opaque(value, f"nested deeper than {MAX_DEPTH}")
        ident = id(value)
        if ident in self.path:
            return _opaque(value, "self-referencing container")
        if issubclass(t, list | collections.deque | tuple | set | frozenset | dict):
            self.path.add(ident)
            try:
                return self._container(t, value, depth + 1)
            finally:
                self.path.discard(ident)
        return _opaque(value)

    def _container(self, t: type, value: Any, depth: int) -> Any:
        if issubclass(t, dict):
            items = list(dict.items(value))
            return {"$d": [[self.encode(k, depth), self.encode(v, depth)] for k, v in items]}
        if issubclass(t, list):
            return [self.encode(v, depth) for v in list.__iter__(value)]
        if issubclass(t, collections.deque):
            return [self.encode(v, depth) for v in collections.deque.__iter__(value)]
        if issubclass(t, tuple):
            return {"$t": [self.encode(v, depth) for v in tuple.__iter__(value)]}
        if issubclass(t, frozenset):
            return {"$fs": [self.encode(v, depth) for v in frozenset.__iter__(value)]}
        return {"$s": [self.encode(v, depth) for v in set.__iter__(value)]}


def encode(value: Any) -> Any:
    """JSON-able form of `value`; raises CodecError only when it is absurdly large."""
    return _Encoder().encode(value, 0)


def _decode(data: Any, depth: int) -> Any:
    if depth > MAX_DEPTH + 2:
        raise CodecError("nested too deeply")
    t = type(data)
    if data is None or t is bool or t is int or t is float or t is str:
        return data
    if t is list:
        return [_decode(v, depth + 1) for v in data]
    if t is not dict or len(data) != 1:
        raise CodecError(f"unexpected {t.__name__} in encoded value")
    ((tag, payload),) = data.items()
    try:
        if tag == "$t":
            return tuple(_decode(v, depth + 1) for v in _list(payload))
        if tag == "$s":
            return {_decode(v, depth + 1) for v in _list(payload)}
        if tag == "$fs":
            return frozenset(_decode(v, depth + 1) for v in _list(payload))
        if tag == "$d":
            out = {}
            for pair in _list(payload):
                if type(pair) is not list or len(pair) != 2:
                    raise CodecError("dict entries must be [key, value] pairs")
                out[_decode(pair[0], depth + 1)] = _decode(pair[1], depth + 1)
            return out
        if tag == "$b":
            return base64.b64decode(_str(payload), validate=True)
        if tag == "$c":
            re_, im = _list(payload)
            return complex(float(re_), float(im))
        if tag == "$i":
            return int(_str(payload), 16)
        if tag == "$u":
            why, text = _list(payload)
            return Opaque(_str(why), _str(text))
    except CodecError:
        raise
    except (TypeError, ValueError) as exc:
        raise CodecError(f"bad {tag} payload: {exc}") from None
    raise CodecError(f"unknown tag {tag!r}")


def _list(payload: Any) -> list[Any]:
    if type(payload) is not list:
        raise CodecError("expected a list payload")
    return payload


def _str(payload: Any) -> str:
    if type(payload) is not str:
        raise CodecError("expected a string payload")
    return payload


def decode(data: Any) -> Any:
    """Fresh builtin objects from encode()'s output; raises CodecError on anything else."""
    try:
        return _decode(data, 0)
    except RecursionError:
        raise CodecError("nested too deeply") from None
