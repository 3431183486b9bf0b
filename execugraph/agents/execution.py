"""Running a candidate in the sandbox and recording the Execution row: the only judge of correctness.

What the job is (suite, protocol, limits) and what passes is `execugraph.grading.rules`'s rule,
and each test's CPU limit is `execugraph.grading.calibration`'s (measured once per suite on this
machine); this module only runs it for a trial and writes down what happened, CPU and
wall seconds and the limits of every test included.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from execugraph.grading.calibration import TimeLimits, calibrate
from execugraph.grading.rules import (
    SMOKE_TEST,
    GradingSettings,
    cpu_floor,
    error_class,
    first_failure,
    passed,
    sandbox_job,
)
from execugraph.store.models import utcnow

if TYPE_CHECKING:
    from execugraph.agents.context import TrialContext

__all__ = ["SMOKE_TEST", "error_class", "execute", "first_failure", "passed"]


def execute(ctx: TrialContext, code: str, tests: list[dict[str, Any]], purpose: str) -> dict[str, Any]:
    """Run `code` against `tests` under the trial's grading protocol; returns the SuiteResult as a dict and persists it."""
    from sandbox import POLICY_VERSION

    settings = GradingSettings.of(ctx.config)
    smoke = purpose == "smoke"
    time_limits = (TimeLimits.of(cpu_floor(ctx.problem, settings), len(tests)) if smoke
                   else calibrate(ctx.pool, ctx.problem, tests, settings))
    code, suite, limits = sandbox_job(ctx.problem, code, tests, settings, smoke=smoke, cpu_limits=time_limits)
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
    result["time_limits"] = time_limits.record()
    return result
