"""The order a batch's trials run in, and whether its finished part is a paired sample.

Trials are claimed in id order (`store.leases.claim_trial`) and ids follow the order
they were queued in (`store.trial_queue`), so queueing the grid problem by problem
(`BatchSpec.trial_keys`) is all it takes for workers to run it that way, resumed or not.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Iterable
from typing import Any, TypedDict


def shuffled(items: list[Any], seed: int) -> list[Any]:
    """`items` in a random order that depends only on `seed` and the items' given order.

    Only the problems are shuffled: within a problem the conditions keep the order they were
    listed in, so every listing that orders conditions by their first trial shows the launch order.
    """
    out = list(items)
    random.Random(seed).shuffle(out)
    return out


class OrderRecord(TypedDict):
    """The `order` a batch run's config records."""

    kind: str  # "paired" or "condition-major" (`BatchSpec.order`)
    seed: int  # the seed the problem order was shuffled with
    problems: list[str]  # problem ids in the order they run


def order_record(spec: Any, problems: list[Any]) -> OrderRecord:
    """What the run config records of its order: the kind, the seed and the problems as they run."""
    return {"kind": spec.order, "seed": spec.resolved_order_seed(),
            "problems": [p.id for p in spec.problem_order(problems)]}


def pairing(trials: Iterable[Any], arms: int) -> tuple[int, int]:
    """(problems with every one of their `arms` trials finished, problems with some but not all).

    A trial counts as finished when its status is done or error; what is left of a cancelled
    batch is a paired sample when the second number is 0.
    """
    finished: dict[str, int] = defaultdict(int)
    for trial in trials:
        finished[trial.problem_id] += trial.status in ("done", "error")
    complete = sum(1 for n in finished.values() if n >= arms)
    partial = sum(1 for n in finished.values() if 0 < n < arms)
    return complete, partial
