"""The order a batch's trials run in, and whether its finished part is a paired sample.

Trials are claimed in id order (`store.leases.claim_trial`) and ids follow the order
they were queued in (`store.trial_queue`), so queueing the grid problem by problem
(`BatchSpec.trial_keys`) is all it takes for workers to run it that way, resumed or not.

The tail rule (`tail_order`): once at most `TAIL_WAVES` x concurrency trials of a paired,
non-sequential batch are left queued, they are claimed heaviest first (most model calls per
attempt, `attempt_calls`), ties in queue order, so the batch's last wave does not end with one
long multi-agent trial running alone. Trial ids, seeds and what each trial computes are unchanged;
only when each starts. Sequential batches (whose looks follow the problem order) and
condition-major ones keep the queue order throughout.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Iterable
from typing import TYPE_CHECKING, Protocol, TypedDict, TypeVar

if TYPE_CHECKING:
    from collections.abc import Mapping

    from execugraph.domain.config import RunConfig
    from execugraph.domain.problem import Problem
    from execugraph.store.leases import TailOrder

T = TypeVar("T")
# The tail rule applies to the last TAIL_WAVES x concurrency queued trials (0: never). The zero-overhead share of
# bench/batch.py's 80-trial batch at 16 goes 0.88 -> 1.00 with it (simulated and measured); 240 trials: 0.94 -> 0.98
TAIL_WAVES = 4


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


class TailPlanned(Protocol):
    """What `tail_order` reads of a BatchSpec."""

    @property
    def order(self) -> str: ...

    @property
    def sequential(self) -> object | None: ...


def attempt_calls(config: RunConfig) -> int:
    """The model calls one attempt of a condition makes, read from its config (retries not counted).

    Single agent: its samples (best-of-n), multi-agent: the generator and each agent switched on;
    a plugin's extra node counts one, a plugin's external loop one in all (it is opaque).
    """
    if config.loop:
        return 1
    if config.mode == "single":
        calls = config.best_of_n
    else:
        calls = 1 + config.planner + config.reviewer + config.optimizer
    return calls + config.explainer + len(config.nodes)


def tail_order(spec: TailPlanned, configs: Mapping[str, RunConfig], concurrency: int) -> TailOrder | None:
    """The tail rule for a batch (see the module docstring); None where the queue order stays throughout:
    sequential or condition-major batches, and batches whose conditions all weigh the same."""
    from execugraph.store.leases import TailOrder

    if spec.order != "paired" or spec.sequential is not None or TAIL_WAVES <= 0:
        return None
    weights = {condition: attempt_calls(config) for condition, config in configs.items()}
    if len(set(weights.values())) < 2:
        return None
    return TailOrder(weights=weights, tail=TAIL_WAVES * max(1, concurrency))
