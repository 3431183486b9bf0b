"""How long a batch has left, from what its trials cost: per condition, with a range. Pure arithmetic.

A one-shot trial costs a fraction of a multi-agent one, so one rate for the whole run
misleads, worst of all at the start. Each condition's mean trial duration is learnt from
the trials this run finished, with earlier runs of the same models and condition as a
prior worth at most `PRIOR_WEIGHT` trials (this machine may be busier today). Then

    remaining = sum over conditions of (trials left x mean) / concurrency,

where a trial in flight counts for its mean less what it already ran. The range adds the
spread of single trials and the doubt about each mean (wide after one trial, narrow after
many; Student's t where a spread was learnt from a few trials). A condition nobody has
timed yet borrows the mean of the timed ones, and the estimate says it is rough.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

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

    @classmethod
    def of(cls, seconds: Sequence[float]) -> Durations:
        return cls(float(len(seconds)), float(sum(seconds)), float(sum(s * s for s in seconds)))

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
        return Durations(self.n + other.n, self.total + other.total, self.squares + other.squares)

    def weighted(self, weight: float) -> Durations:
        """The same mean and spread, counted as `weight` trials (how a prior is folded in)."""
        if not self.n:
            return self
        f = weight / self.n
        return Durations(weight, self.total * f, self.squares * f)


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
    """Seconds left, a 90% range, and what it rests on (`this run`, `earlier runs`, both, or `rough`)."""

    seconds: float
    low: float
    high: float
    basis: str

    def describe(self) -> str:
        """`about 4 min 10 s (3 min 02 s to 5 min 40 s)`, `rough:` in front when guessed in part."""
        rough = "rough: " if self.basis == "rough" else ""
        return f"{rough}{self.about()} ({self.span()})"

    def about(self) -> str:
        """`about 4 min 10 s`."""
        from execugraph.providers.outages import format_duration

        return f"about {format_duration(self.seconds)}"

    def span(self) -> str:
        """`3 min 02 s to 5 min 40 s`: the 90% range."""
        from execugraph.providers.outages import format_duration

        return f"{format_duration(self.low)} to {format_duration(self.high)}"

    def as_json(self) -> dict[str, float | str]:
        return {"seconds": round(self.seconds, 1), "low_s": round(self.low, 1), "high_s": round(self.high, 1),
                "basis": self.basis}


@dataclass(frozen=True)
class Cost:
    """One condition's learnt mean and spread, and how many trials (`weight`) they rest on."""

    mean: float
    sd: float
    weight: float


def learn(observed: Mapping[str, Durations], history: Mapping[str, Durations],
          conditions: Sequence[str]) -> tuple[dict[str, Cost], str] | None:
    """Each condition's cost, and the basis word; None when nothing at all has been timed."""
    costs: dict[str, Cost] = {}
    used_run = used_history = False
    for c in conditions:
        mine, prior = observed.get(c, Durations()), history.get(c, Durations())
        pooled = mine + prior.weighted(min(prior.n, PRIOR_WEIGHT))
        if pooled.n:
            costs[c] = Cost(pooled.mean, pooled.sd, pooled.n)
            used_run |= bool(mine.n)
            used_history |= bool(prior.n)
    if not costs:
        return None
    basis = "this run and earlier runs" if used_run and used_history else "this run" if used_run else "earlier runs"
    missing = [c for c in conditions if c not in costs]
    if missing:
        borrowed = sum(cost.mean for cost in costs.values()) / len(costs)
        for c in missing:
            costs[c] = Cost(borrowed, GUESSED_CV * borrowed, 1.0)
        basis = "rough"
    return costs, basis


def estimate(left: Mapping[str, Left], observed: Mapping[str, Durations], history: Mapping[str, Durations],
             concurrency: int) -> Estimate | None:
    """Time until every trial in `left` has finished, `concurrency` at a time; None with nothing timed."""
    wanted = [c for c, rest in left.items() if rest.trials]
    if not wanted:
        return Estimate(0.0, 0.0, 0.0, "this run")
    learnt = learn(observed, history, wanted)
    if learnt is None:
        return None
    costs, basis = learnt
    work = variance = longest = 0.0
    for c in wanted:
        rest, cost = left[c], costs[c]
        in_flight = [max(cost.mean - ran, 0.0) for ran in rest.running]
        work += rest.queued * cost.mean + sum(in_flight)
        sd = cost.sd * quantile(cost.weight) / Z  # each condition's doubt scaled to its own t quantile
        variance += rest.trials * sd**2 + (rest.trials * sd) ** 2 / cost.weight
        longest = max([longest, *in_flight, cost.mean if rest.queued else 0.0])
    lanes = max(1, min(concurrency, sum(left[c].trials for c in wanted)))
    seconds = max(work / lanes, longest)
    spread = Z * math.sqrt(variance) / lanes
    return Estimate(seconds, max(seconds - spread, 0.0), seconds + spread, basis)


def finishing(running: Mapping[str, Sequence[float]], observed: Mapping[str, Durations],
              history: Mapping[str, Durations]) -> Estimate | None:
    """After a cancel: time until the trials in flight (their elapsed seconds, per condition) end."""
    wanted = [c for c, ran in running.items() if ran]
    if not wanted:
        return Estimate(0.0, 0.0, 0.0, "this run")
    learnt = learn(observed, history, wanted)
    if learnt is None:
        return None
    costs, basis = learnt
    mid = low = high = 0.0
    for c in wanted:
        cost = costs[c]
        doubt = quantile(cost.weight) * math.sqrt(cost.sd**2 + cost.sd**2 / cost.weight)
        for ran in running[c]:
            mid = max(mid, cost.mean - ran)
            low = max(low, cost.mean - doubt - ran)
            high = max(high, cost.mean + doubt - ran)
    return Estimate(max(mid, 0.0), max(low, 0.0), max(high, 0.0), basis)
