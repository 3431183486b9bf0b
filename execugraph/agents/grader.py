"""Final grading of the trial's program on the grading tests (reusing an identical earlier run).

The tests, the protocol and the pass rule are `execugraph.grading`'s; the step records the
protocol in force (and when it coincides with `standalone`) and a digest of the tests, so a
later rescore can tell whether it grades on the very suite this trial was graded on.
"""

from __future__ import annotations

from execugraph.agents.context import TrialContext
from execugraph.agents.evaluator import grading_tests
from execugraph.agents.execution import execute
from execugraph.grading import passed, protocol_note, suite_digest
from execugraph.state import TrialState


def grade(state: TrialState, ctx: TrialContext) -> TrialState:
    attempt = max(0, state.get("attempt", 1) - 1)
    protocol = ctx.config.grading_protocol
    with ctx.step("grade", attempt) as out:
        samples = state.get("samples")
        tests, source = grading_tests(ctx, state)
        if samples:  # best-of-N: pass@N is any sample passing; pass@1 is the mean over samples
            winner = next((s for s in samples if s["passed"]), samples[-1])
            result, code = winner["result"], winner["code"]
            out.update(samples_total=len(samples), samples_passed=sum(s["passed"] for s in samples))
        else:
            code = state.get("code", "")
            previous = state.get("feedback_result") or {}
            if previous.get("code") == code and state.get("feedback_tests") == tests:
                result = previous
                out["reused_execution"] = True
            else:
                result = execute(ctx, code, tests, "grading")
        ok = passed(result)
        digest = suite_digest(tests)
        out.update(passed=ok, verdict=result["verdict"], tests_passed=result["tests_passed"],
                   tests_total=result["tests_total"], test_source=source, grading_protocol=protocol,
                   suite_digest=digest)
        note = protocol_note(ctx.problem, protocol)
        if note:
            out["protocol_note"] = note
    return {"grading": result | {"passed": ok, "code": code, "suite_digest": digest}, "code": code,
            "test_source": source}
