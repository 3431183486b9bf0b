"""A best-of-N arm is cheaper *per sample*: at a costlier arm's budget it gets k = budget / (trial cost / samples),
even when one of its trials costs as much as a trial of the costlier arm (as `batch --match-budget` plans it)."""

from __future__ import annotations

from itertools import combinations

from execugraph.stats.matched_budget import matched_budgets
from execugraph.stats.records import TrialRecord, arm_from_records

# (problem, samples passed of 4) per best-of-4 trial: two trials a problem, so 8 samples a problem
BEST_OF_4 = {"p1": (1, 0), "p2": (0, 0), "p3": (4, 2), "p4": (0, 1)}
RETRY = {"p1": False, "p2": False, "p3": True, "p4": False}


def _arms(record_samples: bool = True):
    sampler = arm_from_records(
        [TrialRecord("r", p, "dp", "best-of-n@4", seed, 0, won > 0, llm_calls=4,
                     samples_total=4 if record_samples else None, samples_passed=won if record_samples else None)
         for p, wins in BEST_OF_4.items() for seed, won in enumerate(wins)],
        label="bo4", run_id="r", condition="best-of-n@4", best_of_n=4)
    reference = arm_from_records([TrialRecord("r", p, "dp", "single-retry@3", 0, 0, ok, llm_calls=4)
                                  for p, ok in RETRY.items()], label="sr", run_id="r", condition="single-retry@3")
    return sampler, reference


def _by_hand(n: int, c: int, k: int) -> float:
    """pass@k by enumerating every k-subset of n samples (c of them passing): the share holding a pass."""
    subsets = list(combinations(range(n), k))
    return sum(any(i < c for i in s) for s in subsets) / len(subsets)


COSTS = {"bo4": {"llm_calls": {"mean": 4.0}}, "sr": {"llm_calls": {"mean": 4.0}}}  # equal per trial


def test_equal_cost_per_trial_still_buys_four_samples():
    sampler, reference = _arms()
    (row,) = matched_budgets([sampler, reference], [(0, 1)], COSTS, metrics=["llm_calls"])
    # per trial both spend 4 calls (the old per-trial rule found no budget); per sample bo4 spends 1
    assert (row["sampler"], row["reference"]) == ("bo4", "sr")
    assert (row["cost_per_sample"], row["budget"], row["k"], row["max_samples"]) == (1.0, 4.0, 4, 8)
    want = {p: _by_hand(8, sum(w), 4) for p, w in BEST_OF_4.items()}
    assert row["sampler_pass_at_k"] == sum(want.values()) / 4
    assert row["reference_pass_rate"] == 0.25 and row["n"] == 4
    diffs = [want[p] - RETRY[p] for p in BEST_OF_4]
    assert abs(row["delta_pp"] - 100 * sum(diffs) / 4) < 1e-9 and abs(row["delta_pp"] - 25.0) < 1e-9
    assert "(4.00 LLM calls per trial = 4.0 samples of 1.00): pass@4 50.0% against 25.0%" in row["sentence"]


def test_the_costlier_arm_never_becomes_the_sampler_and_cheaper_per_trial_is_not_needed():
    sampler, reference = _arms()
    costs = {"bo4": {"llm_calls": {"mean": 6.0}}, "sr": {"llm_calls": {"mean": 4.0}}}  # bo4 dearer per trial
    (row,) = matched_budgets([sampler, reference], [(0, 1)], costs, metrics=["llm_calls"])
    assert (row["cost_per_sample"], row["k"]) == (1.5, 2)
    costs = {"bo4": {"llm_calls": {"mean": 16.0}}, "sr": {"llm_calls": {"mean": 4.0}}}  # 4 a sample: no budget
    assert matched_budgets([sampler, reference], [(0, 1)], costs, metrics=["llm_calls"]) == []


def test_without_recorded_samples_a_trial_is_the_unit_at_a_trial_cost():
    # only the trials' outcomes are known, so a sample is a trial at 4 calls: sr's 4 calls buy no second one
    sampler, reference = _arms(record_samples=False)
    assert matched_budgets([sampler, reference], [(0, 1)], COSTS, metrics=["llm_calls"]) == []
    costs = {"bo4": {"llm_calls": {"mean": 4.0}}, "sr": {"llm_calls": {"mean": 8.0}}}
    (row,) = matched_budgets([sampler, reference], [(0, 1)], costs, metrics=["llm_calls"])
    assert (row["cost_per_sample"], row["k"], row["max_samples"]) == (4.0, 2, 2)
    trials = {p: [w > 0 for w in wins] for p, wins in BEST_OF_4.items()}
    assert row["sampler_pass_at_k"] == sum(_by_hand(2, sum(t), 2) for t in trials.values()) / 4
