"""Error taxonomy, test-source audit, costs, retry budgets and the best-of-N control, by hand."""

from __future__ import annotations

import pytest

from execugraph.stats.budgets import ConditionBudget, condition_budget
from execugraph.stats.costs import cost_accuracy_point, cost_summary, metric_summary
from execugraph.stats.records import (
    COUNTED_STATUSES,
    ArmData,
    CostColumns,
    ProblemTally,
    Tally,
    TrialRecord,
    arm_from_records,
    to_record,
    to_records,
)
from execugraph.stats.retries import by_retry_budget, retries_used_distribution
from execugraph.stats.sampling import best_of_n_control, best_of_n_summary, equal_budget_n
from execugraph.stats.taxonomy import error_shares, source_audit


def rec(pid: str, passed: bool | None, **kw) -> TrialRecord:
    return to_record({"run_id": "1", "problem_id": pid, "category": "dp", "passed": passed, **kw})


def test_error_shares_are_over_failed_trials_only():
    records = [
        rec("a", True),
        rec("a", False, error_class="AssertionError"),
        rec("b", False, error_class="Timeout"),
        rec("b", False, error_class="Timeout"),
        rec("c", False),  # no class recorded -> unknown
    ]
    arm = arm_from_records(records, label="x", run_id="1")
    rows = error_shares(arm.errors)
    assert [(r["error_class"], r["count"]) for r in rows] == [("Timeout", 2), ("AssertionError", 1), ("unknown", 1)]
    assert [r["share"] for r in rows] == pytest.approx([0.5, 0.25, 0.25])
    assert error_shares({}) == []


def test_source_audit_counts_and_pass_rates():
    records = [
        rec("a", True, test_source="problem"),
        rec("a", False, test_source="problem"),
        rec("b", True, test_source="generated"),
        rec("c", True, test_source="smoke"),
    ]
    rows = source_audit(arm_from_records(records, label="x", run_id="1").test_sources)
    assert rows[0] == {"source": "problem", "trials": 2, "share": 0.5, "passed": 1, "pass_rate": 0.5}
    assert {r["source"] for r in rows} == {"problem", "generated", "smoke"}
    assert sum(r["share"] for r in rows) == pytest.approx(1.0)


def test_cost_summary_mean_median_and_missing_values():
    assert metric_summary([1, 2, 3, 10]) == {"recorded": 4, "mean": 4.0, "median": 2.5, "total": 16.0}
    assert metric_summary([None, None]) == {"recorded": 0, "mean": None, "median": None, "total": 0.0}
    costs = CostColumns(wallclock_s=[1.0, 3.0], tokens_in=[100, None], tokens_out=[20, 30], llm_calls=[1, 5])
    summary = cost_summary(costs)
    assert summary["tokens"] == {"recorded": 1, "mean": 120.0, "median": 120.0, "total": 120.0}
    assert summary["llm_calls"]["mean"] == 3.0
    assert summary["wallclock_s"]["median"] == 2.0


def test_cost_accuracy_point():
    records = [rec("a", True, llm_calls=2, wallclock_s=1.0), rec("b", False, llm_calls=4, wallclock_s=3.0)]
    point = cost_accuracy_point(arm_from_records(records, label="x", run_id="1"))
    assert point == {"arm": "x", "pass_rate": 0.5, "mean_llm_calls": 3.0, "mean_tokens": None, "mean_wallclock_s": 2.0}


