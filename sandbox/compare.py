"""Comparison of a decoded result with a suite's JSON expected value, outside the candidate.

The result is first projected the way JSON would store it (tuples become
lists, non-string dict keys become their JSON spelling), since expected values
come from JSON; then compared exactly, with a float tolerance, as an
unordered list (multiset), or as a set.
"""

from __future__ import annotations

import json
import math
from typing import Any

from sandbox.codec import Opaque


def _json_key(key: Any) -> Any:
    if isinstance(key, str):
        return key
    if key is True:
        return "true"
    if key is False:
        return "false"
    if key is None:
        return "null"
    if isinstance(key, int):
        return str(key)
    if isinstance(key, float):
        return json.dumps(key)
    return key


def project(value: Any) -> Any:
    """The JSON view of a decoded value: lists for tuples/lists, string keys where JSON would have them."""
    if isinstance(value, list | tuple):
        return [project(v) for v in value]
    if isinstance(value, dict):
        return {_json_key(k): project(v) for k, v in value.items()}
    if isinstance(value, set | frozenset):
        return {_hashable(project(v)) for v in value}
    return value


def _hashable(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_hashable(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted(((k, _hashable(v)) for k, v in value.items()), key=repr))
    if isinstance(value, set):
        return frozenset(value)
    return value


def _canonical(value: Any) -> str:
    """A string that is equal for equal JSON values, used to compare without an order."""
    if isinstance(value, Opaque):
        return f"opaque:{id(value)}"
    if isinstance(value, set | frozenset):
        return "set:" + json.dumps(sorted(_canonical(v) for v in value))
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, int | float):
        # 1 and 1.0 are equal in Python; keep them equal here too.
        if isinstance(value, float) and value.is_integer():
            return json.dumps(int(value))
        return json.dumps(value)
    if isinstance(value, list | tuple):
        return "[" + ",".join(_canonical(v) for v in value) + "]"
    if isinstance(value, dict):
        items = sorted((_canonical(k), _canonical(v)) for k, v in value.items())
        return "{" + ",".join(f"{k}:{v}" for k, v in items) + "}"
    return f"{type(value).__name__}:{value!r}"


def _close(got: Any, expected: Any, tol: float) -> bool:
    if isinstance(got, bool) or isinstance(expected, bool):
        return type(got) is type(expected) and got == expected
    if isinstance(got, int | float) and isinstance(expected, int | float):
        if math.isnan(got) or math.isnan(expected):
            return math.isnan(got) and math.isnan(expected)
        if got == expected:
            return True
        return math.isclose(got, expected, rel_tol=tol, abs_tol=tol)
    if isinstance(got, list) and isinstance(expected, list):
        return len(got) == len(expected) and all(_close(g, e, tol) for g, e in zip(got, expected, strict=True))
    if isinstance(got, dict) and isinstance(expected, dict):
        return got.keys() == expected.keys() and all(_close(got[k], expected[k], tol) for k in got)
    return got == expected


def compare(got: Any, expected: Any, mode: str = "exact", tol: float = 1e-6) -> bool:
    """True when the decoded result `got` matches the suite's `expected` under `mode`."""
    value = project(got)
    want = project(expected)
    if mode == "exact":
        return bool(value == want)
    if mode == "float":
        return _close(value, want, tol)
    if mode in ("unordered", "set"):
        if not isinstance(want, list | set) or not isinstance(value, list | set):
            return False
        got_keys = [_canonical(v) for v in value]
        want_keys = [_canonical(v) for v in want]
        if mode == "set":
            return set(got_keys) == set(want_keys)
        return sorted(got_keys) == sorted(want_keys)
    raise ValueError(f"unknown compare mode {mode!r}")
