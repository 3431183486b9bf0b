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
class TrialContext:
    """Per-trial dependencies, closed over by the graph's nodes."""

    config: RunConfig
    problem: Problem
    router: ModelRouter
    store: Any
    trial_id: int
    pool: Any
    retriever: Any = None
    emit: Callable[[Event], None] = lambda event: None
    step_id: int | None = None
    node_durations: dict[str, float] = field(default_factory=dict)

    @contextmanager
    def step(self, node: str, attempt: int) -> Iterator[dict[str, Any]]:
        """Persist a Step around a node: started before, output and end time after, even on error."""
        output: dict[str, Any] = {}
        self.step_id = self.store.add_step(self.trial_id, node, attempt=attempt)
        self.emit({"type": "node_started", "node": node, "attempt": attempt, "step_id": self.step_id})
        started = time.perf_counter()
        try:
            yield output
        except Exception as exc:
            output["error"] = f"{type(exc).__name__}: {exc}"
            raise
        finally:
            self.store.finish_step(self.step_id, output=output)
            self.node_durations[node] = self.node_durations.get(node, 0.0) + time.perf_counter() - started
            self.emit({"type": "node_finished", "node": node, "attempt": attempt, "step_id": self.step_id, "output": output})

    def ask(self, role: str, prompt: str, *, temperature: float | None = None, seed: int | None = None) -> str:
        """One system + user prompt to `role`'s model, recorded against the current step."""
        from execugraph.agents.prompts import system_prompt

        messages = [{"role": "system", "content": system_prompt(role)}, {"role": "user", "content": prompt}]
        reply = self.router.call(role, messages, step_id=self.step_id, temperature=temperature, seed=seed)
        return reply.text
