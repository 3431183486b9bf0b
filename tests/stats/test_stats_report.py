"""The full report from plain records: hand-computed numbers, arm planning, errors, determinism."""

from __future__ import annotations

import json

import pytest

from execugraph.stats import UnknownConditionError, UnknownRunError, build_report_from_records, holm
from execugraph.stats.report_model import StatsReport

# Run 1: one-shot. Run 2: multi-full with retry budget 2. Two trials per problem.
# problem:      p1 (dp)   p2 (dp)   p3 (graph)  p4 (graph)
# run 1 passes: T T       T F       F F         F F        -> rates 1, .5, 0, 0   (3/8)
# run 2 passes: T T       T T       T F         T T        -> rates 1, 1, .5, 1   (7/8)
RUN1 = {"p1": [True, True], "p2": [True, False], "p3": [False, False], "p4": [False, False]}
RUN2 = {"p1": [True, True], "p2": [True, True], "p3": [True, False], "p4": [True, True]}
RUN2_RETRIES = {"p1": [0, 0], "p2": [1, 0], "p3": [2, 2], "p4": [0, 1]}
RUN1_ERRORS = {"p2": "AssertionError", "p3": "SyntaxError", "p4": "Timeout"}
CATEGORY = {"p1": "dp", "p2": "dp", "p3": "graph", "p4": "graph"}
META = {
    "1": {"title": "oneshot", "kind": "batch"},
    "2": {"title": "full", "kind": "batch", "config": {"retry_budget": 2}},
}


def hand_records() -> list[dict]:
    records = []
    for pid, outcomes in RUN1.items():
        for t, ok in enumerate(outcomes):
            records.append(
                {
                    "run_id": 1,
                    "problem_id": pid,
                    "category": CATEGORY[pid],
                    "condition": "single-oneshot",
                    "seed": 0,
                    "trial_index": t,
                    "passed": ok,
                    "error_class": None if ok else RUN1_ERRORS[pid],
                    "retries_used": 0,
                    "wallclock_s": 1.0,
                    "tokens_in": 100,
                    "tokens_out": 50,
                    "llm_calls": 1,
                    "test_source": "problem",
                    "feedback_source": "grading",
                }
            )
    for pid, outcomes in RUN2.items():
        for t, ok in enumerate(outcomes):
            retries = RUN2_RETRIES[pid][t]
            records.append(
                {
                    "run_id": 2,
                    "problem_id": pid,
                    "category": CATEGORY[pid],
                    "condition": "multi-full",
                    "seed": 0,
                    "trial_index": t,
                    "passed": ok,
                    "error_class": None if ok else "AssertionError",
                    "retries_used": retries,
                    "wallclock_s": 2.0 + retries,
                    "tokens_in": 400,
                    "tokens_out": 200,
                    "llm_calls": 4 + 2 * retries,
                    "test_source": "generated" if pid == "p3" else "problem",
                    "feedback_source": "visible",
                }
            )
    return records


def report_json(*args, **kwargs) -> dict:
    """The report as its JSON (summary.json, `stats --json`): what these tests check key by key."""
    return build_report_from_records(*args, **kwargs).to_json_dict()


@pytest.fixture(scope="module")
def report() -> dict:
    return report_json(hand_records(), ["1", "2"], runs_meta=META)


def test_runs_section(report):
    r1, r2 = report["runs"]
    assert (r1["id"], r1["title"], r1["trials"], r1["passed"], r1["pass_rate"]) == ("1", "oneshot", 8, 3, 0.375)
    assert (r2["trials"], r2["pass_rate"]) == (8, 0.875)
    assert r1["categories"]["dp"]["pass_rate"] == 0.75 and r1["categories"]["graph"]["pass_rate"] == 0.0
    assert r2["categories"]["dp"]["pass_rate"] == 1.0 and r2["categories"]["graph"]["pass_rate"] == 0.75
    assert r1["conditions"] == {"single-oneshot": {"trials": 8, "passed": 3, "pass_rate": 0.375}}
    assert r1["ci_lo"] <= r1["pass_rate"] <= r1["ci_hi"]


