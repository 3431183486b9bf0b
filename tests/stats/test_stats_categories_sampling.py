"""Per-category paired tests, chosen-pair families and the sampling control, on records with hand-computed answers."""

from __future__ import annotations

import pytest

from execugraph.stats import build_report_from_records
from execugraph.stats.all_tables import publication_tables
from execugraph.stats.family import Family
from execugraph.stats.tables import MISSING, category_paired_table, category_table, sampling_table
from tests.stats.test_stats_report import META, hand_records


def _record(run: int, pid: str, category: str, ok: bool, *, condition: str, trial: int = 0, calls: int = 1,
            **extra: object) -> dict:
    return {"run_id": run, "problem_id": pid, "category": category, "condition": condition, "seed": 0,
            "trial_index": trial, "passed": ok, "llm_calls": calls, **extra}


def _graded_categories() -> list[dict]:
    """Run 1 fails everything; run 2 solves six 'dp' problems with 1..6 of 6 trials, and two of three 'graph' ones."""
    records = []
    for i in range(6):
        for t in range(6):
            records.append(_record(1, f"dp{i}", "dp", False, condition="single-oneshot", trial=t))
            records.append(_record(2, f"dp{i}", "dp", t <= i, condition="single-retry", trial=t, calls=2))
    for i in range(3):
        records.append(_record(1, f"g{i}", "graph", False, condition="single-oneshot"))
        records.append(_record(2, f"g{i}", "graph", i < 2, condition="single-retry", calls=2))
    return records


def test_each_category_is_compared_with_holm_over_the_categories_of_the_comparison():
    rep = build_report_from_records(_graded_categories(), ["1", "2"])
    (pair,) = rep.pairs
    dp, graph = pair.categories
    # dp: six positive differences 1/6 .. 6/6, all distinct: exact two-sided p = 2 / 2^6
    assert (dp.category, dp.n, dp.problems_differ) == ("dp", 6, 6)
    assert dp.a_rate == 0.0 and dp.b_rate == pytest.approx(21 / 36)
    assert dp.delta_pp == pytest.approx(100 * 21 / 36) and dp.p_wilcoxon == pytest.approx(2 / 64)
    # graph: differences 1, 1, 0 -> two non-zero, tied: p = 2 * P(T+ = 3) = 2 * 1/4
    assert (graph.n, graph.problems_differ, graph.delta_pp) == (3, 2, pytest.approx(200 / 3))
    assert graph.p_wilcoxon == pytest.approx(0.5)
    # Holm over the two categories: 2 * 1/32 = 0.0625, then max(0.0625, 1 * 0.5) = 0.5
    assert dp.p_holm == pytest.approx(0.0625) and graph.p_holm == pytest.approx(0.5)
    assert "category family" in rep.method["categories"]

    rows = category_paired_table(rep).display_rows()
    assert [(r["Category"], r["Delta (pp)"], r["p (Wilcoxon, exact)"], r["p (Holm, within comparison)"])
            for r in rows] == [("dp", "+58.3", "0.0312", "0.0625"), ("graph", "+66.7", "0.5000", "0.5000")]
    # with one comparison, the category table carries delta and p beside run 2's rates (run 1 is the reference)
    shown = category_table(rep).display_rows()
    run2 = [r for r in shown if r["Arm"].endswith("#2")]
    assert [(r["Category"], r["Delta vs run #1 (pp)"], r["p (Holm)"]) for r in run2] == [
        ("dp", "+58.3", "0.0625"), ("graph", "+66.7", "0.5000"), ("overall", f"{pair.delta_pp:+.1f}",
                                                                  f"{pair.p_holm:.4f}")]
    assert all(r["Delta vs run #1 (pp)"] == MISSING for r in shown if r["Arm"] == "run #1")
    assert "category_paired" in [t.key for t in publication_tables(rep)]


