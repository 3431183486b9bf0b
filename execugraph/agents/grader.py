"""Final grading of the trial's program on the grading tests (reusing an identical earlier run).

The tests, the protocol and the pass rule are `execugraph.grading.rules`'s; the step records the
protocol in force (and when it coincides with `standalone`) and a digest of the tests, so a
later rescore can tell whether it grades on the very suite this trial was graded on.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from langgraph.runtime import Runtime

from execugraph.agents.context import TrialContext
from execugraph.agents.evaluator import grading_tests
from execugraph.agents.execution import execute
from execugraph.agents.registry import Block, NodeSpec, TraceView, register
from execugraph.agents.state import Grading, TrialState
from execugraph.domain.steps import GradeOutput
from execugraph.grading.rules import protocol_note, suite_digest
from execugraph.safety.inert_text import md_text


def grade(state: TrialState, runtime: Runtime[TrialContext]) -> TrialState:
    ctx = runtime.context
    attempt = max(0, state.get("attempt", 1) - 1)
    protocol = ctx.config.grading_protocol
    with ctx.step("grade", attempt) as out:
        samples = state.get("samples")
        tests, source = grading_tests(ctx, state)
        reused = False
        if samples:  # best-of-N: pass@N is any sample passing; pass@1 is the mean over samples
            winner = next((s for s in samples if s["passed"]), samples[-1])
            result, code = winner["result"], winner["code"]
        else:
            code = state.get("code", "")
            previous = state.get("feedback_result")
            reused = previous is not None and previous.code == code and state.get("feedback_tests") == tests
            result = previous if previous is not None and reused else execute(ctx, code, tests, "grading")
        ok = result.passed
        digest = suite_digest(tests)
        output = GradeOutput(passed=ok, verdict=result.verdict, tests_passed=result.outcome.tests_passed,
                             tests_total=result.outcome.tests_total, test_source=source, grading_protocol=protocol,
                             suite_digest=digest)
        if samples:
            output["samples_total"] = len(samples)
            output["samples_passed"] = sum(s["passed"] for s in samples)
        if reused:
            output["reused_execution"] = True
        output["time_limits"] = result.time_limits.record() | {"wall_rule": result.outcome.limits.get("wall_rule")}
        note = protocol_note(ctx.problem, protocol)
        if note:
            output["protocol_note"] = note
        out.update(output)
    grading = Grading(passed=ok, verdict=result.verdict, tests_passed=result.outcome.tests_passed,
                      tests_total=result.outcome.tests_total, suite_digest=digest, code=code, outcome=result)
    return {"grading": grading, "code": code, "test_source": source}


# -- how a trace shows a grade step ----------------------------------------------------------------------
def _gist(output: Mapping[str, Any]) -> str:
    graded = cast(GradeOutput, output)
    return (f"{'PASSED' if graded.get('passed') else 'FAILED'} ({graded.get('verdict')}, "
            f"{graded.get('tests_passed')}/{graded.get('tests_total')})")


def _body(output: Mapping[str, Any]) -> list[Block]:
    graded = cast(GradeOutput, output)
    ok = graded.get("passed")
    said = (f"{'Passed' if ok else 'Failed'}: {md_text(graded.get('verdict'))}, "
            f"{graded.get('tests_passed')}/{graded.get('tests_total')} {md_text(graded.get('test_source', ''))} tests")
    return [Block("success" if ok else "error", said), Block("executions")]


def _describe(output: Mapping[str, Any]) -> str:
    graded = cast(GradeOutput, output)
    return f"{'passed' if graded.get('passed') else 'failed'} ({graded.get('verdict')})"


SPEC = register(NodeSpec(
    name="grade", run=grade, output_type=GradeOutput, colour="#6d4c41", icon=":material/flag:",
    trace=TraceView(gist=_gist, body=_body, describe=_describe,
                    signature=lambda output: (bool(output.get("passed")), output.get("verdict"))),
))
