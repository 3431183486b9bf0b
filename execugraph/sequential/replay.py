"""What a sequential design would have done on a finished paired study: the batch's rule in many orders.

A finished study fixes every problem's difference; only the order the problems would have run in
is random (the paired order shuffles them). Replaying the rule over N random orders gives the
share of orders whose decision matches the full-data test (`agreement`), the trials it would have
used, and, with every problem's sign flipped at random (the arms' labels swapped, an A/A study),
how often it would have claimed a difference that is not there (`type1_error`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np
from scipy.stats import norm

from execugraph.sequential.design import SequentialDesign
from execugraph.sequential.rule import EFFICACY, first_stop, score_z


@dataclass(frozen=True)
class Replay:
    """The replay's figures; `stops` counts each decision over the orders."""

    problems: int
    orders: int
    looks: int
    mdd: float
    full_delta: float
    full_z: float
    full_significant: bool
    agreement: float
    mean_trials_fraction: float
    mean_stop_look: float
    type1_error: float
    stops: dict[str, int]

    def as_dict(self) -> dict:
        return asdict(self)


def replay(
    diffs: Sequence[float], trials: Sequence[int], *, design: SequentialDesign, mdd: float, orders: int = 200,
    seed: int = 0,
) -> Replay:
    """Replay `design` over `orders` random orders of the problems (difference and trial count each)."""
    n = len(diffs)
    if n < 2:
        raise ValueError(f"a replay needs at least 2 paired problems, got {n}")
    if len(trials) != n:
        raise ValueError("one trial count per problem is needed")
    if orders < 1:
        raise ValueError(f"orders must be at least 1, got {orders}")
    values = np.asarray(diffs, dtype=float)
    weights = np.asarray(trials, dtype=float)
    full_z = score_z(values.tolist())
    significant = abs(full_z) >= norm.ppf(1 - design.alpha / 2)
    rng = np.random.default_rng(seed)
    agree = 0
    used = looks = 0.0
    false = 0
    stops: dict[str, int] = {}
    for _ in range(orders):
        order = rng.permutation(n)
        stop = first_stop(values[order].tolist(), design=design, mdd=mdd)
        stops[stop.decision] = stops.get(stop.decision, 0) + 1
        agree += (stop.decision == EFFICACY) == significant
        used += float(weights[order[: stop.problems]].sum() / weights.sum())
        looks += stop.look
        flipped = values[order] * rng.choice([-1.0, 1.0], size=n)
        false += first_stop(flipped.tolist(), design=design, mdd=mdd).decision == EFFICACY
    return Replay(n, orders, len(design.look_sizes(n)), mdd, float(values.mean()), full_z, bool(significant),
                  agree / orders, used / orders, looks / orders, false / orders, stops)
