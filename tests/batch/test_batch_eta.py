"""The batch ETA (`execugraph.batch.eta`) on hand-built trial durations."""

from __future__ import annotations

import math
import random
import statistics

import pytest

from execugraph.batch.eta import MIN_FINISHED, PRIOR_WEIGHT, Durations, Left, estimate, finishing

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
    # half the work, plus half the dearest trial: while the last trial runs the other lane idles
    assert one is not None and two is not None and two.seconds == pytest.approx(one.seconds / 2 + 60.0 / 4)
    last = estimate({"multi-full": Left(queued=1)}, observed, {}, concurrency=8)
    assert last is not None and last.seconds == pytest.approx(60.0)  # one trial left takes a whole trial


def test_a_trial_in_flight_counts_for_what_it_has_left() -> None:
    eta = estimate({"multi-full": Left(queued=1, running=(45.0, 50.0))}, {"multi-full": MULTI}, {}, concurrency=1)
    assert eta is not None and eta.seconds == pytest.approx(60.0 + 15.0 + 10.0)


def test_a_trial_running_past_the_mean_raises_the_mean_instead_of_leaving_the_eta_flat() -> None:
    # 90 s in, past the 60 s mean: it counts as a duration of at least 90 s, so the mean becomes (180 + 90) / 4
    eta = estimate({"multi-full": Left(queued=1, running=(45.0, 90.0))}, {"multi-full": MULTI}, {}, concurrency=1)
    half_spread = statistics.stdev([55.0, 60.0, 65.0, 90.0]) / 2  # what a trial past the mean still has left
    assert eta is not None and eta.seconds == pytest.approx(67.5 + 22.5 + half_spread)
    later = estimate({"multi-full": Left(queued=1, running=(75.0, 120.0))}, {"multi-full": MULTI}, {}, concurrency=1)
    assert later is not None and later.seconds > eta.seconds - 30.0  # 30 s passed; the overrun keeps it honest


def test_the_range_narrows_as_trials_are_timed() -> None:
    rng = random.Random(3)
    few = Durations.of([rng.gauss(30, 6) for _ in range(3)])
    many = Durations.of([rng.gauss(30, 6) for _ in range(60)])
    left = {"c": Left(queued=40)}
    wide, narrow = estimate(left, {"c": few}, {}, 1), estimate(left, {"c": many}, {}, 1)
    assert wide is not None and narrow is not None
    assert narrow.high - narrow.low < wide.high - wide.low


@pytest.mark.parametrize("timed", [3, 8])
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


def test_an_untimed_condition_gives_only_a_floor_naming_it_and_nothing_timed_is_no_eta() -> None:
    left = {"single-oneshot": Left(queued=1), "multi-full": Left(queued=1)}
    floor = estimate(left, {"single-oneshot": ONESHOT}, {}, concurrency=1)
    assert floor is not None and floor.untimed == ("multi-full",)
    assert floor.describe() == "at least 18 s (multi-full not timed yet)"  # both at the fastest one-shot, 9 s
    assert floor.low == floor.seconds == pytest.approx(18.0) and floor.high > floor.seconds
    assert floor.as_json()["untimed"] == ["multi-full"]
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
    eta = estimate({"c": Left(queued=10)}, {"c": Durations.of([50.0, 60.0, 70.0])}, {}, concurrency=1)
    assert eta is not None
    assert eta.describe().startswith("about 10 min 00 s (") and " to " in eta.describe()
    assert set(eta.as_json()) == {"seconds", "low_s", "high_s", "basis"}


def test_estimating_until_enough_trials_of_this_run_finished_unless_earlier_runs_timed_everything() -> None:
    left = {"single-oneshot": Left(queued=5), "multi-full": Left(queued=5)}
    two = {"single-oneshot": Durations.of([10.0]), "multi-full": Durations.of([60.0])}
    assert MIN_FINISHED == 3 and estimate(left, two, {}, concurrency=1) is None
    three = {**two, "single-oneshot": Durations.of([10.0, 12.0])}
    assert estimate(left, three, {}, concurrency=1) is not None
    history = {"single-oneshot": Durations.of([11.0] * 5), "multi-full": Durations.of([70.0] * 5)}
    assert estimate(left, {}, history, concurrency=1) is not None


def test_the_low_end_is_never_below_what_is_left_at_the_fastest_durations_seen() -> None:
    # a wild spread would put a normal range's low end at 0 s: the floor is 5 x 2 s + 5 x 40 s, two at a time
    observed = {"single-oneshot": Durations.of([2.0, 30.0, 1.0e-9 + 2.0]), "multi-full": Durations.of([40.0, 400.0])}
    eta = estimate({"single-oneshot": Left(queued=5), "multi-full": Left(queued=5)}, observed, {}, concurrency=2)
    assert eta is not None and eta.low == pytest.approx((5 * 2.0 + 5 * 40.0) / 2, rel=1e-6)
    assert eta.low <= eta.seconds <= eta.high


def _simulated_batch(seed: int) -> tuple[list[float], int, int]:
    """A two-lane batch of cheap and 10x dearer trials, interleaved, run on a simulated clock: the estimate just
    after each trial finishes, and how often its range held the real time left (of how many checks)."""
    rng = random.Random(seed)
    kinds = ["single-oneshot", "multi-full"] * 12
    cost = {"single-oneshot": 6.0, "multi-full": 60.0}
    durations = [rng.lognormvariate(math.log(cost[k]), 0.3) for k in kinds]
    lanes: list[tuple[float, int]] = []  # (end time, trial index)
    start: dict[int, float] = {}
    nxt, clock, ends = 0, 0.0, {}
    while nxt < len(kinds) or lanes:
        while nxt < len(kinds) and len(lanes) < 2:
            start[nxt] = clock
            lanes.append((clock + durations[nxt], nxt))
            nxt += 1
        lanes.sort()
        clock, i = lanes.pop(0)
        ends[i] = clock
    finish_all = max(ends.values())
    seen, covered, checks = [], 0, 0
    for t in sorted(set(ends.values()))[:-1]:  # just after each trial finishes
        done = [i for i, e in ends.items() if e <= t]
        observed = {k: Durations.of([durations[i] for i in done if kinds[i] == k]) for k in cost}
        left = {k: Left(queued=sum(1 for i in range(len(kinds)) if kinds[i] == k and start[i] > t),
                        running=tuple(t - start[i] for i in range(len(kinds))
                                      if kinds[i] == k and start[i] <= t < ends[i])) for k in cost}
        eta = estimate(left, {k: d for k, d in observed.items() if d.n}, {}, concurrency=2)
        if len(done) < MIN_FINISHED:
            assert eta is None  # "estimating..."
            continue
        assert eta is not None and eta.seconds > 0 and (eta.low > 0 or not any(q.queued for q in left.values()))
        seen.append(eta.seconds)
        checks += 1
        covered += eta.low <= finish_all - t <= eta.high
    return seen, covered, checks


def test_on_a_fake_clock_the_estimate_falls_as_trials_finish_and_its_range_holds_the_real_time_left() -> None:
    covered = checks = 0
    for seed in range(30):
        seen, hits, n = _simulated_batch(seed)
        covered, checks = covered + hits, checks + n
        assert seen[-1] < seen[len(seen) // 2] < seen[0], seed  # it falls as trials finish
    assert covered / checks >= 0.8, (covered, checks)
