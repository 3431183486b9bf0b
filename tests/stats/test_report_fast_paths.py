"""The report's faster paths (issue 42) give what the plain ones gave: cleaning, ranking, shared arms, the collector."""

from __future__ import annotations

import gc
import math
from collections import OrderedDict
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from execugraph.stats import UnknownRunError, build_report, build_report_from_records
from execugraph.stats.paired import compare_many, compare_paired
from execugraph.stats.report import _clean
from execugraph.stats.signed_rank_batch import signed_rank_sums
from execugraph.store import Store


def test_clean_turns_numpy_and_non_finite_values_into_plain_json_values() -> None:
    raw = {
        "f": 0.25, "nan": math.nan, "inf": -math.inf, "i": 3, "b": True, "none": None, "s": "x",
        "np": [np.float64(0.5), np.float64(np.nan), np.int64(7), np.bool_(False), np.float32(0.5)],
        1: ("a", (2, math.inf)),
        "nested": [{"k": [math.nan, {2: np.int64(1)}]}],
        "sub": OrderedDict([(3, np.float64(np.inf)), ("y", 1.5)]),
    }
    want = {
        "f": 0.25, "nan": None, "inf": None, "i": 3, "b": True, "none": None, "s": "x",
        "np": [0.5, None, 7, False, 0.5],
        "1": ["a", [2, None]],
        "nested": [{"k": [None, {"2": 1}]}],
        "sub": {"3": None, "y": 1.5},
    }
    got = _clean(raw)
    assert got == want

    def leaves(value: object) -> Iterator[object]:
        if isinstance(value, dict):
            assert all(type(k) is str for k in value)
            for v in value.values():
                yield from leaves(v)
        elif isinstance(value, list):
            for v in value:
                yield from leaves(v)
        else:
            yield value

    assert {type(v) for v in leaves(got)} == {float, int, bool, str, type(None)}
    assert raw["nan"] is not None and isinstance(raw["np"][0], np.float64)  # the input is left as it was


def test_signed_rank_sums_with_more_vectors_than_the_radix_key_holds_equal_those_in_chunks() -> None:
    rng = np.random.default_rng(3)
    gaps = np.array([-1.0, -0.5, 0.0, 0.0, 0.5, 1.0, 0.25, -0.25])
    sizes = rng.integers(0, 5, size=70_000)  # more vectors than 65,535: the lexsort path
    vectors = np.split(rng.choice(gaps, size=int(sizes.sum())), np.cumsum(sizes)[:-1].tolist())
    n, r_plus = signed_rank_sums(vectors)
    chunks = [signed_rank_sums(vectors[i:i + 10_000]) for i in range(0, len(vectors), 10_000)]  # the radix path
    assert n.tolist() == np.concatenate([c[0] for c in chunks]).tolist()
    assert r_plus.tolist() == np.concatenate([c[1] for c in chunks]).tolist()
    assert r_plus.sum() > 0 and (n > 1).any()


def test_compare_many_with_arms_shared_between_pairs_equals_compare_paired() -> None:
    rng = np.random.default_rng(11)
    problems = [f"p{i}" for i in range(50)]
    arms = []
    for k in range(7):
        ids = problems if k % 3 else problems[k:]  # some arms miss problems: the intersecting path
        trials = 1 + k % 4
        arms.append({p: int(rng.integers(0, trials + 1)) / trials for p in ids})
    jobs = [(arms[i], arms[j], f"a{i}", f"a{j}", 1) for i in range(7) for j in range(i + 1, 7)]
    batch = compare_many(jobs)
    assert [c.as_dict() for c in batch] == [compare_paired(a, b, a=x, b=y).as_dict() for a, b, x, y, _ in jobs]
    assert len({c.n for c in batch}) > 1 and any(c.problems_differ for c in batch)


def _records() -> list[dict]:
    rng = np.random.default_rng(2)
    return [
        {"run_id": str(r), "problem_id": f"p{p}", "category": f"c{p % 3}", "condition": f"cond{r}", "seed": t,
         "trial_index": 0, "passed": bool(rng.random() < 0.6), "benchmark": "humaneval", "tokens_in": 100 + p,
         "tokens_out": 50, "llm_calls": 2, "wallclock_s": 1.5}
        for r in (1, 2, 3) for p in range(12) for t in range(2)
    ]


@pytest.mark.parametrize("enabled", [True, False])
def test_a_report_leaves_the_collector_as_it_found_it(enabled: bool, tmp_path: Path) -> None:
    was = gc.isenabled()
    try:
        (gc.enable if enabled else gc.disable)()
        report = build_report_from_records(_records(), ["1", "2", "3"])
        assert len(report.pairs) == 3 and gc.isenabled() is enabled
        with Store.open(str(tmp_path / "runs.db")) as store, pytest.raises(UnknownRunError, match="4242"):
            build_report(store, ["4242"])  # fails inside the paused section
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()