def test_condition_budget_follows_conditions_and_configs():
    batch = {"conditions": ["single-oneshot", "multi-full"], "overrides": {}}
    assert condition_budget("multi-full", None) == ConditionBudget(3, 1)  # execugraph.configuration.conditions default
    assert condition_budget("single-oneshot", batch) == ConditionBudget(0, 1)
    assert condition_budget("multi-full@5", None).retry_budget == 5
    assert condition_budget("best-of-n", None) == ConditionBudget(0, 4)
    assert condition_budget("best-of-n@8", None) == ConditionBudget(0, 8)
    # a batch's overrides apply to every condition, as BatchSpec.run_config does
    assert condition_budget("multi-full", {**batch, "overrides": {"retry_budget": 5}}).retry_budget == 5
    # a single run's own RunConfig states its budget
    assert condition_budget("multi-full", {"condition": "multi-full", "retry_budget": 1}).retry_budget == 1
    # unknown names: only what the config says
    assert condition_budget("paper-cond", {}) == ConditionBudget(None, 1)
    assert condition_budget("paper-cond", {"retry_budget": 2}).retry_budget == 2
    assert condition_budget(None, None) == ConditionBudget(None, 1)
    per_condition = {"retry_budget": 3, "retry_budget_by_condition": {"multi-full": 1}}
    assert condition_budget("multi-full", per_condition).retry_budget == 1
    with pytest.raises(ValueError, match="retry_budget must be an integer >= 0, got 'many'"):
        condition_budget("multi-full", {"retry_budget": "many"})
    with pytest.raises(ValueError, match=r"retry_budget_by_condition\['x'\]"):
        condition_budget("x", {"retry_budget_by_condition": {"x": -1}})
    with pytest.raises(ValueError, match="best_of_n"):
        condition_budget("best-of-n", {"best_of_n": 0})


def test_retries_used_distribution_and_budget_curve():
    r3 = [rec("a", True, retries_used=0, llm_calls=3), rec("b", True, retries_used=2, llm_calls=7)]
    r3 += [rec("c", False, retries_used=3, llm_calls=9)]
    arm3 = arm_from_records(r3, label="r3", run_id="1", condition="multi-full", retry_budget=3)
    dist = retries_used_distribution(arm3)
    assert [(d["retries_used"], d["trials"], d["passed"]) for d in dist] == [(0, 1, 1), (2, 1, 1), (3, 1, 0)]
    arm0 = arm_from_records([rec("a", False, llm_calls=3)], label="r0", run_id="1", condition="multi-full@0",
                            retry_budget=0)
    arm3b = arm_from_records([rec("a", True, llm_calls=5)], label="r3b", run_id="2", condition="multi-full@3",
                             retry_budget=3)
    unknown = arm_from_records([rec("a", True)], label="?", run_id="3", condition="multi-full")
    curve = by_retry_budget([arm3, arm0, arm3b, unknown])
    assert [row["retry_budget"] for row in curve] == [0, 3]
    assert curve[0]["pass_rate"] == 0.0 and curve[0]["mean_llm_calls"] == 3.0
    assert curve[1]["arms"] == ["r3", "r3b"]
    assert curve[1]["trials"] == 4 and curve[1]["pass_rate"] == 0.75
    assert curve[1]["mean_llm_calls"] == pytest.approx((3 + 7 + 9 + 5) / 4)


def _arm(label: str, tallies: dict[str, tuple[int, int]], calls: int, budget: int | None) -> ArmData:
    arm = ArmData(label=label, run_id=label, condition=None, retry_budget=budget)
    for pid, (n, c) in tallies.items():
        arm.tallies[pid] = ProblemTally(pid, "dp", n, c)
    arm.costs.llm_calls = [calls] * sum(n for n, _ in tallies.values())
    return arm


def test_best_of_n_at_equal_call_budget():
    sampler = _arm("oneshot", {"a": (4, 1), "b": (4, 0), "c": (4, 2)}, calls=1, budget=0)
    reference = _arm("multi", {"a": (4, 4), "b": (4, 0), "c": (4, 4)}, calls=2, budget=2)
    control = best_of_n_control(sampler, reference)
    assert control["n"] == 2
    # pass@1 = mean(1/4, 0, 2/4); pass@2 = mean(1 - C(3,2)/C(4,2), 0, 1 - C(2,2)/C(4,2)) = mean(1/2, 0, 5/6)
    assert control["pass_at_1"] == pytest.approx(0.25)
    assert control["pass_at_n"] == pytest.approx((0.5 + 0 + 5 / 6) / 3)
    assert control["reference_pass_rate"] == pytest.approx(8 / 12)
    assert control["problems"] == 3 and control["skipped"] == 0 and control["note"] == ""


