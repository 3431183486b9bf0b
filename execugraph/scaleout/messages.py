"""What the Ray driver and its TrialWorker actors send each other: typed, so neither side guesses at keys.

Ray pickles these between processes; both ends import this module, so a field added
here is seen by both (and a misspelt one fails at once instead of reading as missing).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from execugraph.domain.config import RunConfig
    from execugraph.domain.problem import Problem


@dataclass(frozen=True)
class WorkerInfo:
    """Where a worker actor runs, as its `ready()` answered."""

    host: str  # the node's host name
    pid: int  # the actor's operating-system process id
    node: str | None  # the Ray node id, None outside Ray


@dataclass(frozen=True)
class TrialTask:
    """One attempt of one claimed trial, as the driver hands it to a worker."""

    run_id: int  # the batch run the trial belongs to
    trial_id: int  # the claimed trial
    token: datetime  # the attempt's started_at: the fence its writes must match
    problem: Problem  # the Problem to solve (as stored)
    config: RunConfig  # the condition's RunConfig
    seed: int  # the trial's seed
    trial_index: int  # its repeat index
    ollama_host: str | None = None  # the Ollama endpoint its LLM calls go to
    openai_base_url: str | None = None  # or the OpenAI-compatible one
    reroute_after_s: float | None = None  # give up on an unreachable endpoint after this long (another is free)


@dataclass(frozen=True)
class TrialOutcome:
    """What became of an attempt: superseded (it wrote nothing more), or the trial's result."""

    superseded: bool  # the driver moved the trial on: nothing was written after that
    message: str | None  # the trial's message, or why it was superseded
    host: str  # where it ran
    pid: int  # the worker process that ran it
    status: str | None = None  # the trial's final status (done, error); None when superseded
    passed: bool | None = None  # its verdict
    error_class: str | None = None  # why it failed (its verdict), None when it passed
    unreachable: str | None = None  # the endpoint that stopped answering its calls, if one did


@dataclass(frozen=True)
class WarmRequest:
    """What a worker actor warms before its first trial: the batch's conditions and where their calls go."""

    configs: tuple[RunConfig, ...]  # every condition's RunConfig
    endpoints: tuple[str, ...]  # the endpoint URLs the driver balances over
    kind: str = "ollama"  # of those endpoints: ollama | openai
