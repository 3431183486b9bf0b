"""Property-based inputs: Hypothesis strategies inferred from the originals' shapes, drawn under a fixed seed.

Why: mutation stays near the authors' inputs; random inputs of the same types, within
bounds the originals suggest, reach the rest. Drawing uses Hypothesis's documented
machinery only: a `@given` function run under `@seed(...)` with no example database and
only the generate phase collects what it is given, so the same seed and Hypothesis
version (pinned, recorded in the provenance) give the same inputs. One more thing is needed for
that: Hypothesis (since 6.13x) also draws, now and then, literal constants it finds in the
source of every *local* module in `sys.modules`, so without `_no_local_constants` the inputs
would depend on which of our modules the process happened to import (the CLI, the bench, the
dashboard and a worker process each drew other inputs) and on every constant in our code.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from execugraph.amplify.contracts import Shape

MAX_SIZE = 20  # generated collections hold at most this many elements (beyond what the originals had)
MAX_MAGNITUDE = 1000


def _bounds(shape: Shape) -> tuple[float, float]:
    low = shape.low if shape.low is not None else -10
    high = shape.high if shape.high is not None else 10
    span = max(10.0, float(high) - float(low))
    lo = max(low - span, -MAX_MAGNITUDE)
    hi = min(high + span, MAX_MAGNITUDE)
    if low >= 1:
        lo = max(lo, 1)
    elif low >= 0:
        lo = max(lo, 0)
    return lo, max(lo, hi)


def strategy_for(shape: Shape, depth: int = 0) -> Any:
    """A strategy for values of `shape` (one strategy per observed type, combined)."""
    from hypothesis import strategies as st

    options = []
    for kind in sorted(shape.kinds):
        lo, hi = _bounds(shape)
        if kind == "int" and shape.flags is not None:  # as often as the originals use each value
            options.append(st.sampled_from([v for v in shape.flags for _ in range(min(shape.ints[v], 20))]))
        elif kind == "int":
            used = sorted(v for v in shape.ints if lo <= v <= hi)
            ranged = st.integers(int(lo), int(hi))
            options.append(st.one_of(st.sampled_from(used), ranged) if used else ranged)
        elif kind == "float":
            options.append(st.floats(lo, hi, allow_nan=False, allow_infinity=False))
        elif kind == "bool":
            options.append(st.booleans())
        elif kind == "none":
            options.append(st.none())
        elif kind == "str":
            alphabet = "".join(sorted(shape.small_alphabet or shape.chars or {"a", "b", " "}))
            options.append(st.text(alphabet=alphabet, min_size=1 if shape.always_nonempty else 0,
                                   max_size=min(shape.max_len + 5, MAX_SIZE * 2)))
        elif kind in ("list", "tuple") and depth < 3:
            options.append(_sequence(shape, kind, depth))
        elif kind == "dict" and depth < 3 and shape.key is not None and shape.value is not None:
            options.append(st.dictionaries(strategy_for(shape.key, depth + 1), strategy_for(shape.value, depth + 1),
                                           min_size=1 if shape.always_nonempty else 0, max_size=MAX_SIZE))
        elif kind == "dict":
            options.append(st.just({}))
    return st.one_of(options) if options else st.none()


def _sequence(shape: Shape, kind: str, depth: int) -> Any:
    from hypothesis import strategies as st

    if kind == "tuple" and shape.positions:
        return st.tuples(*(strategy_for(s, depth + 1) for s in shape.positions))
    element = strategy_for(shape.element, depth + 1) if shape.element is not None else st.integers(0, 9)
    if shape.rectangular and shape.element is not None and shape.element.element is not None:
        cell = strategy_for(shape.element.element, depth + 2)
        width = st.integers(1 if shape.element.always_nonempty else 0, min(shape.element.max_len + 3, MAX_SIZE))
        grids = width.flatmap(lambda w: st.lists(st.lists(cell, min_size=w, max_size=w),
                                                 min_size=1 if shape.always_nonempty else 0,
                                                 max_size=min(shape.max_len + 3, MAX_SIZE)))
        return grids.map(tuple) if kind == "tuple" else grids
    lists = st.lists(element, min_size=1 if shape.always_nonempty else 0,
                     max_size=min(shape.max_len + 5, MAX_SIZE))
    if shape.always_sorted and shape.max_len > 1:
        lists = lists.map(_sorted_or_same)
    return lists.map(tuple) if kind == "tuple" else lists


def _sorted_or_same(values: list) -> list:
    try:
        return sorted(values)
    except TypeError:
        return values


_CONSTANTS_LOCK = threading.Lock()


@contextmanager
def _no_local_constants() -> Iterator[None]:
    """Hypothesis draws with no constants from our own modules (see the module docstring); its global constant
    pool, part of the pinned version, stays. Hypothesis has no setting for this: its provider's lookup is swapped
    for an empty pool while we draw (and its cache of allowed constants cleared on both sides)."""
    try:
        from hypothesis.internal.conjecture import providers
        from hypothesis.internal.constants_ast import Constants

        original, cache = providers._get_local_constants, providers.CONSTANTS_CACHE
    except (ImportError, AttributeError):  # a Hypothesis without local constants: nothing to switch off
        yield
        return
    empty = Constants()
    with _CONSTANTS_LOCK:
        providers._get_local_constants = lambda: empty
        cache.cache.clear()
        try:
            yield
        finally:
            providers._get_local_constants = original
            cache.cache.clear()


def draw_inputs(shapes: list[Shape], seed: int, count: int) -> list[tuple[Any, ...]]:
    """Up to `count` argument tuples for `shapes`, the same ones for the same seed."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hypothesis_seed
    from hypothesis import strategies as st

    if not shapes or count <= 0:
        return []
    drawn: list[tuple[Any, ...]] = []

    @hypothesis_seed(seed)
    @settings(max_examples=count, database=None, phases=[Phase.generate], deadline=None, derandomize=False,
              suppress_health_check=list(HealthCheck), print_blob=False)
    @given(st.tuples(*(strategy_for(s) for s in shapes)))
    def collect(args: tuple[Any, ...]) -> None:
        drawn.append(args)

    with _no_local_constants():
        collect()
    return drawn
