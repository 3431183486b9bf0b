"""The typed state that flows through the LangGraph workflow of one trial."""

from __future__ import annotations

from typing import Any, Literal, TypedDict

Decision = Literal["evaluate", "retry", "revise", "optimize", "grade", "sample"]


class TrialState(TypedDict, total=False):
    """Partial updates from nodes are merged key by key (last writer wins)."""

    plan: str
    code: str
    attempt: int  # generator calls so far
    retries_used: int  # generator calls made because of execution feedback
    review: dict[str, Any]
    review_gated: bool  # the reviewer already sent code back once
    feedback: str  # structured feedback for the next generator call
    feedback_result: dict[str, Any]  # last sandbox result on the feedback tests
    feedback_passed: bool
    generated_tests: list[dict[str, Any]]
    generated_dropped: int
    feedback_tests: list[dict[str, Any]]  # the tests the loop (and optimizer) run against
    test_source: str  # problem | generated | smoke
    decision: Decision
    optimizer: dict[str, Any]
    grading: dict[str, Any]
    samples: list[dict[str, Any]]  # best-of-N one-shot samples
    explanation: str
    repairs: list[str]  # what lenient parsing had to repair, across the trial
