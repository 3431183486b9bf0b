"""What every agent node needs besides the state: config, problem, models, store, sandbox.

A trial's `TrialContext` is the graph's LangGraph context (`context_schema`): `run_trial`
passes it to `invoke(..., context=ctx)` and each node reads it from `runtime.context`, so
the compiled graph holds no per-trial object and is shared by every trial of its topology.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, cast

from execugraph.domain.config import RunConfig
from execugraph.domain.events import NodeFinished, NodeStarted, TrialEvent
from execugraph.domain.json_types import JsonObject
from execugraph.domain.problem import Problem
from execugraph.domain.steps import NodeName, StepOutput
from execugraph.providers.model_router import ModelRouter
from execugraph.store.row_fields import ExecutionFields, HitFields, LLMCallFields

if TYPE_CHECKING:
    from execugraph.retrieval.search import Retriever
    from execugraph.store import Store
    from sandbox import SandboxPool


@dataclass
class StepRecord:
    """What one node produced, written to the store in one transaction when the node ends."""

    node: NodeName
    attempt: int
    started_at: datetime
    output: JsonObject = field(default_factory=dict)  # the node's step output type, as its JSON column stores it
    llm_calls: list[LLMCallFields] = field(default_factory=list)  # buffered by the model router
    executions: list[ExecutionFields] = field(default_factory=list)  # buffered by `agents.execution.execute`
    hits: list[HitFields] = field(default_factory=list)  # buffered by the planner


def _ignore(event: TrialEvent) -> None:
    return None


@dataclass
class TrialContext:
    """Per-trial dependencies, handed to the nodes as the graph run's context."""

    config: RunConfig
    problem: Problem
    router: ModelRouter
    store: Store
    trial_id: int
    pool: SandboxPool
    retriever: Retriever | None = None
    emit: Callable[[TrialEvent], None] = _ignore
    current: StepRecord | None = None
    node_durations: dict[str, float] = field(default_factory=dict)

    @contextmanager
    def step(self, node: NodeName, attempt: int) -> Iterator[JsonObject]:
        """Collect a node's output, LLM calls and executions; persist them together when it ends, even on error.

        The node fills the yielded dict with its `execugraph.domain.steps` output type (`out.update(PlannerOutput(...))`).
        """
        from execugraph.store import utcnow

        record = StepRecord(node, attempt, utcnow())
        self.current = record
        self.router.sink = record.llm_calls.append
        self.emit(NodeStarted(type="node_started", trial_id=self.trial_id, node=node, attempt=attempt))
        started = time.perf_counter()
        try:
            yield record.output
        except Exception as exc:
            record.output["error"] = f"{type(exc).__name__}: {exc}"
            raise
        finally:
            self.router.sink = None
            self.current = None
            step_id = self.store.record_step(
                self.trial_id, node, attempt, started_at=record.started_at, ended_at=utcnow(),
                output=record.output, llm_calls=record.llm_calls, executions=record.executions, hits=record.hits,
            )
            self.node_durations[node] = self.node_durations.get(node, 0.0) + time.perf_counter() - started
            output = cast(StepOutput, record.output)  # the node filled it with its own output type
            self.emit(NodeFinished(type="node_finished", trial_id=self.trial_id, node=node, attempt=attempt,
                                   step_id=step_id, output=output))

    def ask(self, role: str, prompt: str, *, temperature: float | None = None, seed: int | None = None) -> str:
        """One system + user prompt to `role`'s model, recorded with the current step."""
        from execugraph.agents.prompts import system_prompt

        messages = [{"role": "system", "content": system_prompt(role)}, {"role": "user", "content": prompt}]
        return self.router.call(role, messages, temperature=temperature, seed=seed).text
