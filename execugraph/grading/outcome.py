"""What one sandbox run decided, as grading, a trial's loop and rescoring read it.

Why a type of its own: the sandbox's `SuiteResult` used to become a plain dict at every
hand-over (the evaluator, the grader, a rescore, an import's grading), and each reader
indexed it by name. `SuiteOutcome` carries the same fields, is built once from the
`SuiteResult`, and becomes a dict again only where it is written (an Execution row's
JSON columns): `as_dict()` is exactly what `SuiteResult.to_dict()` gave, key for key.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeAlias

from execugraph.domain.json_types import JsonObject

if TYPE_CHECKING:
    from sandbox import SuiteResult


@dataclass(frozen=True)
class SuiteOutcome:
    """One program's run against one suite (the sandbox's `SuiteResult`, field for field, in its order)."""

    verdict: str
    """The suite verdict: `passed`, or the first failing test's class (`wrong_answer`, `timeout`, ...)."""
    tests_total: int
    """Tests in the suite."""
    tests_passed: int
    """Tests that passed."""
    tests: tuple[JsonObject, ...] = ()
    """Per-test results as the sandbox reports them (what an Execution's `results` column stores)."""
    isolation: Mapping[str, str] = field(default_factory=dict)
    """Isolation layer -> how it was enforced for this job."""
    duration_s: float = 0.0
    """Wall-clock seconds of the job."""
    stdout: str = ""
    """What the program printed (capped by the sandbox)."""
    stderr: str = ""
    """What the program wrote to stderr (capped by the sandbox)."""
    error: str = ""
    """The sandbox's own error, when the job could not run as asked."""
    policy_version: str = ""
    """The sandbox policy the job ran under."""
    cpu_s: float = 0.0
    """CPU seconds of the whole job (loading and every test)."""
    limits: JsonObject = field(default_factory=dict)
    """The time limits in force (`Limits.describe()` plus the sandbox's accounting)."""
    findings: tuple[JsonObject, ...] = ()
    """What the verdict alone does not say (e.g. `shadowed_builtins`: the program redefines builtins the tests
    call); read with `execugraph.grading.findings`."""

    @classmethod
    def of(cls, result: SuiteResult) -> SuiteOutcome:
        """The outcome of a finished sandbox job."""
        return cls.from_dict(result.to_dict())

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> SuiteOutcome:
        """From `SuiteResult.to_dict()`-shaped data (a test's fake, or a result read back); unknown keys dropped."""
        known = {name: data[name] for name in cls.__dataclass_fields__ if name in data}
        known["tests"] = tuple(data.get("tests") or ())  # type: ignore[arg-type]
        known["findings"] = tuple(f for f in data.get("findings") or () if isinstance(f, Mapping))  # type: ignore[union-attr]
        return cls(**known)  # type: ignore[arg-type]

    def as_dict(self) -> JsonObject:
        """The outcome as `SuiteResult.to_dict()` gives it (same keys, same order, containers copied)."""
        return {
            "verdict": self.verdict,
            "tests_total": self.tests_total,
            "tests_passed": self.tests_passed,
            "tests": [dict(test) for test in self.tests],
            "isolation": dict(self.isolation),
            "duration_s": self.duration_s,
            "stdout": self.stdout,
            "stderr": self.stderr,
            "error": self.error,
            "policy_version": self.policy_version,
            "cpu_s": self.cpu_s,
            "limits": dict(self.limits),
            "findings": [dict(finding) for finding in self.findings],
        }

    def test_results(self) -> list[JsonObject]:
        """The per-test results as a list (what is written to an Execution's `results`)."""
        return list(self.tests)

    @property
    def passed(self) -> bool:
        """The pass rule (`rules.passed`): a `passed` verdict with every test run and passed."""
        return self.verdict == "passed" and self.tests_passed == self.tests_total > 0

    @property
    def error_class(self) -> str | None:
        """The trial-level error class: the verdict unless it passed."""
        return None if self.passed else self.verdict or "harness_error"

    @property
    def findings_note(self) -> str | None:
        """The findings as one sentence (`grading.findings`), None when there are none."""
        from execugraph.grading.findings import shadowed_builtins

        finding = shadowed_builtins(self.findings)
        return None if finding is None else finding.text()

    @property
    def first_failure(self) -> JsonObject | None:
        """The first test that did not pass, as the sandbox reported it."""
        return next((test for test in self.tests if not test.get("passed")), None)


ResultsMemo: TypeAlias = dict[str, SuiteOutcome]
"""Sandbox job identity (`rules.job_key`) -> its outcome: shared by an import's grading and the rescores after
it, so each distinct job runs once."""
