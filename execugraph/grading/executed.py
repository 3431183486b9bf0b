"""One execution of a trial's program: the sandbox's outcome with why it ran, the program and its CPU limits.

Why apart from `outcome`: it carries the calibrated `TimeLimits`, and calibration builds on the grading
rule, which reads outcomes; the trial's loop (`agents.execution`, the workflow state) is its only user.
"""

from __future__ import annotations

from dataclasses import dataclass

from execugraph.domain.json_types import JsonObject
from execugraph.grading.calibration import TimeLimits
from execugraph.grading.outcome import SuiteOutcome


@dataclass(frozen=True)
class ExecutionOutcome:
    """One run of a trial's program in the sandbox (feedback, optimizer, smoke or grading), as the trial's loop,
    its grade step and a best-of-N sample carry it."""

    outcome: SuiteOutcome
    """What the sandbox decided."""
    purpose: str
    """Why it ran: `feedback`, `smoke`, `optimizer` or `grading` (the Execution row's purpose)."""
    code: str
    """The program that ran."""
    time_limits: TimeLimits
    """Each test's CPU limit and where it comes from (calibrated or the floor)."""

    @property
    def passed(self) -> bool:
        """The pass rule (`rules.passed`)."""
        return self.outcome.passed

    @property
    def error_class(self) -> str | None:
        """The error class (`rules.error_class`): None when it passed."""
        return self.outcome.error_class

    @property
    def first_failure(self) -> JsonObject | None:
        """The first test that did not pass, as the sandbox reported it."""
        return self.outcome.first_failure

    @property
    def verdict(self) -> str:
        """The sandbox's suite verdict."""
        return self.outcome.verdict

    def as_dict(self) -> JsonObject:
        """The sandbox result as a dict with `purpose`, `code` and `time_limits` after it (what `execute` gave)."""
        return self.outcome.as_dict() | {"purpose": self.purpose, "code": self.code,
                                         "time_limits": self.time_limits.record()}
