"""Check a value against a TypedDict at run time: every key declared, required keys present, values of their type.

Covers what the step-output and event types use: TypedDicts (nested), Literal, unions (`X | None`),
list[X], dict[K, V], Mapping, Any and the plain classes. Returns the problems found as sentences.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping
from typing import Any, Literal, NotRequired, Required, Union, get_args, get_origin, get_type_hints


def _is_typeddict(tp: Any) -> bool:
    return isinstance(tp, type) and typing.is_typeddict(tp)


def problems(value: Any, tp: Any, where: str = "value", *, partial: bool = False) -> list[str]:
    """Why `value` is not a `tp` ([] when it is). `partial`: required keys may be missing (a step that raised)."""
    origin = get_origin(tp)
    if origin in (NotRequired, Required):
        return problems(value, get_args(tp)[0], where)
    if tp is Any:
        return []
    if _is_typeddict(tp):
        if not isinstance(value, Mapping):
            return [f"{where} is {type(value).__name__}, not a {tp.__name__} mapping"]
        hints = get_type_hints(tp)
        found = [f"{where} has undeclared key {key!r} ({tp.__name__})" for key in value if key not in hints]
        if not partial:
            found += [f"{where} lacks required key {key!r} ({tp.__name__})"
                      for key in sorted(tp.__required_keys__) if key not in value]
        for key, item in value.items():
            if key in hints:
                found += problems(item, hints[key], f"{where}[{key!r}]")
        return found
    if origin is Literal:
        return [] if value in get_args(tp) else [f"{where} is {value!r}, not one of {get_args(tp)}"]
    if origin in (Union, types.UnionType):
        options = [problems(value, option, where) for option in get_args(tp)]
        return [] if any(not o for o in options) else [f"{where} ({value!r}) matches none of {tp}"]
    if origin in (list, tuple):
        if not isinstance(value, list | tuple):
            return [f"{where} is {type(value).__name__}, not a list"]
        (item_type, *_) = get_args(tp) or (Any,)
        return [p for i, item in enumerate(value) for p in problems(item, item_type, f"{where}[{i}]")]
    if origin in (dict, Mapping) or tp in (dict, Mapping):
        return [] if isinstance(value, Mapping) else [f"{where} is {type(value).__name__}, not a mapping"]
    if tp is type(None):
        return [] if value is None else [f"{where} is {value!r}, not None"]
    if tp is float:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        return [] if ok else [f"{where} is {type(value).__name__}, not float"]
    if tp is int and isinstance(value, bool):
        return [f"{where} is a bool, not int"]
    if isinstance(tp, type):
        return [] if isinstance(value, tp) else [f"{where} is {type(value).__name__}, not {tp.__name__}"]
    raise TypeError(f"the checker does not know {tp!r} (at {where})")