def test_best_of_n_with_too_few_samples_says_so():
    sampler = _arm("oneshot", {"a": (2, 1)}, calls=1, budget=0)
    reference = _arm("multi", {"a": (2, 2)}, calls=5, budget=3)
    control = best_of_n_control(sampler, reference)
    assert control["n"] == 5 and control["pass_at_n"] is None
    assert "at least 5 samples" in control["note"]
    assert best_of_n_control(_arm("s", {"a": (2, 1)}, calls=0, budget=0), reference) is None


def test_best_of_n_summary_from_recorded_samples():
    # three best-of-4 trials drew 4 samples each, with 0, 1 and 2 passes
    records = [rec(f"p{i}", c > 0, samples_total=4, samples_passed=c, llm_calls=4) for i, c in enumerate((0, 1, 2))]
    arm = arm_from_records(records, label="bo4", run_id="1", retry_budget=0, best_of_n=4)
    summary = best_of_n_summary(arm)
    assert summary["n"] == 4 and summary["trials_with_samples"] == 3
    # pass@1 = mean(0/4, 1/4, 2/4); pass@2 = mean(0, 1 - C(3,2)/C(4,2), 1 - C(2,2)/C(4,2)) = mean(0, 1/2, 5/6)
    assert summary["pass_at_1"] == pytest.approx(0.25)
    assert summary["pass_at_k"][1]["pass_at_k"] == pytest.approx((0 + 0.5 + 5 / 6) / 3)
    # pass@4 from the samples equals the trials' own verdicts (any sample passed)
    assert summary["pass_at_k"][3]["pass_at_k"] == pytest.approx(2 / 3)
    assert summary["pass_at_n"] == pytest.approx(2 / 3)
    assert summary["mean_llm_calls"] == 4.0 and summary["note"] == ""
    assert best_of_n_summary(arm_from_records(records, label="plain", run_id="1")) is None


def test_equal_budget_n():
    assert equal_budget_n(1.0, 5.5) == 5
    assert equal_budget_n(1.1, 3.3) == 3  # float noise does not lose a sample
    assert equal_budget_n(4.0, 2.0) == 1
    with pytest.raises(ValueError):
        equal_budget_n(0.0, 3.0)


def test_crashes_count_as_failures_and_unfinished_trials_are_left_out():
    records = [
        rec("a", True),
        rec("a", None, status="error"),  # crashed, no class: a failure of class trial-error
        rec("b", False, status="error", error_class="LLMTimeout"),
        rec("b", None, status="running"),
        rec("c", None, status="cancelled"),
        TrialRecord("1", "d", "dp", None, 0, 0, None),  # done without a verdict (possible in a store): failed
    ]
    arm = arm_from_records(records, label="x", run_id="1")
    assert (arm.trials, arm.passed) == (4, 1)
    assert set(arm.tallies) == {"a", "b", "d"}
    assert arm.errors == {"trial-error": 1, "LLMTimeout": 1, "unknown": 1}
    assert arm.not_counted == {"running": 1, "cancelled": 1}


def test_counted_statuses_match_the_store():
    from execugraph.store.queries import FINISHED_STATUSES

    assert COUNTED_STATUSES == FINISHED_STATUSES


def test_bad_records_name_the_field():
    with pytest.raises(ValueError, match="record 2: missing required field 'problem_id'"):
        to_records([{"run_id": 1, "problem_id": "a", "passed": True}, {"run_id": 1, "passed": True}])
    with pytest.raises(ValueError, match="'passed'"):
        to_record({"run_id": 1, "problem_id": "a"})


def test_tally_rate():
    assert Tally(4, 1).rate == 0.25 and Tally().rate == 0.0
