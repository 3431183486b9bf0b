"""The sequential rule (`execugraph.sequential`): looks, boundaries, decisions, intervals and p-values agree."""

from __future__ import annotations

import math

import numpy as np
import pytest

from execugraph.sequential.design import SequentialDesign
from execugraph.sequential.rule import (
    EFFICACY,
    FUTILITY,
    NOT_SIGNIFICANT,
    conditional_power,
    first_stop,
    look,
    repeated_p,
    score_z,
    with_p,
)
from execugraph.sequential.summary import describe


def test_looks_fall_at_equal_shares_of_the_problems_and_end_at_all_of_them() -> None:
    design = SequentialDesign(looks=10)
    assert design.look_sizes(30) == [3, 6, 9, 12, 15, 18, 21, 24, 27, 30]
    assert design.look_sizes(7) == [1, 2, 3, 4, 5, 6, 7]  # fewer problems than looks: a look per problem
    assert design.look_sizes(164)[-1] == 164 and len(design.look_sizes(164)) == 10
    with pytest.raises(ValueError, match="not a planned look"):
        look([0.0] * 4, design=design, planned=30, mdd=0.2)


def test_bonferroni_splits_the_level_over_the_comparisons() -> None:
    design = SequentialDesign(looks=5)
    one, three = design.boundaries(20, 1), design.boundaries(20, 3)
    assert all(b3 > b1 for b1, b3 in zip(one, three, strict=True))
    assert three == pytest.approx(SequentialDesign(looks=5, alpha=0.05 / 3).boundaries(20, 1))


def test_the_score_statistic_is_mcnemars_z_with_one_trial_and_finite_when_every_difference_agrees() -> None:
    diffs = [1, 1, 1, -1, 0, 0, 1]
    assert score_z(diffs) == pytest.approx((4 - 1) / math.sqrt(4 + 1))  # (b - c) / sqrt(b + c)
    assert score_z([1.0] * 9) == pytest.approx(3.0) and score_z([0.0] * 5) == 0.0


def test_efficacy_the_interval_and_the_p_value_agree_at_every_look() -> None:
    design = SequentialDesign(looks=5)
    rng = np.random.default_rng(3)
    for _ in range(12):
        diffs = rng.choice([-1.0, 0.0, 1.0], p=[0.1, 0.5, 0.4], size=20).tolist()
        for size in design.look_sizes(20):
            got = with_p(look(diffs[:size], design=design, planned=20, mdd=0.3), design)
            crossed = got.decision == EFFICACY
            assert crossed == (got.ci_low > 0 or got.ci_high < 0)
            assert crossed == (got.p_repeated <= design.alpha + 1e-9), got
            assert got.ci_low <= got.delta <= got.ci_high


def test_the_repeated_p_value_is_the_level_at_which_the_look_would_just_stop() -> None:
    design = SequentialDesign(looks=4)
    got = look([1.0] * 10 + [0.0] * 6 + [-1.0] * 2 + [0.0] * 2, design=design, planned=20, mdd=0.2)
    p = repeated_p(got, design)
    at_p = SequentialDesign(looks=4, alpha=p).boundaries(20, 1)[got.look - 1]
    assert at_p == pytest.approx(abs(got.z), abs=1e-6)
    assert repeated_p(got, design, comparisons=2) == pytest.approx(min(1.0, 2 * p), rel=1e-4)


def test_conditional_power_follows_the_brownian_motion_formula() -> None:
    # B(t) = z sqrt(t); P(B(1) >= b) with drift theta: 1 - Phi((b - B(t) - theta (1 - t)) / sqrt(1 - t))
    from scipy.stats import norm

    z, t, b, theta = 1.2, 0.5, 2.0, 2.5
    expected = norm.sf((b - z * math.sqrt(t) - theta * (1 - t)) / math.sqrt(1 - t))
    assert conditional_power(z, t, b, theta) == pytest.approx(max(expected, norm.cdf(
        (-b - z * math.sqrt(t) + theta * (1 - t)) / math.sqrt(1 - t))))
    assert conditional_power(3.0, 1.0, 2.0, 1.0) == 1.0 and conditional_power(1.0, 1.0, 2.0, 1.0) == 0.0


def test_the_final_look_decides_and_futility_never_comes_at_it() -> None:
    design = SequentialDesign(looks=3, futility=0.0)
    got = first_stop([1.0, -1.0] * 6, design=design, mdd=0.2)
    assert got.look == 3 and got.decision == NOT_SIGNIFICANT and got.conditional_power is None
    stopped = first_stop([0.0] * 30, design=SequentialDesign(looks=10), mdd=0.2)
    assert stopped.decision == FUTILITY and stopped.look < 10


def test_a_state_reads_as_sentences() -> None:
    design = SequentialDesign(looks=5)
    got = with_p(first_stop([1.0] * 20, design=design, mdd=0.2), design)
    state = {"baseline": "single-oneshot", "mdd": 0.2, "saved_trials": 16, "stopped": True,
             "arms": {"multi-full": {"looks": [got.as_dict()], "decision": got.decision, "stopped_at_look": got.look}}}
    head, line = describe(state)
    assert head == f"sequential: stopped at look {got.look} of 5, every comparison decided; 16 trials saved"
    assert line.startswith("multi-full vs single-oneshot: differs, decided at look") and "+100.0 pp" in line
    assert "repeated 95% CI" in line and "adjusted p = " in line
    assert describe(None) == []
