"""The events a trial streams while it runs (to `TrialDeps.emit`), defined once for the trial and its listeners.

`type` tells them apart, so a listener that checks `event["type"]` gets the right keys. Every
event carries the trial's id. Node events come from the step recorder (one pair per node
run); the trial events from `run_trial`. LLM calls and sandbox runs are not streamed: they
are written with their step and read from the store.
"""

from typing import Literal, TypedDict

from execugraph.domain.steps import NodeName, StepOutput


class NodeStarted(TypedDict):
    type: Literal["node_started"]
    trial_id: int
    node: NodeName
    attempt: int


class NodeFinished(TypedDict):
    """Sent once the step is stored, even when the node raised (its output then holds `error`)."""

    type: Literal["node_finished"]
    trial_id: int
    node: NodeName
    attempt: int
    step_id: int
    output: StepOutput


class TrialStarted(TypedDict):
    type: Literal["trial_started"]
    trial_id: int
    problem_id: str
    condition: str


class TrialFinished(TypedDict):
    type: Literal["trial_finished"]
    trial_id: int
    status: str  # done | error | queued | cancelled | abandoned
    passed: bool
    message: str | None


NodeEvent = NodeStarted | NodeFinished
TrialEvent = NodeStarted | NodeFinished | TrialStarted | TrialFinished
