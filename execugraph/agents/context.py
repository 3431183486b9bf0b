"""What every agent node needs besides the state: config, problem, models, store, sandbox."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from execugraph.config import RunConfig
from execugraph.model_router import ModelRouter
from execugraph.problem import Problem

Event = dict[str, Any]


@dataclass
class StepRecord:
    """What one node produced, written to the store in one transaction when the node ends."""

    node: str
    attempt: int
    started_at: Any
    output: dict[str, Any] = field(default_factory=dict)
    llm_calls: list[dict[str, Any]] = field(default_factory=list)
    executions: list[dict[str, Any]] = field(default_factory=list)
    hits: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class TrialContext:
    """Per-trial dependencies, handed to the nodes through the graph's run config."""

    config: RunConfig
    problem: Problem
    router: ModelRouter
    store: Any
    trial_id: int
    pool: Any
    retriever: Any = None
    emit: Callable[[Event], None] = lambda event: None
    current: StepRecord | None = None
    node_durations: dict[str, float] = field(default_factory=dict)

    @contextmanager
    def step(self, node: str, attempt: int) -> Iterator[dict[str, Any]]:
        """Collect a node's output, LLM calls and executions; persist them together when it ends, even on error."""
        from execugraph.store import utcnow

        record = StepRecord(node, attempt, utcnow())
        self.current = record
        self.router.sink = record.llm_calls.append
        self.emit({"type": "node_started", "node": node, "attempt": attempt})
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
            self.emit({"type": "node_finished", "node": node, "attempt": attempt, "step_id": step_id,
                       "output": record.output})

    def ask(self, role: str, prompt: str, *, temperature: float | None = None, seed: int | None = None) -> str:
        """One system + user prompt to `role`'s model, recorded with the current step."""
        from execugraph.agents.prompts import system_prompt

        messages = [{"role": "system", "content": system_prompt(role)}, {"role": "user", "content": prompt}]
        return self.router.call(role, messages, temperature=temperature, seed=seed).text