def test_pair_matches_hand_computation(report):
    (pair,) = report["pairs"]
    # differences 0, .5, .5, 1 -> +50 pp; Wilcoxon W+ = 1.5 + 1.5 + 3 = 6 of max 6 with n = 3 -> p = 2/8
    # majority: run 2 alone solves p2 and p4 (p3 at 1 of 2 is a tie, not solved) -> McNemar 0 vs 2 -> p = 2/4
    assert (pair["a"], pair["b"], pair["n"], pair["majority_discordant"], pair["problems_differ"]) == ("1", "2", 4, 2, 3)
    assert pair["delta_pp"] == pytest.approx(50.0)
    assert pair["p_wilcoxon"] == pytest.approx(0.25)
    assert pair["p_mcnemar"] == pytest.approx(0.5)
    assert pair["p_holm"] == pytest.approx(0.25)  # a family of one
    assert pair["a_only"] == [] and pair["b_only"] == ["p2", "p4"]
    # Newcombe's method 10 on the per-problem rates (not a bootstrap, whose lower end could not go below 0 here
    # because no difference is negative): it reaches below 0 with 3 of 4 problems differing
    assert (pair["ci_lo"], pair["ci_hi"]) == pytest.approx((-12.7812338287, 80.4380128678))


def test_arm_breakdowns(report):
    a1, a2 = report["arms"]
    assert (a1["retry_budget"], a2["retry_budget"]) == (0, 2)
    assert [(e["error_class"], e["count"]) for e in a1["errors"]] == [
        ("SyntaxError", 2),
        ("Timeout", 2),
        ("AssertionError", 1),
    ]
    assert a2["errors"] == [{"error_class": "AssertionError", "count": 1, "share": 1.0}]
    assert a2["test_sources"][0] == {"source": "problem", "trials": 6, "share": 0.75, "passed": 6, "pass_rate": 1.0}
    assert a2["test_sources"][1]["source"] == "generated" and a2["test_sources"][1]["pass_rate"] == 0.5
    # llm calls in run 2: 4 4 | 6 4 | 8 8 | 4 6 -> mean 44/8 = 5.5, median of 4 4 4 4 6 6 8 8 = 5
    assert a2["cost"]["llm_calls"]["mean"] == 5.5 and a2["cost"]["llm_calls"]["median"] == 5.0
    assert a2["cost"]["tokens"]["mean"] == 600.0
    assert [(r["retries_used"], r["trials"]) for r in a2["retries_used"]] == [(0, 4), (1, 2), (2, 2)]
    assert a1["pass_at_k"][0] == {"k": 1, "pass_at_k": 0.375, "problems": 4, "skipped": 0}
    # pass@2 for run 1: p1 1, p2 1 - C(1,2)/C(2,2) = 1, p3 0, p4 0 -> 0.5
    assert a1["pass_at_k"][1]["pass_at_k"] == pytest.approx(0.5)


def test_retry_curve_cost_and_sampling(report):
    # one-shot and multi-full are different conditions: each has one budget, so there is no sweep to draw
    assert report["retry_budgets"] == []
    assert [m["note"] for m in report["retry_budget_missing"]] == [
        "oneshot #1: only budget 0 in unrecorded benchmark · single-oneshot; nothing to sweep",
        "full #2: only budget 2 in unrecorded benchmark · multi-full; nothing to sweep",
    ]
    assert report["unknown_budget"] == []
    assert [p["mean_llm_calls"] for p in report["cost_vs_accuracy"]] == [1.0, 5.5]
    assert report["sampling"]["best_of_n"] == []
    (control,) = report["sampling"]["equal_budget"]
    # one-shot gets floor(5.5 / 1) = 5 samples' budget, but only 2 samples per problem exist
    assert (control["sampler"], control["reference"], control["n"]) == ("1", "2", 5)
    assert control["pass_at_1"] == 0.375 and control["pass_at_n"] is None
    assert "at least 5 samples" in control["note"]


def test_best_of_n_run_reports_its_sample_curve():
    # run 3: best-of-4 sampling; each trial records how many of its 4 samples passed
    drawn = {"p1": [4, 4], "p2": [1, 0], "p3": [0, 0], "p4": [2, 1]}
    extra = [
        {
            "run_id": 3,
            "problem_id": pid,
            "category": CATEGORY[pid],
            "condition": "best-of-n",
            "trial_index": t,
            "passed": c > 0,
            "llm_calls": 4,
            "samples_total": 4,
            "samples_passed": c,
        }
        for pid, counts in drawn.items()
        for t, c in enumerate(counts)
    ]
    rep = report_json(hand_records() + extra, ["1", "2", "3"], runs_meta=META)
    arm3 = rep["arms"][2]
    assert (arm3["retry_budget"], arm3["best_of_n"], arm3["pass_rate"]) == (0, 4, 0.625)
    (summary,) = rep["sampling"]["best_of_n"]
    assert summary["arm"] == "3" and summary["n"] == 4
    assert summary["pass_at_1"] == pytest.approx((4 + 4 + 1 + 0 + 0 + 0 + 2 + 1) / 32)
    assert summary["pass_at_n"] == 0.625
    assert [c["k"] for c in summary["pass_at_k"]] == [1, 2, 3, 4]
    # the best-of-N arm is not itself a one-shot sampler for the equal-budget control
    assert {c["sampler"] for c in rep["sampling"]["equal_budget"]} == {"1"}


