"""The typed state that flows through the LangGraph workflow of one trial.

What each node writes to the store is in `execugraph.domain.steps`; what a trial streams, in `execugraph.domain.events`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict

from execugraph.domain.steps import Decision, OptimizerOutcome, Review
from execugraph.grading.executed import ExecutionOutcome
from execugraph.grading.rules import SuiteTest

__all__ = ["Decision", "Grading", "Sample", "TrialState"]


class Sample(TypedDict):
    """One best-of-N sample: the program, whether it passed, and its sandbox result."""

    code: str
    passed: bool
    result: ExecutionOutcome


@dataclass(frozen=True)
class Grading:
    """What the grade node decided, read by `run_trial` to finish the trial."""

    passed: bool  # the pass rule on the grading tests
    verdict: str  # the sandbox's suite verdict
    tests_passed: int
    tests_total: int
    suite_digest: str  # which tests graded (`grading.rules.suite_digest`)
    code: str  # the program graded
    outcome: ExecutionOutcome  # the sandbox run it was judged on


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
    feedback_result: ExecutionOutcome  # last sandbox result on the feedback tests
    feedback_passed: bool
    generated_tests: list[SuiteTest]
    generated_dropped: int
    feedback_tests: list[SuiteTest]  # the tests the loop (and optimizer) run against
    test_source: str  # problem | generated | smoke
    decision: Decision
    optimizer: OptimizerOutcome
    grading: Grading
    samples: list[Sample]  # best-of-N one-shot samples
    explanation: str
    repairs: list[str]  # what lenient parsing had to repair, across the trial
