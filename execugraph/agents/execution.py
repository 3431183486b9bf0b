"""Running a candidate in the sandbox and recording the Execution row: the only judge of correctness."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from execugraph.store.models import utcnow

if TYPE_CHECKING:  # the grading rule below is imported by rescoring, which needs no LLM stack
    from execugraph.agents.context import TrialContext

SMOKE_TEST: dict[str, Any] = {"kind": "assert", "name": "smoke", "source": "", "call": "None"}


def execute(ctx: TrialContext, code: str, tests: list[dict[str, Any]], purpose: str) -> dict[str, Any]:
    """Run `code` against `tests`; returns the SuiteResult as a dict and persists it."""
    from sandbox import POLICY_VERSION, Limits

    suite = ctx.problem.suite(tests)
    if purpose == "smoke":
        suite["entry_point"] = None
    limits = Limits(timeout_s=ctx.config.test_timeout_s, memory_mb=ctx.config.memory_mb)
    result = ctx.pool.run_suite(code, suite, limits).to_dict()
    row = dict(
        purpose=purpose,
        code=code,
        verdict=result["verdict"],
        tests_passed=result["tests_passed"],
        tests_total=result["tests_total"],
        results=result["tests"],
        stdout=result.get("stdout", ""),
        stderr=result.get("stderr", ""),
        policy_version=POLICY_VERSION,
        isolation=result.get("isolation", {}),
        duration_s=result.get("duration_s", 0.0),
        created_at=utcnow(),
    )
    if ctx.current is not None:
        ctx.current.executions.append(row)  # written with the step
    else:
        ctx.store.add_execution(ctx.trial_id, **row)
    result["purpose"] = purpose
    result["code"] = code
    return result


def passed(result: dict[str, Any]) -> bool:
    """Only an explicit `passed` verdict with every test run and passed counts; anything else fails."""
    return result.get("verdict") == "passed" and result.get("tests_passed") == result.get("tests_total") > 0


def first_failure(result: dict[str, Any]) -> dict[str, Any] | None:
    for test in result.get("tests", []):
        if not test.get("passed"):
            return test
    return None


def error_class(result: dict[str, Any]) -> str | None:
    """The trial-level error class: the verdict unless it passed."""
    return None if passed(result) else result.get("verdict") or "harness_error"