def test_chosen_pairs_form_the_family_holm_counts_only_them():
    records = hand_records() + [dict(r, run_id=3) for r in hand_records() if r["run_id"] == 2]
    meta = {**META, "3": {"title": "again", "kind": "batch", "config": {"retry_budget": 2}}}
    rep = build_report_from_records(records, ["1", "2", "3"], runs_meta=meta, family=Family(pairs=(("1", "3"),)))
    assert [(p.a, p.b) for p in rep.pairs] == [("1", "3")]
    (pair,) = rep.pairs
    assert pair.p_holm == pair.p_wilcoxon  # a family of one
    assert rep.family.mode == "chosen pairs" and "chosen for this study" in rep.method["family"]
    with pytest.raises(ValueError, match="itself"):
        build_report_from_records(records, ["1", "2"], runs_meta=META, family=Family(pairs=(("1", "1"),)))
    with pytest.raises(ValueError, match="not both"):
        Family(baseline="1", pairs=(("1", "2"),))


def _best_of_five_as_trials() -> list[dict]:
    """Published shape: five one-sample trials per problem (2, 0, 5 and 5 of 5 pass), one call each."""
    passes = {"p1": 2, "p2": 0, "p3": 5, "p4": 5}
    return [_record(4, pid, "dp", t < c, condition="best-of-n@5", trial=t) for pid, c in passes.items()
            for t in range(5)]


def test_sampling_control_for_a_best_of_five_arm_of_one_sample_per_trial_beside_retrying_arms():
    retry = [_record(5, pid, "dp", ok, condition="single-retry", calls=c)
             for pid, ok, c in (("p1", True, 2), ("p2", False, 4), ("p3", True, 1), ("p4", True, 1))]
    full = [_record(6, pid, "dp", ok, condition="multi-full", calls=c)
            for pid, ok, c in (("p1", True, 6), ("p2", True, 10), ("p3", True, 5), ("p4", True, 5))]
    rep = build_report_from_records(_best_of_five_as_trials() + retry + full, ["4", "5", "6"])
    bo5, sr, mf = rep.sampling.control
    assert (bo5.kind, bo5.n, bo5.source) == ("best-of-N", 5, "one sample per trial")
    assert bo5.pass_at_1 == pytest.approx((2 / 5 + 0 + 1 + 1) / 4)
    # pass@5 with n = 5: a problem counts when any sample passed -> 3 of 4
    assert bo5.pass_at_n == pytest.approx(0.75)
    assert (bo5.agree, bo5.agree_problems, bo5.agree_share) == (3, 4, 0.75)  # p2, p3, p4
    assert (bo5.calls_per_attempt, bo5.calls_for_pass_at_n) == (1.0, 5.0)
    assert (sr.kind, sr.n, sr.pass_at_1, sr.calls_per_attempt) == ("retry", None, 0.75, 2.0)
    assert sr.calls_for_pass_at_n is None and sr.agree is None
    assert (mf.kind, mf.pass_at_1, mf.calls_per_attempt) == ("multi-agent", 1.0, 6.5)
    rows = sampling_table(rep).display_rows()
    assert [(r["Arm"], r["N (samples)"], r["pass@N (%)"], r["LLM calls for pass@N"]) for r in rows] == [
        ("run #4", "5", "75.0", "5.00"), ("run #5", MISSING, MISSING, MISSING), ("run #6", MISSING, MISSING, MISSING)]


def test_sampling_control_for_a_best_of_n_arm_whose_trials_recorded_their_samples():
    # each trial drew 4 samples: p1 4+4 passed, p2 1+0, p3 0+0, p4 2+1
    drawn = {"p1": [4, 4], "p2": [1, 0], "p3": [0, 0], "p4": [2, 1]}
    records = [_record(3, pid, "dp", c > 0, condition="best-of-n", trial=t, calls=4, samples_total=4,
                       samples_passed=c) for pid, counts in drawn.items() for t, c in enumerate(counts)]
    rep = build_report_from_records(records, ["3"])
    (row,) = rep.sampling.control
    assert (row.kind, row.n, row.source) == ("best-of-N", 4, "samples recorded per trial")
    assert row.pass_at_1 == pytest.approx(12 / 32) and row.pass_at_n == pytest.approx(5 / 8)
    # per problem over its 8 samples: p1 all passed, p3 all failed agree; p2 and p4 do not
    assert (row.agree, row.agree_problems) == (2, 4)
    assert (row.calls_per_attempt, row.calls_for_pass_at_n) == (1.0, 4.0)
