"""The boundary codec: plain data round-trips exactly; anything able to lie about equality cannot."""

from __future__ import annotations

import collections
import json
import math
from fractions import Fraction

import pytest

from sandbox.codec import MAX_DEPTH, CodecError, Opaque, decode, encode


def roundtrip(value):
    return decode(json.loads(json.dumps(encode(value))))


@pytest.mark.parametrize(
    "value",
    [
        None,
        True,
        0,
        -(10**5000),
        1.5,
        "tëxt\udc80",
        b"\x00\xff",
        [1, [2, "3"]],
        (1, (2,)),
        {1, 2},
        frozenset({"a"}),
        {"a": 1, (1, 2): [3], 4: None},
        3 + 4j,
    ],
    ids=lambda value: type(value).__name__,
)
def test_plain_values_round_trip_exactly(value):
    back = roundtrip(value)
    assert back == value and type(back) is type(value)


def test_special_floats_survive():
    back = roundtrip([math.inf, -math.inf, math.nan])
    assert back[0] == math.inf and back[1] == -math.inf and math.isnan(back[2])


def test_builtin_subclasses_are_read_through_the_base_type():
    class LyingInt(int):
        def __eq__(self, other):
            return True

        __hash__ = int.__hash__

    class LyingStr(str):
        def __eq__(self, other):
            return True

        __hash__ = str.__hash__

    class LyingList(list):
        def __iter__(self):
            return iter([999])

    Point = collections.namedtuple("Point", "x y")
    back = roundtrip(
        [LyingInt(7), LyingStr("s"), LyingList([1, 2]), Point(1, 2), collections.Counter("aa"), collections.deque([3])]
    )
    assert back == [7, "s", [1, 2], (1, 2), {"a": 2}, [3]]
    assert type(back[0]) is int and type(back[1]) is str and type(back[3]) is tuple and type(back[4]) is dict


def test_objects_that_are_not_plain_data_become_opaque():
    class AlwaysEqual:
        def __eq__(self, other):
            return True

    class Spoof:
        __class__ = int  # isinstance() would believe it

    back = roundtrip([AlwaysEqual(), Spoof(), (x for x in ()), range(3)])
    assert all(isinstance(item, Opaque) for item in back)
    assert back[0] != back[0].__class__ and back[0] != 1 and not (back[0] == back[1])
    assert "AlwaysEqual" in repr(back[0])


def test_broken_repr_does_not_break_encoding():
    class Broken:
        def __repr__(self):
            raise RuntimeError("no")

    (item,) = roundtrip([Broken()])
    assert isinstance(item, Opaque) and item.text == ""


def test_cycles_and_depth_are_cut():
    cyclic = [1]
    cyclic.append(cyclic)
    back = roundtrip(cyclic)
    assert back[0] == 1 and isinstance(back[1], Opaque)
    deep: list = []
    node = deep
    for _ in range(MAX_DEPTH + 50):
        node.append([])
        node = node[0]
    encoded = encode(deep)
    depth, cursor = 0, encoded
    while isinstance(cursor, list) and cursor:
        depth, cursor = depth + 1, cursor[0]
    assert depth <= MAX_DEPTH + 1 and isinstance(decode(cursor), Opaque)


def test_numbers_from_decimal_and_fraction_become_floats():
    assert roundtrip(Fraction(1, 4)) == 0.25


@pytest.mark.parametrize(
    "bad",
    [{"$x": 1}, {"a": 1, "b": 2}, {"$s": [[1]]}, {"$d": [[1]]}, {"$b": "@@"}, {"$t": 3}, {"$i": 5}, object()],
    ids=lambda bad: "object()" if type(bad) is object else str(bad),  # an address would differ between processes
)
def test_decode_rejects_anything_the_encoder_would_not_produce(bad):
    with pytest.raises(CodecError):
        decode(bad)
