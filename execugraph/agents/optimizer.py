"""Optimizer: a cleaner or faster version, kept only if it passes the same tests again."""

from __future__ import annotations

from langgraph.runtime import Runtime

from execugraph.agents.context import TrialContext
from execugraph.agents.execution import execute, passed
from execugraph.agents.prompts import render, task_values
from execugraph.parsing import extract_code
from execugraph.state import TrialState
from execugraph.steps import OptimizerOutcome, OptimizerOutput


def optimize(state: TrialState, runtime: Runtime[TrialContext]) -> TrialState:
    ctx = runtime.context
    attempt = max(0, state.get("attempt", 1) - 1)
    code = state.get("code", "")
    with ctx.step("optimizer", attempt) as out:
        prompt = render("optimizer", **task_values(ctx.problem), code=code)
        parsed = extract_code(ctx.ask("optimizer", prompt), ctx.problem.entry_point, ctx.problem.aliases)
        candidate = parsed.value
        if not parsed.ok or not candidate.strip() or candidate.strip() == code.strip():
            outcome = OptimizerOutcome(accepted=False, reason="no usable change proposed", verdict=None)
        else:
            result = execute(ctx, candidate, state.get("feedback_tests", []), "optimizer")
            accepted = passed(result)
            outcome = OptimizerOutcome(
                accepted=accepted,
                reason="passed the same tests" if accepted else "regression rejected",
                verdict=result["verdict"],
                candidate=candidate,
            )
        out.update(OptimizerOutput(**outcome, repairs=parsed.repairs))
    return {
        "code": candidate if outcome["accepted"] else code,
        "optimizer": outcome,
        "decision": "grade",
        "repairs": [*state.get("repairs", []), *parsed.repairs],
    }
