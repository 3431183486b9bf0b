"""How long a batch has left, from what its trials cost: per condition, with a range. Pure arithmetic.

A one-shot trial costs a fraction of a multi-agent one, so one rate for the whole run
misleads, worst of all at the start. Each condition's mean trial duration is learnt from
the trials this run finished, with earlier runs of the same models and condition as a
prior worth at most `PRIOR_WEIGHT` trials (this machine may be busier today). Then

    remaining = sum over conditions of (trials left x mean) / concurrency + the lanes' uneven end,

where a trial in flight counts for its mean less what it already ran. The range adds the
spread of single trials and the doubt about each mean (wide after one trial, narrow after
many; Student's t where a spread was learnt from a few trials). A condition nobody has
timed yet makes the estimate a floor only (`at least ...`, naming it).

A trial in flight that already ran longer than its condition's mean is evidence that the mean
is too low: it counts as a duration of at least what it ran (censored), so the estimate grows
while it runs instead of staying flat and then jumping, and it has half a spread left, not nothing.
The lower end is never below what the trials left must take at each condition's fastest observed
duration, and no estimate is given ("estimating...") until `MIN_FINISHED` trials of this run
finished (unless earlier runs timed every condition left).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

MIN_FINISHED = 3  # finished trials of this run before an estimate is given ("estimating..." until then)
PRIOR_WEIGHT = 5.0  # earlier runs count as at most this many of this run's trials
GUESSED_CV = 1.0  # spread (sd / mean) assumed where fewer than two durations are known
Z = 1.645  # the range is a 90% interval under a normal approximation
# Student's t, 95th percentile, by degrees of freedom: a spread learnt from few trials is itself uncertain
T95 = {1: 6.314, 2: 2.920, 3: 2.353, 4: 2.132, 5: 2.015, 6: 1.943, 7: 1.895, 8: 1.860, 9: 1.833, 10: 1.812,
       15: 1.753, 20: 1.725, 30: 1.697, 60: 1.671}


def quantile(weight: float) -> float:
    """The multiplier of a 90% range from a spread learnt on `weight` trials (t with weight - 1 df)."""
    df = int(weight) - 1
    if df < 1:
        return Z  # the spread was guessed, not learnt
    known = [d for d in T95 if d <= df]
    return T95[max(known)] if df <= 60 else Z


@dataclass(frozen=True)
class Durations:
    """Sufficient statistics of some trial durations (seconds): count, sum and sum of squares."""

    n: float = 0.0
    total: float = 0.0
    squares: float = 0.0
    fastest: float = math.inf  # the shortest duration seen (inf: none)

    @classmethod
    def of(cls, seconds: Sequence[float]) -> Durations:
        return cls(float(len(seconds)), float(sum(seconds)), float(sum(s * s for s in seconds)),
                   min(seconds, default=math.inf))

    @property
    def mean(self) -> float:
        return self.total / self.n if self.n else 0.0

    @property
    def sd(self) -> float:
        """Sample spread; GUESSED_CV x mean where fewer than two durations are known."""
        if self.n < 2:
            return GUESSED_CV * self.mean
        var = (self.squares - self.n * self.mean**2) / (self.n - 1)
        return math.sqrt(max(var, 0.0))

    def __add__(self, other: Durations) -> Durations:
        return Durations(self.n + other.n, self.total + other.total, self.squares + other.squares,
                         min(self.fastest, other.fastest))

    def weighted(self, weight: float) -> Durations:
        """The same mean and spread, counted as `weight` trials (how a prior is folded in)."""
        if not self.n:
            return self
        f = weight / self.n
        return Durations(weight, self.total * f, self.squares * f, self.fastest)

    def censored(self, ran: Sequence[float]) -> Durations:
        """With trials still running past the mean counted as having taken what they ran so far."""
        over = [r for r in ran if self.n and r > self.mean]
        return self + Durations.of(over) if over else self


@dataclass(frozen=True)
class Left:
    """What one condition still has to run: trials not started, and how long each one in flight has run."""

    queued: int = 0
    running: tuple[float, ...] = field(default_factory=tuple)

    @property
    def trials(self) -> int:
        return self.queued + len(self.running)


@dataclass(frozen=True)
class Estimate:
    """Seconds left, a 90% range, and what it rests on (`this run`, `earlier runs`, or both)."""

    seconds: float
    low: float
    high: float
    basis: str
    untimed: tuple[str, ...] = ()  # conditions with trials left that nothing timed: `seconds` is only a floor

    def describe(self) -> str:
        """`about 4 min 10 s (3 min 02 s to 5 min 40 s)`, or `at least 3 min 02 s (multi-full not timed yet)`."""
        if self.untimed:
            from execugraph.providers.outages import format_duration

            return f"at least {format_duration(self.low)} ({', '.join(self.untimed)} not timed yet)"
        return f"{self.about()} ({self.span()})"

    def about(self) -> str:
        """`about 4 min 10 s`."""
        from execugraph.providers.outages import format_duration

        return f"about {format_duration(self.seconds)}"

    def span(self) -> str:
        """`3 min 02 s to 5 min 40 s`: the 90% range."""
        from execugraph.providers.outages import format_duration

        return f"{format_duration(self.low)} to {format_duration(self.high)}"

    def as_json(self) -> dict[str, float | str | list[str]]:
        out: dict[str, float | str | list[str]] = {"seconds": round(self.seconds, 1), "low_s": round(self.low, 1),
                                                   "high_s": round(self.high, 1), "basis": self.basis}
        if self.untimed:
            out["untimed"] = list(self.untimed)
        return out


@dataclass(frozen=True)
class Cost:
    """One condition's learnt mean and spread, and how many trials (`weight`) they rest on."""

    mean: float
    sd: float
    weight: float
    fastest: float  # the shortest duration seen of this condition (here, or in earlier runs)