def test_report_is_json_and_deterministic(report):
    again = build_report_from_records(hand_records(), ["1", "2"], runs_meta=META)
    assert json.dumps(report, sort_keys=True) == json.dumps(again.to_json_dict(), sort_keys=True)
    assert json.loads(json.dumps(report)) == report
    assert StatsReport.from_json(json.loads(json.dumps(report))) == again  # read back from a file, it is the same


def test_single_run_compares_its_conditions_in_launch_order():
    records = [dict(r, run_id=7) for r in hand_records()]
    rep = report_json(records, ["7"])
    assert [a["label"] for a in rep["arms"]] == ["single-oneshot", "multi-full"]
    assert rep["pairs"][0]["delta_pp"] == pytest.approx(50.0)
    assert rep["runs"][0]["trials"] == 16


def test_conditions_across_runs_label_run_and_condition():
    rep = report_json(hand_records(), ["1", "2"], ["single-oneshot", "multi-full"])
    assert [a["label"] for a in rep["arms"]] == [
        "1:single-oneshot",
        "1:multi-full",
        "2:single-oneshot",
        "2:multi-full",
    ]
    # arms a run does not have are empty: their pairs are listed apart with the reason, never as zero effects
    assert len(rep["pairs"]) == 1 and rep["pairs"][0]["n"] > 0
    assert len(rep["excluded"]) == 5 and all(x["reason"] == "no common problems" for x in rep["excluded"])
    assert rep["family"]["comparisons"] == 1 and rep["pairs"][0]["p_holm"] == rep["pairs"][0]["p_wilcoxon"]


def test_three_runs_family_is_holm_adjusted():
    records = hand_records() + [dict(r, run_id=3, passed=not r["passed"]) for r in hand_records() if r["run_id"] == 1]
    rep = report_json(records, ["1", "2", "3"])
    assert [(p["a"], p["b"]) for p in rep["pairs"]] == [("1", "2"), ("1", "3"), ("2", "3")]
    raw = [p["p_wilcoxon"] for p in rep["pairs"]]
    assert [p["p_holm"] for p in rep["pairs"]] == pytest.approx(holm(raw))
    assert all(p["p_holm"] >= p["p_wilcoxon"] for p in rep["pairs"])


def test_crashed_trials_fail_and_unfinished_ones_are_left_out():
    records = hand_records() + [
        {"run_id": 1, "problem_id": "p4", "condition": "single-oneshot", "passed": None, "status": "error"},
        {"run_id": 1, "problem_id": "p1", "condition": "single-oneshot", "passed": None, "status": "running"},
        {"run_id": 1, "problem_id": "p1", "condition": "single-oneshot", "passed": None, "status": "queued"},
    ]
    rep = report_json(records, ["1", "2"], runs_meta=META)
    assert (rep["runs"][0]["trials"], rep["runs"][0]["passed"]) == (9, 3)
    assert rep["runs"][0]["not_counted"] == {"queued": 1, "running": 1}
    assert rep["arms"][0]["not_counted"] == {"queued": 1, "running": 1}
    assert {"error_class": "trial-error", "count": 1, "share": 1 / 6} in rep["arms"][0]["errors"]


def test_unknown_run_and_condition_are_clear_errors():
    with pytest.raises(UnknownRunError, match="unknown run id.*99"):
        build_report_from_records(hand_records(), ["1", "99"])
    with pytest.raises(UnknownConditionError, match="multi-rag.*present: multi-full, single-oneshot"):
        build_report_from_records(hand_records(), ["1", "2"], ["multi-rag"])
    with pytest.raises(ValueError, match="once"):
        build_report_from_records(hand_records(), ["1", "1"])
