"""Evaluator: runs the candidate in the sandbox and decides retry, optimize or grade.

The tests that feed the loop depend on `feedback_tests`: the grading tests themselves
(the paper's behaviour), a visible subset (held-out rest grades), or model-written tests.
Which is which is `execugraph.grading.rules`'s rule; this agent only asks the model for tests
when that rule needs them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from langgraph.runtime import Runtime

from execugraph.agents.context import TrialContext
from execugraph.agents.execution import execute
from execugraph.agents.prompts import format_feedback, render, task_values
from execugraph.agents.registry import Block, NodeSpec, TraceView, register
from execugraph.agents.state import Sample, TrialState
from execugraph.domain.json_types import JsonObject
from execugraph.domain.steps import Decision, EvaluatorOutput, TestWriting
from execugraph.grading.rules import (
    SMOKE_TEST,
    GradingSettings,
    SuiteTest,
    loop_tests,
    with_generated,
)
from execugraph.grading.rules import grading_tests as rule_grading_tests
from execugraph.parsing import parse_generated_stdio_tests, parse_generated_tests
from execugraph.safety.inert_text import md_text


def write_tests(state: TrialState, ctx: TrialContext, out: JsonObject) -> TrialState:
    """Ask the evaluator model for tests once per trial; malformed ones are dropped and counted.

    A problem without an entry point is a stdin/stdout program (see `task_values`): its tests are
    stdio tests (input text -> expected output text), never calls of `solve`.
    """
    if "generated_tests" in state:
        return {}
    values = task_values(ctx.problem)
    if ctx.problem.entry_point:
        parsed = parse_generated_tests(ctx.ask("evaluator", render("test_writer", **values)),
                                       values["entry_point"], ctx.problem.aliases, ctx.problem.signature)
    else:
        parsed = parse_generated_stdio_tests(ctx.ask("evaluator", render("test_writer_stdio", **values)))
    tests = list(parsed.value)
    dropped = int(getattr(parsed, "dropped", 0))
    out.update(TestWriting(generated_tests=len(tests), generated_dropped=dropped, repairs=parsed.repairs))
    return {"generated_tests": tests, "generated_dropped": dropped}


def choose_feedback_tests(state: TrialState, ctx: TrialContext,
                          out: JsonObject) -> tuple[list[SuiteTest], str, TrialState]:
    """(tests feeding the loop, test source grading the trial, state update)."""
    tests = loop_tests(ctx.problem, ctx.config.feedback_tests)
    if tests is not None:
        return tests, "problem", {}
    update = write_tests(state, ctx, out)
    generated = update.get("generated_tests", state.get("generated_tests", []))
    tests, source = with_generated(ctx.problem, generated)
    return tests, source, update


def _decide(state: TrialState, ctx: TrialContext, ok: bool) -> Decision:
    if ctx.config.best_of_n > 1:
        return "sample" if len(state.get("samples", [])) + 1 < ctx.config.best_of_n else "grade"
    if ok:
        return "optimize" if ctx.config.optimizer and not state.get("optimizer") else "grade"
    if state.get("retries_used", 0) < ctx.config.retry_budget:
        return "retry"
    return "grade"


def evaluate(state: TrialState, runtime: Runtime[TrialContext]) -> TrialState:
    ctx = runtime.context
    attempt = max(0, state.get("attempt", 1) - 1)
    code = state.get("code", "")
    with ctx.step("evaluator", attempt) as out:
        update: TrialState = {}
        if ctx.config.best_of_n > 1:  # sampling control: each sample is graded directly, no feedback loop
            tests, source = grading_tests(ctx, state)
            purpose = "grading"
        else:
            tests, source, update = choose_feedback_tests(state, ctx, out)
            purpose = "smoke" if tests == [SMOKE_TEST] else "feedback"
        result = execute(ctx, code, tests, purpose)
        ok = result.passed
        decision = _decide(state, ctx, ok)
        failure = result.first_failure
        feedback = ""
        if decision == "retry":
            feedback = format_feedback(result.outcome.test_results(), result.error_class, result.outcome.stderr)
        out.update(EvaluatorOutput(verdict=result.verdict, passed=ok, decision=decision, test_source=source,
                                   feedback=feedback, tests_passed=result.outcome.tests_passed,
                                   tests_total=result.outcome.tests_total, first_failure=failure))
        if state.get("unchanged"):  # this retry's program is the previous attempt's, unchanged
            out["no_progress"] = True
    update.update(
        feedback_result=result,
        feedback_passed=ok,
        feedback_tests=tests,
        test_source=source,
        decision=decision,
        feedback=feedback,
    )
    if ctx.config.best_of_n > 1:
        update["samples"] = [*state.get("samples", []), Sample(code=code, passed=ok, result=result)]
    return update


def grading_tests(ctx: TrialContext, state: TrialState) -> tuple[list[SuiteTest], str]:
    """The tests that grade the trial (the grading rule, with this trial's loop tests as the fallback)."""
    fallback = (state.get("feedback_tests") or [], state.get("test_source", "smoke"))
    return rule_grading_tests(ctx.problem, GradingSettings.of(ctx.config), fallback)


# -- how a trace shows an evaluator step -----------------------------------------------------------------
def _describe(output: Mapping[str, Any]) -> str:
    ran = cast(EvaluatorOutput, output)
    return f"{ran.get('verdict')} ({ran.get('tests_passed')}/{ran.get('tests_total')} tests, then {ran.get('decision')})"


def _gist(output: Mapping[str, Any]) -> str:
    ran = cast(EvaluatorOutput, output)
    return f"{ran.get('verdict')} {ran.get('tests_passed')}/{ran.get('tests_total')} -> {ran.get('decision')}"


def _body(output: Mapping[str, Any]) -> list[Block]:
    ran = cast(EvaluatorOutput, output)
    blocks = [
        Block("markdown", f"**Verdict:** {md_text(ran.get('verdict'))} · **tests:** {ran.get('tests_passed')}/"
                          f"{ran.get('tests_total')} ({md_text(ran.get('test_source', '?'))} tests) · **decision:** "
                          f"{md_text(ran.get('decision'))}"),
        Block("executions"),
    ]
    if ran.get("feedback"):
        blocks += [Block("caption", "Feedback sent to the generator"), Block("code", ran.get("feedback", ""))]
    return blocks


def _signature(output: Mapping[str, Any]) -> tuple[Any, ...]:
    ran = cast(EvaluatorOutput, output)
    return (ran.get("verdict"), ran.get("tests_passed"), ran.get("tests_total"), ran.get("decision"))


SPEC = register(NodeSpec(
    name="evaluator", run=evaluate, output_type=EvaluatorOutput, prompt="test_writer", colour="#f4511e",
    icon=":material/science:",
    trace=TraceView(gist=_gist, body=_body, signature=_signature, describe=_describe),
))