def learn(observed: Mapping[str, Durations], history: Mapping[str, Durations],
          conditions: Sequence[str], running: Mapping[str, Sequence[float]] | None = None,
          ) -> tuple[dict[str, Cost], str, tuple[str, ...]] | None:
    """Each condition's cost, the basis word and the conditions nothing timed; None when nothing at all was timed.

    An untimed condition is costed at the fastest duration seen of any condition (the floor it must take at least).
    """
    costs: dict[str, Cost] = {}
    used_run = used_history = False
    for c in conditions:
        mine, prior = observed.get(c, Durations()), history.get(c, Durations())
        pooled = mine + prior.weighted(min(prior.n, PRIOR_WEIGHT))
        if pooled.n:
            pooled = pooled.censored((running or {}).get(c, ()))
            costs[c] = Cost(pooled.mean, pooled.sd, pooled.n, pooled.fastest)
            used_run |= bool(mine.n)
            used_history |= bool(prior.n)
    if not costs:
        return None
    basis = "this run and earlier runs" if used_run and used_history else "this run" if used_run else "earlier runs"
    missing = tuple(c for c in conditions if c not in costs)
    if missing:
        floor = min(cost.fastest for cost in costs.values())
        for c in missing:
            costs[c] = Cost(floor, GUESSED_CV * floor, 1.0, floor)
    return costs, basis, missing


def residual(cost: Cost, ran: float) -> float:
    """What a trial in flight for `ran` seconds has left: its mean less what it ran, and half a spread once past it."""
    return max(cost.mean - ran, cost.sd / 2)


def enough_timed(observed: Mapping[str, Durations], history: Mapping[str, Durations],
                 conditions: Sequence[str]) -> bool:
    """`MIN_FINISHED` trials of this run finished, or earlier runs timed every condition in `conditions`."""
    finished = sum(d.n for d in observed.values())
    return finished >= MIN_FINISHED or all(history.get(c, Durations()).n for c in conditions)


def estimate(left: Mapping[str, Left], observed: Mapping[str, Durations], history: Mapping[str, Durations],
             concurrency: int) -> Estimate | None:
    """Time until every trial in `left` has finished, `concurrency` at a time; None while estimating (nothing
    timed, or fewer than `MIN_FINISHED` trials of this run finished and earlier runs do not cover what is left)."""
    wanted = [c for c, rest in left.items() if rest.trials]
    if not wanted:
        return Estimate(0.0, 0.0, 0.0, "this run")
    if not enough_timed(observed, history, wanted):
        return None
    learnt = learn(observed, history, wanted, {c: left[c].running for c in wanted})
    if learnt is None:
        return None
    costs, basis, untimed = learnt
    work = variance = longest = least = least_one = 0.0
    for c in wanted:
        rest, cost = left[c], costs[c]
        in_flight = [residual(cost, ran) for ran in rest.running]
        work += rest.queued * cost.mean + sum(in_flight)
        fast = [max(cost.fastest - ran, 0.0) for ran in rest.running]
        least += rest.queued * cost.fastest + sum(fast)
        least_one = max([least_one, *fast, cost.fastest if rest.queued else 0.0])
        sd = cost.sd * quantile(cost.weight) / Z  # each condition's doubt scaled to its own t quantile
        variance += rest.trials * sd**2 + (rest.trials * sd) ** 2 / cost.weight
        longest = max([longest, *in_flight, cost.mean if rest.queued else 0.0])
    lanes = max(1, min(concurrency, sum(left[c].trials for c in wanted)))
    floor = max(least / lanes, least_one)  # what is left takes at least this at the fastest durations seen
    # the lanes do not all end together: while the last trials run, the others idle (about half a trial each)
    tail = (1 - 1 / lanes) * max(costs[c].mean for c in wanted) / 2
    seconds = max(work / lanes + tail, longest, floor)
    spread = Z * math.sqrt(variance) / lanes
    if untimed:
        return Estimate(floor, floor, seconds + spread, basis, untimed)
    return Estimate(seconds, max(seconds - spread, floor), seconds + spread, basis)


def finishing(running: Mapping[str, Sequence[float]], observed: Mapping[str, Durations],
              history: Mapping[str, Durations]) -> Estimate | None:
    """After a cancel: time until the trials in flight (their elapsed seconds, per condition) end."""
    wanted = [c for c, ran in running.items() if ran]
    if not wanted:
        return Estimate(0.0, 0.0, 0.0, "this run")
    learnt = learn(observed, history, wanted, running)
    if learnt is None:
        return None
    costs, basis, _ = learnt
    mid = low = high = 0.0
    for c in wanted:
        cost = costs[c]
        doubt = quantile(cost.weight) * math.sqrt(cost.sd**2 + cost.sd**2 / cost.weight)
        for ran in running[c]:
            mid = max(mid, cost.mean - ran)
            low = max(low, cost.mean - doubt - ran)
            high = max(high, cost.mean + doubt - ran)
    return Estimate(max(mid, 0.0), max(low, 0.0), max(high, 0.0), basis)
