"""The 95%-target measurement with the real sandbox: missed mutants split into distinguishable and equivalent."""

from __future__ import annotations

import pytest

from execugraph.amplify.adequacy import suite_adequacy
from execugraph.amplify.build import amplify_benchmark
from execugraph.amplify.distinguish import distinguishable_report
from execugraph.benchmarks import load_internal30

pytestmark = pytest.mark.integration


def test_missed_mutants_are_split_and_amplified_kills_are_distinguishable() -> None:
    from sandbox import SandboxPool

    chosen = [p for p in load_internal30() if p.id in ("grid_shortest_path", "cycle_detect")]
    with SandboxPool(workers=2) as pool:
        suite = amplify_benchmark(pool, "internal30", chosen, seed=0, per_problem=30)
        adequacy = suite_adequacy(pool, chosen, suite.stored_problems())
        report = distinguishable_report(pool, chosen, suite.stored_problems(), seed=0, budget=40)
    total = report["total"]
    for pid, row in report["problems"].items():
        score = adequacy.problems[pid]
        assert row["missed"] == score.mutants - score.original_killed
        assert row["amplified_killed"] == score.amplified_killed - score.original_killed  # each is distinguishable
        assert row["amplified_killed"] <= row["distinguishable"] <= row["missed"]
        assert len(row["survivors"]) == row["distinguishable"] - row["amplified_killed"]
        assert len(row["equivalent"]) == row["missed"] - row["distinguishable"]
        both_miss = row["missed"] - row["amplified_killed"]  # only those need the search (the second stage)
        assert (row["search_inputs"] > 0) == (both_miss > 0)
    assert total["amplified_killed"] >= 3  # grid_shortest_path's two off-by-one mutants and cycle_detect's one
    assert 0.0 < total["share"] <= 1.0 and "seed 1000003" in total["how"]
    assert total["searched_problems"] == sum(1 for row in report["problems"].values() if row["search_inputs"])
