"""The typed state that flows through the LangGraph workflow of one trial.

What each node writes to the store is in `execugraph.workflow.steps`; what a trial streams, in `execugraph.workflow.events`.
"""

from __future__ import annotations

from typing import Any, TypedDict

from execugraph.workflow.steps import Decision, OptimizerOutcome, Review

__all__ = ["Decision", "Sample", "TrialState"]


class Sample(TypedDict):
    """One best-of-N sample: the program, whether it passed, and its sandbox result."""

    code: str
    passed: bool
    result: dict[str, Any]


class TrialState(TypedDict, total=False):
    """Partial updates from nodes are merged key by key (last writer wins)."""

    plan: str
    code: str
    attempt: int  # generator calls so far
    retries_used: int  # generator calls made because of execution feedback
    unchanged: bool  # the last retry returned the previous attempt's program unchanged
    no_progress: list[int]  # the attempts (generator calls, from 0) whose retry changed nothing
    review: Review
    review_gated: bool  # the reviewer already sent code back once
    feedback: str  # structured feedback for the next generator call
    feedback_result: dict[str, Any]  # last sandbox result on the feedback tests
    feedback_passed: bool
    generated_tests: list[dict[str, Any]]
    generated_dropped: int
    feedback_tests: list[dict[str, Any]]  # the tests the loop (and optimizer) run against
    test_source: str  # problem | generated | smoke
    decision: Decision
    optimizer: OptimizerOutcome
    grading: dict[str, Any]
    samples: list[Sample]  # best-of-N one-shot samples
    explanation: str
    repairs: list[str]  # what lenient parsing had to repair, across the trial
