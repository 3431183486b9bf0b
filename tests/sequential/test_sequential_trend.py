"""The `hsd-trend` rule: Hwang-Shih-DeCani spending and predictive-power futility, against independent computations."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate
from scipy.stats import norm

from execugraph.batch.spec import BatchSpec, batch_spec_of
from execugraph.sequential.design import SequentialDesign
from execugraph.sequential.plan import plan_text
from execugraph.sequential.rule import (
    CONTINUE,
    FUTILITY,
    corrected_z,
    first_stop,
    half_step,
    look,
    predictive_power,
    score_z,
)
from execugraph.sequential.summary import describe
from execugraph.stats.group_sequential import hsd_spent, obf_boundaries, obf_spent

TREND = SequentialDesign(looks=5)  # the default rule
OLD = SequentialDesign(looks=5, rule="obf-mdd")


def test_new_batches_get_the_trend_rule_and_each_rule_its_own_futility_threshold() -> None:
    assert SequentialDesign().rule == "hsd-trend" and SequentialDesign().futility_threshold == 0.04
    assert OLD.futility_threshold == 0.10 and SequentialDesign(rule="obf-mdd", futility=0.2).futility_threshold == 0.2


def test_hwang_shih_decani_spending_by_hand_and_it_spends_exactly_alpha() -> None:
    # alpha (1 - e^(-gamma t)) / (1 - e^(-gamma)), gamma = -2, t = 0.5: 0.05 (1 - e) / (1 - e^2) = 0.05 / (1 + e)
    assert hsd_spent(0.5, 0.05, -2.0) == pytest.approx(0.05 / (1 + math.e))
    assert hsd_spent(1.0, 0.05, -2.0) == pytest.approx(0.05) and hsd_spent(0.0, 0.05) == 0.0
    assert hsd_spent(0.3, 0.05, 0.0) == pytest.approx(0.015)  # gamma 0: uniform spending
    looks = [k / 10 for k in range(1, 11)]
    increments = np.diff([0.0] + [hsd_spent(t, 0.05) for t in looks])
    assert increments.sum() == pytest.approx(0.05) and (increments > 0).all()
    # it spends more early than the O'Brien-Fleming type, so stops come earlier
    assert hsd_spent(0.3, 0.05) > 10 * obf_spent(0.3, 0.05)


def test_hsd_boundaries_first_look_by_hand_and_simulated_crossings_spend_alpha() -> None:
    fractions = [0.25, 0.5, 0.75, 1.0]
    bounds = np.array(obf_boundaries(fractions, 0.05, two_sided=True, spent=hsd_spent))
    # look 1 alone: P(|Z| >= b1) = 2 * hsd_spent(0.25, 0.025)
    assert bounds[0] == pytest.approx(norm.isf(hsd_spent(0.25, 0.025)), abs=1e-6)
    assert 1.96 < bounds[-1] < 2.2 and (np.diff(bounds) < 0).all()
    rng = np.random.default_rng(11)
    steps = np.sqrt(np.diff([0.0, *fractions]))
    paths = np.cumsum(rng.standard_normal((400_000, 4)) * steps, axis=1) / np.sqrt(fractions)
    crossed = np.abs(paths) >= bounds
    assert crossed.any(axis=1).mean() == pytest.approx(0.05, abs=0.0015)
    first_two = crossed[:, :2].any(axis=1).mean()
    assert first_two == pytest.approx(2 * hsd_spent(0.5, 0.025), abs=0.001)


def test_predictive_power_is_conditional_power_averaged_over_the_flat_prior_posterior() -> None:
    # B(t) = z sqrt(t) ~ N(theta t, t): the flat-prior posterior of theta is N(B / t, 1 / t); given theta,
    # B(1) = B(t) + theta (1 - t) + N(0, 1 - t). Integrate the two-sided conditional power over it.
    for z, t, c in ((1.1, 0.4, 2.16), (-0.3, 0.6, 2.0), (2.5, 0.2, 2.1), (0.0, 0.9, 1.96)):
        b = z * math.sqrt(t)

        def cp(theta: float, side: int, b: float = b, t: float = t, c: float = c) -> float:
            mean, sd = b + theta * (1 - t), math.sqrt(1 - t)
            return float(norm.sf((c - mean) / sd) if side > 0 else norm.cdf((-c - mean) / sd))

        sides = [integrate.quad(lambda th, s=s, b=b, t=t: cp(th, s) * norm.pdf(th, b / t, 1 / math.sqrt(t)),
                                -np.inf, np.inf)[0] for s in (1, -1)]
        assert predictive_power(z, t, c) == pytest.approx(max(sides), abs=1e-7)  # the side the trend points to
    # by hand: z = 0 halfway, c = 2: the final Z is N(0, 1) -> 1 - Phi(2) = 0.02275 on either side
    assert predictive_power(0.0, 0.5, 2.0) == pytest.approx(0.02275, abs=1e-5)
    assert predictive_power(2.5, 1.0, 2.0) == 1.0 and predictive_power(1.0, 1.0, 2.0) == 0.0


def test_the_rule_stops_for_futility_exactly_where_predictive_power_drops_below_the_threshold() -> None:
    diffs = [1.0, -1.0, 0.0, 0.0] * 10  # z = 0 at every look of 40 problems
    bounds = TREND.boundaries(40, 1)
    powers = [predictive_power(0.0, n / 40, bounds[-1]) for n in TREND.look_sizes(40)[:-1]]
    first_low = next(k for k, p in enumerate(powers, start=1) if p < 0.04)
    got = first_stop(diffs, design=TREND, mdd=0.2)
    assert got.decision == FUTILITY and got.look == first_low
    assert got.conditional_power == pytest.approx(powers[first_low - 1])
    # the old rule judges the same data by conditional power at the MDD, another figure
    old = first_stop(diffs, design=OLD, mdd=0.2)
    assert old.conditional_power != pytest.approx(predictive_power(0.0, old.problems / 40, OLD.boundaries(40, 1)[-1]))


def test_an_interval_after_one_agreeing_problem_is_not_zero_wide() -> None:
    got = look([0.0], design=SequentialDesign(looks=10), planned=1, mdd=0.2)
    assert got.ci_low < 0 < got.ci_high
    early = look([0.0] * 3, design=SequentialDesign(looks=10), planned=30, mdd=0.2)
    assert early.decision == CONTINUE and early.ci_high - early.ci_low > 0.5
    state = {"baseline": "single-oneshot", "mdd": 0.2, "saved_trials": 0, "stopped": False, "rule": "hsd-trend",
             "look_sizes": [1, 2, 3], "looks_asked": 10, "planned_problems": 3,
             "arms": {"multi-full": {"looks": [early.as_dict()], "decision": "continue"}}}
    head, line = describe(state)
    assert "[+0.0 pp, +0.0 pp]" not in line and "3 looks (10 asked" in head
    stored = dict(early.as_dict(), ci_low=0.0, ci_high=0.0)  # a look stored before the floor
    _, line = describe(state | {"arms": {"multi-full": {"looks": [stored], "decision": "continue"}}})
    assert "+0.0 pp, +0.0 pp" not in line and "no repeated 95% CI yet" in line


def test_plan_text_says_why_looks_are_fewer_and_never_quotes_an_undetectable_difference() -> None:
    three = plan_text(3, 1, 0.5, SequentialDesign(looks=10), 1)
    assert three.startswith("Sequential: 3 looks (10 asked: with 3 problems a look can come at most once per problem)")
    one = plan_text(1, 1, 0.5, SequentialDesign(looks=10), 1)
    assert "50.0 pp" not in one and "power" not in one and "at least 2 problems" in one
    small = plan_text(3, 1, 0.5, SequentialDesign(looks=10), 1)
    assert "50.0 pp" not in small and "power 0% against 0%" not in small
    assert "No improvement is detectable" in small
    usual = plan_text(30, 5, 0.5, SequentialDesign(looks=10), 1)
    assert usual.startswith("Sequential: 10 looks, each of 1 comparison against the first condition at level 0.05/1")
    assert "power" in usual and "pp and" in usual


def test_a_stored_plan_without_a_rule_replays_under_the_old_rule(sqlite_store) -> None:
    spec = BatchSpec(benchmark="toy", conditions=["single-oneshot", "single-retry"], seeds=[0],
                     sequential=SequentialDesign(looks=5, rule="obf-mdd"))
    config = {"batch": spec.model_dump(mode="json")}
    del config["batch"]["sequential"]["rule"]  # what a batch stored before rules had names holds
    config["batch"]["sequential"]["futility"] = 0.1
    run_id = sqlite_store.create_run("batch", "old plan", config)
    stored = batch_spec_of(sqlite_store.get_run(run_id))
    assert stored.sequential is not None and stored.sequential.rule == "obf-mdd"
    diffs = [1.0, 0.0, 0.0, 1.0, -1.0] * 4
    assert first_stop(diffs, design=stored.sequential, mdd=0.2) == first_stop(diffs, design=OLD, mdd=0.2)
    fresh = {"batch": BatchSpec(benchmark="toy", conditions=["single-oneshot", "single-retry"], seeds=[0],
                                sequential=SequentialDesign()).model_dump(mode="json")}
    assert batch_spec_of(sqlite_store.get_run(sqlite_store.create_run("batch", "new", fresh))).sequential.rule == \
        "hsd-trend"


def test_interim_looks_are_half_continuity_corrected_and_the_final_look_is_the_full_data_test() -> None:
    # S = 2, sum d^2 = 4, the smallest |d| is 1: (2 - 0.5) / 2 = 0.75 (McNemar's z with half the usual correction)
    assert corrected_z([1.0, 1.0, 1.0, -1.0, 0.0], half_step([1.0, 1.0, 1.0, -1.0, 0.0])) == pytest.approx(0.75)
    assert half_step([0.0, 0.4, -0.2]) == pytest.approx(0.1) and half_step([0.0]) == 0.0
    diffs = [1.0, 1.0, 0.0, 1.0, -1.0, 1.0, 0.0, 1.0, 1.0, 0.0] * 2
    interim = look(diffs[:8], design=TREND, planned=20, mdd=0.2)
    assert interim.z == pytest.approx((4 - 0.5) / math.sqrt(6))
    final = look(diffs, design=TREND, planned=20, mdd=0.2)
    assert final.z == pytest.approx(score_z(diffs)) and final.conditional_power is None
    old = look(diffs[:8], design=OLD, planned=20, mdd=0.2)
    assert old.z == pytest.approx(score_z(diffs[:8]))  # the old rule is unchanged
