"""The order a batch's trials run in, and whether its finished part is a paired sample.

Trials are claimed in id order (`store.leases.claim_trial`) and ids follow the order
they were queued in (`store.trial_queue`), so queueing the grid problem by problem
(`BatchSpec.trial_keys`) is all it takes for workers to run it that way, resumed or not.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Iterable
from typing import TYPE_CHECKING, Protocol, TypedDict, TypeVar

if TYPE_CHECKING:
    from execugraph.domain.problem import Problem

T = TypeVar("T")


def shuffled(items: list[T], seed: int) -> list[T]:
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


class Ordering(Protocol):
    """What `order_record` reads of a BatchSpec (a Protocol: `spec` imports this module)."""

    @property
    def order(self) -> str: ...  # "paired" or "condition-major"

    def resolved_order_seed(self) -> int: ...

    def problem_order(self, problems: list[Problem]) -> list[Problem]: ...


class TrialState(Protocol):
    """What `pairing` reads of a trial (a stored Trial, or any row with these two fields)."""

    @property
    def problem_id(self) -> str: ...

    @property
    def status(self) -> str: ...


def order_record(spec: Ordering, problems: list[Problem]) -> OrderRecord:
    """What the run config records of its order: the kind, the seed and the problems as they run."""
    return {"kind": spec.order, "seed": spec.resolved_order_seed(),
            "problems": [p.id for p in spec.problem_order(problems)]}


def pairing(trials: Iterable[TrialState], arms: int) -> tuple[int, int]:
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
