"""A Synthesize request running on a background thread, so the page can show each agent step as it lands.

The trial runs with `run_single` exactly as the CLI runs it; the thread only
collects the trial's events. The page polls `snapshot()` from a fragment that
reruns every second, and a user who navigates away loses nothing: the trial
keeps running and is persisted step by step.
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING

from execugraph.domain.config import RunConfig
from execugraph.domain.events import TrialEvent
from execugraph.domain.problem import Problem
from ui.views import duration

if TYPE_CHECKING:  # the workflow (LangGraph) and the trace view load with the first job, not with the page
    from langchain_core.language_models.chat_models import BaseChatModel

    from execugraph.store import Store
    from execugraph.workflow.trial import TrialResult
    from ui.views import StepRow


class SynthesisJob:
    """One problem under one RunConfig, run once on its own thread."""

    def __init__(
        self,
        store: Store,
        problem: Problem,
        config: RunConfig,
        *,
        title: str = "",
        chat_models: dict[str, BaseChatModel] | None = None,
    ) -> None:
        self.store = store
        self.problem = problem
        self.config = config
        self.title = title
        self.chat_models = chat_models
        self.run_id: int | None = None
        self.result: TrialResult | None = None
        self.error: str | None = None
        self.finished = threading.Event()
        self._events: list[TrialEvent] = []
        self._lock = threading.Lock()
        self.started_at: float | None = None  # time.monotonic() when the job started
        self._node_started_at: float | None = None  # when the node running now started
        self.thread = threading.Thread(target=self._work, name="synthesize", daemon=True)

    def start(self) -> SynthesisJob:
        self.started_at = time.monotonic()
        self.thread.start()
        return self

    def _emit(self, event: TrialEvent) -> None:
        with self._lock:
            self._events.append(event)
            if event["type"] == "node_started":
                self._node_started_at = time.monotonic()
            elif event["type"] == "node_finished":
                self._node_started_at = None

    def _work(self) -> None:
        try:
            from execugraph.workflow.single import run_single
            from execugraph.workflow.trial import TrialDeps

            deps = TrialDeps(chat_models=self.chat_models, emit=self._emit)
            self.run_id, self.result = run_single(self.store, self.problem, self.config, deps, self.title)
        except Exception as exc:  # shown on the page; the trial itself records provider failures
            self.error = f"{type(exc).__name__}: {exc}"
        finally:
            self.finished.set()

    @property
    def done(self) -> bool:
        return self.finished.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the trial ends (used by tests and scripts); True if it did."""
        return self.finished.wait(timeout)

    def snapshot(self) -> list[TrialEvent]:
        """The events received so far, in order."""
        with self._lock:
            return list(self._events)

    @property
    def trial_id(self) -> int | None:
        events = self.snapshot()
        return events[0]["trial_id"] if events else None

    def steps(self) -> tuple[list[StepRow], str | None]:
        """Finished steps so far (without the timings only the store has) and the node running now, if any."""
        from ui.views import StepRow

        finished: list[StepRow] = []
        running: str | None = None
        for event in self.snapshot():
            if event["type"] == "node_started":
                running = event["node"]
            elif event["type"] == "node_finished":
                finished.append(
                    StepRow(
                        node=event["node"],
                        attempt=event["attempt"],
                        step_id=event["step_id"],
                        seq=len(finished) + 1,
                        output=event["output"],
                    )
                )
                running = None
        return finished, running

    def elapsed(self, now: float | None = None) -> tuple[float | None, float | None]:
        """(seconds the running node has taken so far, seconds since the job started); None where unknown."""
        now = time.monotonic() if now is None else now
        with self._lock:
            node = self._node_started_at
        return (None if node is None else max(0.0, now - node),
                None if self.started_at is None else max(0.0, now - self.started_at))

    def working_line(self, now: float | None = None) -> str:
        """What the live view says while the trial runs: the node at work and, past a second, for how long."""
        _, running = self.steps()
        step_s, total_s = self.elapsed(now)
        line = f"{running or 'the workflow'} is working..."
        if running and step_s is not None and step_s >= 1:
            line += f" {duration(step_s)} in this step"
            if total_s is not None and total_s - step_s >= 1:
                line += f", {duration(total_s)} in all"
        elif total_s is not None and total_s >= 1:
            line += f" {duration(total_s)} in all"
        return line
