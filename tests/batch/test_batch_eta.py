"""The batch ETA (`execugraph.batch.eta`) on hand-built trial durations."""

from __future__ import annotations

import random
import statistics

import pytest

from execugraph.batch.eta import PRIOR_WEIGHT, Durations, Left, estimate, finishing

ONESHOT = Durations.of([9.0, 10.0, 11.0])
MULTI = Durations.of([55.0, 60.0, 65.0])


def test_durations_are_sufficient_statistics() -> None:
    values = [3.0, 4.5, 9.0, 1.5]
    d = Durations.of(values)
    assert d.mean == pytest.approx(statistics.mean(values))
    assert d.sd == pytest.approx(statistics.stdev(values))
    assert (Durations.of(values[:2]) + Durations.of(values[2:])).sd == pytest.approx(d.sd)
    assert Durations.of([8.0]).sd == pytest.approx(8.0)  # one duration: the spread is a guess (cv 1)
    assert d.weighted(2.0).mean == pytest.approx(d.mean) and d.weighted(2.0).n == 2.0


def test_each_condition_is_costed_at_its_own_mean() -> None:
    left = {"single-oneshot": Left(queued=4), "multi-full": Left(queued=4)}
    eta = estimate(left, {"single-oneshot": ONESHOT, "multi-full": MULTI}, {}, concurrency=1)
    assert eta is not None and eta.basis == "this run"
    assert eta.seconds == pytest.approx(4 * 10 + 4 * 60)  # not 8 x the 35 s average of the trials seen
    assert eta.low < eta.seconds < eta.high


def test_concurrency_divides_the_work_but_not_below_one_trial() -> None:
    left = {"single-oneshot": Left(queued=4), "multi-full": Left(queued=4)}
    observed = {"single-oneshot": ONESHOT, "multi-full": MULTI}
    one = estimate(left, observed, {}, concurrency=1)
    two = estimate(left, observed, {}, concurrency=2)
    assert one is not None and two is not None and two.seconds == pytest.approx(one.seconds / 2)
    last = estimate({"multi-full": Left(queued=1)}, observed, {}, concurrency=8)
    assert last is not None and last.seconds == pytest.approx(60.0)  # one trial left takes a whole trial


def test_a_trial_in_flight_counts_for_what_it_has_left() -> None:
    eta = estimate({"multi-full": Left(queued=1, running=(45.0, 90.0))}, {"multi-full": MULTI}, {}, concurrency=1)
    assert eta is not None and eta.seconds == pytest.approx(60.0 + 15.0 + 0.0)


def test_the_range_narrows_as_trials_are_timed() -> None:
    rng = random.Random(3)
    few = Durations.of([rng.gauss(30, 6) for _ in range(3)])
    many = Durations.of([rng.gauss(30, 6) for _ in range(60)])
    left = {"c": Left(queued=40)}
    wide, narrow = estimate(left, {"c": few}, {}, 1), estimate(left, {"c": many}, {}, 1)
    assert wide is not None and narrow is not None
    assert narrow.high - narrow.low < wide.high - wide.low


@pytest.mark.parametrize("timed", [2, 8])
def test_the_range_covers_the_truth_about_nine_times_in_ten(timed: int) -> None:
    rng = random.Random(11)
    covered, reps = 0, 400
    for _ in range(reps):
        seen = Durations.of([rng.lognormvariate(3.0, 0.4) for _ in range(timed)])
        truth = sum(rng.lognormvariate(3.0, 0.4) for _ in range(30))
        eta = estimate({"c": Left(queued=30)}, {"c": seen}, {}, concurrency=1)
        assert eta is not None
        covered += eta.low <= truth <= eta.high
    assert 0.82 <= covered / reps <= 0.97, covered / reps


def test_earlier_runs_give_an_eta_before_any_trial_finished_and_a_prior_after() -> None:
    history = {"single-oneshot": Durations.of([12.0] * 40), "multi-full": Durations.of([80.0] * 40)}
    left = {"single-oneshot": Left(queued=2), "multi-full": Left(queued=2)}
    before = estimate(left, {}, history, concurrency=1)
    assert before is not None and before.basis == "earlier runs"
    assert before.seconds == pytest.approx(2 * 12 + 2 * 80)
    # one trial here at 40 s against a prior worth PRIOR_WEIGHT trials at 80 s
    after = estimate(left, {"multi-full": Durations.of([40.0])}, history, concurrency=1)
    assert after is not None and after.basis == "this run and earlier runs"
    multi = (40.0 + PRIOR_WEIGHT * 80.0) / (1 + PRIOR_WEIGHT)
    assert after.seconds == pytest.approx(2 * 12 + 2 * multi)


def test_an_untimed_condition_borrows_and_says_rough_and_nothing_timed_is_no_eta() -> None:
    left = {"single-oneshot": Left(queued=1), "multi-full": Left(queued=1)}
    rough = estimate(left, {"single-oneshot": ONESHOT}, {}, concurrency=1)
    assert rough is not None and rough.basis == "rough" and rough.describe().startswith("rough: about")
    assert rough.seconds == pytest.approx(20.0)
    assert estimate(left, {}, {}, concurrency=1) is None
    done = estimate({"single-oneshot": Left()}, {}, {}, concurrency=1)
    assert done is not None and done.seconds == 0.0


def test_finishing_after_a_cancel_is_the_longest_trial_in_flight() -> None:
    left = finishing({"single-oneshot": [2.0], "multi-full": [20.0, 50.0]}, {"single-oneshot": ONESHOT,
                     "multi-full": MULTI}, {})
    assert left is not None and left.seconds == pytest.approx(40.0)  # the multi-agent trial 20 s in
    assert left.low <= left.seconds <= left.high
    assert finishing({}, {}, {}) is not None and finishing({"c": [1.0]}, {}, {}) is None


def test_describe_and_json() -> None:
    eta = estimate({"c": Left(queued=10)}, {"c": Durations.of([50.0, 70.0])}, {}, concurrency=1)
    assert eta is not None
    assert eta.describe().startswith("about 10 min 00 s (") and " to " in eta.describe()
    assert set(eta.as_json()) == {"seconds", "low_s", "high_s", "basis"}
