"""Model time as a cost: fill each arm's per-trial model seconds (summed LLM call durations) from the store.

Why apart from the usual cost columns: it needs a join over every LLM call, so it is read only when a report
compares it (`stats --cost model-time`), and reports that do not ask stay exactly as they were.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from execugraph.stats.records import ArmData

if TYPE_CHECKING:
    from execugraph.store import Store


def attach_model_time(store: Store, arms: Sequence[ArmData]) -> None:
    """Set `costs.model_time_s` and `costs.model_time_problems` of every arm; a trial goes to the arm of its run
    and condition, else to its run's whole-run arm, as the report's loader assigns trials."""
    from execugraph.store.model_time_reads import model_times

    by_key = {(int(a.run_id), a.condition): a for a in arms}
    for arm in arms:
        arm.costs.model_time_problems, arm.costs.model_time_s = [], []
    for run_id, condition, problem, seconds in model_times(store, sorted({r for r, _ in by_key})):
        arm = by_key.get((run_id, condition)) or by_key.get((run_id, None))
        if arm is not None:
            arm.costs.model_time_problems.append(problem)
            arm.costs.model_time_s.append(seconds)
