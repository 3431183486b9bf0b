"""Running a candidate in the sandbox and recording the Execution row: the only judge of correctness.

What the job is (suite, protocol, limits) and what passes is `execugraph.grading.rules`'s rule,
and each test's CPU limit is `execugraph.grading.calibration`'s (measured once per suite on this
machine); this module only runs it for a trial and writes down what happened, CPU and
wall seconds and the limits of every test included.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from execugraph.grading.calibration import TimeLimits, calibrate
from execugraph.grading.executed import ExecutionOutcome
from execugraph.grading.outcome import SuiteOutcome
from execugraph.grading.rules import (
    SMOKE_TEST,
    GradingSettings,
    SuiteTest,
    cpu_floor,
    error_class,
    first_failure,
    passed,
    sandbox_job,
)
from execugraph.store.models import utcnow

if TYPE_CHECKING:
    from execugraph.agents.context import TrialContext

__all__ = ["SMOKE_TEST", "ExecutionOutcome", "error_class", "execute", "first_failure", "passed"]


def execute(ctx: TrialContext, code: str, tests: list[SuiteTest], purpose: str) -> ExecutionOutcome:
    """Run `code` against `tests` under the trial's grading protocol; returns what happened and persists it."""
    from sandbox import POLICY_VERSION

    settings = GradingSettings.of(ctx.config)
    smoke = purpose == "smoke"
    time_limits = (TimeLimits.of(cpu_floor(ctx.problem, settings), len(tests)) if smoke
                   else calibrate(ctx.pool, ctx.problem, tests, settings))
    code, suite, limits = sandbox_job(ctx.problem, code, tests, settings, smoke=smoke, cpu_limits=time_limits)
    result = SuiteOutcome.of(ctx.pool.run_suite(code, suite, limits))
    row = dict(  # the Execution row (its results and isolation are JSON columns)
        purpose=purpose,
        code=code,
        verdict=result.verdict,
        tests_passed=result.tests_passed,
        tests_total=result.tests_total,
        results=result.test_results(),
        stdout=result.stdout,
        stderr=result.stderr,
        policy_version=POLICY_VERSION,
        isolation=dict(result.isolation),
        duration_s=result.duration_s,
        created_at=utcnow(),
    )
    if ctx.current is not None:
        ctx.current.executions.append(row)  # written with the step
    else:
        ctx.store.add_execution(ctx.trial_id, **row)
    return ExecutionOutcome(result, purpose, code, time_limits)
