"""Final grading of the trial's program on the grading tests (reusing an identical earlier run)."""

from __future__ import annotations

from execugraph.agents.context import TrialContext
from execugraph.agents.evaluator import grading_tests
from execugraph.agents.execution import execute, passed
from execugraph.state import TrialState


def grade(state: TrialState, ctx: TrialContext) -> TrialState:
    attempt = max(0, state.get("attempt", 1) - 1)
    with ctx.step("grade", attempt) as out:
        samples = state.get("samples")
        if samples:  # best-of-N: pass@N is any sample passing; pass@1 is the mean over samples
            winner = next((s for s in samples if s["passed"]), samples[-1])
            result, code = winner["result"], winner["code"]
            out.update(samples_total=len(samples), samples_passed=sum(s["passed"] for s in samples))
            source = "problem" if ctx.problem.tests else state.get("test_source", "smoke")
        else:
            code = state.get("code", "")
            tests, source = grading_tests(ctx, state)
            previous = state.get("feedback_result") or {}
            if previous.get("code") == code and state.get("feedback_tests") == tests:
                result = previous
                out["reused_execution"] = True
            else:
                result = execute(ctx, code, tests, "grading")
        ok = passed(result)
        out.update(passed=ok, verdict=result["verdict"], tests_passed=result["tests_passed"],
                   tests_total=result["tests_total"], test_source=source)
    return {"grading": result | {"passed": ok, "code": code}, "code": code, "test_source": source}
