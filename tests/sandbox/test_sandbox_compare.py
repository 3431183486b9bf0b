"""Comparison of decoded results with JSON expected values, in each mode."""

from __future__ import annotations

import math

import pytest

from sandbox.codec import Opaque
from sandbox.compare import compare, project


def test_projection_is_the_json_view():
    assert project((1, [2, (3,)])) == [1, [2, [3]]]
    assert project({1: "a", None: "c", 2.5: "d"}) == {"1": "a", "null": "c", "2.5": "d"}
    assert project({False: [(1,)]}) == {"false": [[1]]}


@pytest.mark.parametrize(
    ("got", "expected", "mode", "ok"),
    [
        ((1, 2), [1, 2], "exact", True),
        ([1, 2], [2, 1], "exact", False),
        (None, None, "exact", True),
        (3, 3.0, "exact", True),
        ({"a": (1,)}, {"a": [1]}, "exact", True),
        (0.1 + 0.2, 0.3, "exact", False),
        (0.1 + 0.2, 0.3, "float", True),
        ([1.0000001, [2.0]], [1, [2]], "float", True),
        ([1.1], [1], "float", False),
        (math.nan, math.nan, "float", True),
        (math.inf, math.inf, "float", True),
        (True, 1, "float", False),
        ({"x": 0.5000000001}, {"x": 0.5}, "float", True),
        ([[2, 1], [1, 2]], [[1, 2], [2, 1]], "unordered", True),
        ([1, 1, 2], [1, 2, 2], "unordered", False),
        ([1, 2.0], [2, 1], "unordered", True),
        ({3, 1}, [1, 3, 3], "set", True),
        ([1, 2], [1, 2, 4], "set", False),
        ("ab", ["a", "b"], "unordered", False),
    ],
)
def test_modes(got, expected, mode, ok):
    assert compare(got, expected, mode, 1e-6) is ok


def test_opaque_values_never_match():
    thing = Opaque("unserialisable X", "")
    for mode in ("exact", "float", "unordered", "set"):
        assert not compare(thing, [], mode)
        assert not compare([thing], [1], mode)


def test_unknown_mode_is_an_error():
    with pytest.raises(ValueError):
        compare(1, 1, "fuzzy")
