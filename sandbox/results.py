"""Verdicts and result records: what the rest of ExecuGraph stores and reasons about."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

PASSED = "passed"
WRONG_ANSWER = "wrong_answer"
RUNTIME_ERROR = "runtime_error"
SYNTAX_ERROR = "syntax_error"
TIMEOUT = "timeout"
MEMORY_LIMIT = "memory_limit"
OUTPUT_LIMIT = "output_limit"
SANDBOX_VIOLATION = "sandbox_violation"
HARNESS_ERROR = "harness_error"

# Most severe first: the suite verdict is the most severe test verdict, so it
# does not depend on test order (a crash hidden behind an early wrong answer
# still shows).
VERDICT_PRIORITY: tuple[str, ...] = (
    HARNESS_ERROR,
    SANDBOX_VIOLATION,
    SYNTAX_ERROR,
    MEMORY_LIMIT,
    OUTPUT_LIMIT,
    TIMEOUT,
    RUNTIME_ERROR,
    WRONG_ANSWER,
)
VERDICTS: frozenset[str] = frozenset((PASSED, *VERDICT_PRIORITY))

EXCERPT_CHARS = 2000
REPR_CHARS = 300


def truncate(text: str, limit: int = EXCERPT_CHARS) -> str:
    """Shorten text for storage, saying how much was cut."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... [{len(text) - limit} more chars]"


def short_repr(value: Any, limit: int = REPR_CHARS) -> str:
    """repr() of host-side plain data, truncated (never called on candidate objects)."""
    try:
        text = repr(value)
    except Exception as exc:  # noqa: BLE001 - a repr failure must not lose the result
        text = f"<unrepresentable: {type(exc).__name__}>"
    return truncate(text, limit)


@dataclass
class TestResult:
    """Outcome of one test case. `passed` is True only for verdict `passed`."""

    __test__ = False  # not a pytest class

    name: str
    kind: str
    passed: bool
    verdict: str
    error_class: str | None = None
    call: str = ""
    expected: str = ""
    got: str = ""
    stderr: str = ""
    duration_s: float = 0.0  # wall-clock seconds of the test
    cpu_s: float = 0.0  # CPU seconds the job's processes used during the test, measured by the worker
    cpu_limit_s: float = 0.0  # the test's CPU limit
    wall_limit_s: float = 0.0  # the test's wall-clock backstop

    def to_dict(self) -> dict[str, Any]:
        """Every field (all plain values): a direct copy, ~10x faster than dataclasses.asdict."""
        return {name: getattr(self, name) for name in _TEST_FIELDS}

    def limit_share(self) -> float:
        """The larger of CPU used / CPU limit and wall time / backstop (0 when no limit is known)."""
        cpu = self.cpu_s / self.cpu_limit_s if self.cpu_limit_s > 0 else 0.0
        wall = self.duration_s / self.wall_limit_s if self.wall_limit_s > 0 else 0.0
        return max(cpu, wall)


@dataclass
class SuiteResult:
    """Outcome of one candidate against one suite, with the isolation it ran under."""

    verdict: str
    tests_total: int
    tests_passed: int
    tests: list[TestResult] = field(default_factory=list)
    isolation: dict[str, str] = field(default_factory=dict)
    duration_s: float = 0.0
    stdout: str = ""
    stderr: str = ""
    error: str = ""
    policy_version: str = ""
    cpu_s: float = 0.0  # CPU seconds of the whole job (loading and every test)
    limits: dict[str, Any] = field(default_factory=dict)  # the time limits in force (Limits.describe() + accounting)

    @property
    def passed(self) -> bool:
        return self.verdict == PASSED

    def to_dict(self) -> dict[str, Any]:
        """Every field, containers copied (what dataclasses.asdict gives, without its deep walk of the tests)."""
        return {name: [t.to_dict() for t in self.tests] if name == "tests" else _plain_copy(getattr(self, name))
                for name in _SUITE_FIELDS}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SuiteResult:
        """Rebuild a result stored with to_dict() (e.g. read back from the database)."""
        known = set(TestResult.__dataclass_fields__)
        tests = [TestResult(**{k: v for k, v in t.items() if k in known}) for t in data.get("tests", [])]
        fields = {k: v for k, v in data.items() if k != "tests" and k in cls.__dataclass_fields__}
        return cls(tests=tests, **fields)


_TEST_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(TestResult))
_SUITE_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(SuiteResult))


def _plain_copy(value: Any) -> Any:
    """A copy of nested dicts, lists and tuples (as asdict makes them), so callers never share containers."""
    if isinstance(value, dict):
        return {k: _plain_copy(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_plain_copy(v) for v in value)
    return value


def suite_verdict(tests: list[TestResult]) -> str:
    """`passed` only when there is at least one test and every test passed.

    Any verdict outside the known set counts as a harness error: an unknown
    status never turns into a pass.
    """
    if not tests:
        return HARNESS_ERROR
    verdicts = {t.verdict if t.verdict in VERDICTS else HARNESS_ERROR for t in tests}
    for t in tests:
        if t.passed != (t.verdict == PASSED):
            verdicts.add(HARNESS_ERROR)
    for verdict in VERDICT_PRIORITY:
        if verdict in verdicts:
            return verdict
    return PASSED
