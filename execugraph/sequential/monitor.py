"""A running sequential batch's looks: taken as problems finish, stored on the run, arms stopped when decided.

`LeasedRun.refresh_progress` calls `SequentialMonitor.update` after trials finish (local and
Ray executors alike). The paired order makes the first n problems of the recorded order a
random sample, so look k uses exactly those once every arm being compared has finished them;
problems finished further down the order wait for their turn. A decided comparison's arm gets
no more trials (its queued ones are cancelled); the baseline runs while any comparison is open.
What every look saw and decided is kept in the run's config under `sequential_state`, which
`status`, `stats`, the report and the Batch page read (`execugraph.sequential.summary`).
"""

from __future__ import annotations

import logging
import time
from collections import defaultdict
from typing import TYPE_CHECKING, cast

from execugraph.sequential.rule import look, with_p
from execugraph.sequential.state import LookRecord, SequentialState
from execugraph.store import sequential_rows

if TYPE_CHECKING:
    from execugraph.batch.spec import BatchSpec
    from execugraph.store import Store

log = logging.getLogger("execugraph.sequential")
STATE_KEY = "sequential_state"


def baseline_of(spec: BatchSpec) -> str:
    design = spec.sequential
    return (design.baseline if design and design.baseline else None) or spec.arms[0]


def initial_state(spec: BatchSpec, planned: int) -> SequentialState:
    """The state before any look: every comparison open."""
    assert spec.sequential is not None
    baseline = baseline_of(spec)
    arms = [c for c in spec.arms if c != baseline]
    per_arm = len(spec.seeds) * spec.trials
    return {
        "baseline": baseline,
        "planned_problems": planned,
        "trials_per_arm": per_arm,
        "look_sizes": spec.sequential.look_sizes(planned),
        "mdd": spec.sequential.resolved_mdd(planned, per_arm),
        "rule": spec.sequential.rule,
        "looks_asked": spec.sequential.looks,
        "comparisons": len(arms),
        "arms": {arm: {"looks": [], "decision": "continue"} for arm in arms},
        "saved_trials": 0,
        "stopped": False,
    }


class SequentialMonitor:
    """Takes a sequential batch's due looks and stops the arms they decide."""

    def __init__(self, store: Store, run_id: int, spec: BatchSpec, *, share: float = 0.1) -> None:
        if spec.sequential is None:
            raise ValueError("not a sequential batch")
        self.store, self.run_id, self.spec = store, run_id, spec
        # a look reads every finished trial; on a big grid that costs, so looks take at most this share of the
        # time (a read of 20 ms may follow every trial, one of 0.5 s waits 5 s): a look is late, never skipped
        self.share = share
        self._last = float("-inf")
        self._cost = 0.0
        self._enforced = False  # stopped arms' queued trials (a resume requeues them) cancelled this hold

    def update(self, final: bool = False) -> SequentialState | None:
        """Take every look now due (within the time share, unless `final`); the state, or None if not read."""
        now = time.monotonic()
        if not final and now - self._last < self._cost / self.share:
            return None
        self._last = now
        return self._update()

    def _update(self) -> SequentialState | None:
        run = self.store.get_run(self.run_id)
        if run is None:
            return None
        order = list((run.config.get("order") or {}).get("problems") or [])
        if not order:
            return None
        state: SequentialState = run.config.get(STATE_KEY) or initial_state(self.spec, len(order))
        changed = STATE_KEY not in run.config
        if not self._enforced:
            self._enforced = True
            decided = [a for a, s in state["arms"].items() if s["decision"] != "continue"]
            if state["stopped"]:
                decided.append(state["baseline"])
            sequential_rows.stop_arms(self.store, self.run_id, decided)
        open_arms = [a for a, s in state["arms"].items() if s["decision"] == "continue"]
        if open_arms:
            changed |= self._take_looks(state, order, open_arms)
        if not state["stopped"] and all(s["decision"] != "continue" for s in state["arms"].values()):
            state["stopped"] = True
            state["saved_trials"] += sequential_rows.stop_arms(self.store, self.run_id, [state["baseline"]])
            changed = True
        if changed:
            config = dict(run.config) | {STATE_KEY: state}
            self.store.update_run(self.run_id, config=config)
        return state

    def _take_looks(self, state: SequentialState, order: list[str], open_arms: list[str]) -> bool:
        design = self.spec.sequential
        assert design is not None
        baseline, per_arm = state["baseline"], state["trials_per_arm"]
        passes: dict[tuple[str, str], list[bool]] = defaultdict(list)
        started = time.monotonic()
        for problem, condition, passed in sequential_rows.finished_outcomes(self.store, self.run_id):
            passes[(problem, condition)].append(passed)
        self._cost = time.monotonic() - started  # the part that grows with the grid (writes happen only on news)

        def complete(problem: str, arm: str) -> bool:
            return len(passes[(problem, arm)]) >= per_arm and len(passes[(problem, baseline)]) >= per_arm

        def rate(problem: str, condition: str) -> float:
            got = passes[(problem, condition)]
            return sum(got) / len(got)

        changed = False
        for arm in open_arms:
            entry = state["arms"][arm]
            prefix = 0
            while prefix < len(order) and complete(order[prefix], arm):
                prefix += 1
            diffs = [rate(p, arm) - rate(p, baseline) for p in order[:prefix]]
            for size in state["look_sizes"][len(entry["looks"]):]:
                if size > prefix:
                    break
                result = look(diffs[:size], design=design, planned=len(order), comparisons=state["comparisons"],
                              mdd=state["mdd"])
                if result.stopped:
                    result = with_p(result, design, state["comparisons"])
                entry["looks"].append(cast(LookRecord, result.as_dict()))
                changed = True
                if result.stopped:
                    entry["decision"] = result.decision
                    entry["stopped_at_look"] = result.look
                    saved = sequential_rows.stop_arms(self.store, self.run_id, [arm])
                    entry["saved_trials"] = saved
                    state["saved_trials"] += saved
                    log.info("run %s: %s vs %s decided (%s) at look %s of %s", self.run_id, arm, baseline,
                             result.decision, result.look, result.looks)
                    break
        return changed
