"""The project's words, each spelled once: roles, nodes, grading protocols, feedback sources, statuses.

Types are `Literal`s (pydantic and type checkers read them); the tuples beside them, derived with
`get_args`, are what the store's checks, the CLI's `choices=` and the forms list.
"""

from __future__ import annotations

from typing import Literal, get_args

EMBEDDED_MODEL = "llamacpp:default"  # the one place the embedded model's spec is written (re-exported by `config`)

Role = Literal["planner", "generator", "reviewer", "evaluator", "optimizer", "explainer"]
ROLES: tuple[str, ...] = get_args(Role)
NodeName = Literal["planner", "generator", "reviewer", "evaluator", "optimizer", "grade", "explainer"]
NODES: tuple[str, ...] = get_args(NodeName)
GradingProtocol = Literal["standalone", "with-prompt"]  # how a program meets its tests: execugraph.grading.rules
GRADING_PROTOCOLS: tuple[str, ...] = get_args(GradingProtocol)
FeedbackSource = Literal["grading", "visible", "generated"]  # which tests the retry loop hears about
FEEDBACK_SOURCES: tuple[str, ...] = get_args(FeedbackSource)
TrialOrder = Literal["paired", "condition-major"]  # the order a batch queues its trials in
TRIAL_ORDERS: tuple[str, ...] = get_args(TrialOrder)
