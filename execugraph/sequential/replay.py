"""What a sequential design would have done on a finished paired study: the batch's rule in many orders.

A finished study fixes every problem's difference; only the order the problems would have run in
is random (the paired order shuffles them). Replaying the rule over N random orders gives the
share of orders whose decision matches the full-data test (`agreement`), the trials it would have
used, and, with every problem's sign flipped at random (the arms' labels swapped, an A/A study),
how often it would have claimed a difference that is not there (`type1_error`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

import numpy as np
from scipy.stats import norm

from execugraph.sequential.design import SequentialDesign
from execugraph.sequential.rule import EFFICACY, first_stop, score_z

if TYPE_CHECKING:
    from execugraph.store import Store


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


def arm_rates(store: Store, arm: str) -> tuple[str, dict[str, tuple[float, int]]]:
    """(label, problem -> (mean pass rate, finished trials)) of `RUN` or `RUN:CONDITION`; ValueError if unclear."""
    run_text, _, condition = arm.partition(":")
    try:
        run_id = int(run_text)
    except ValueError:
        raise ValueError(f"bad arm {arm!r}: use RUN or RUN:CONDITION, e.g. 4 or 4:multi-full") from None
    if store.get_run(run_id) is None:
        raise ValueError(f"run {run_id} does not exist")
    trials = [t for t in store.trials_for_run(run_id) if t.status in ("done", "error")]
    conditions = sorted({t.condition for t in trials})
    if condition:
        if condition not in conditions:
            raise ValueError(f"run {run_id} has no finished trials of {condition!r} (it has {', '.join(conditions)})")
    elif len(conditions) > 1:
        raise ValueError(f"run {run_id} has {len(conditions)} conditions ({', '.join(conditions)}): "
                         f"name one, e.g. {run_id}:{conditions[0]}")
    elif not conditions:
        raise ValueError(f"run {run_id} has no finished trials")
    else:
        condition = conditions[0]
    passes: dict[str, list[bool]] = defaultdict(list)
    for t in trials:
        if t.condition == condition:
            passes[t.problem_id].append(t.status == "done" and bool(t.passed))
    return f"{run_id}:{condition}", {p: (sum(v) / len(v), len(v)) for p, v in passes.items()}


def replay_runs(store: Store, arm_a: str, arm_b: str, *, design: SequentialDesign, orders: int = 200,
                seed: int = 0) -> tuple[tuple[str, str], Replay]:
    """Replay `design` on two stored arms (`RUN` or `RUN:CONDITION`), paired on the problems both finished."""
    (label_a, a), (label_b, b) = arm_rates(store, arm_a), arm_rates(store, arm_b)
    common = sorted(set(a) & set(b))
    per_arm = max(1, round(sum(a[p][1] for p in common) / max(1, len(common))))
    mdd = design.resolved_mdd(len(common), per_arm)
    result = replay([b[p][0] - a[p][0] for p in common], [a[p][1] + b[p][1] for p in common],
                    design=design, mdd=mdd, orders=orders, seed=seed)
    return (label_a, label_b), result
