"""Generator: plan-conditioned code; on a retry it sees structured execution feedback."""

from __future__ import annotations

from langgraph.runtime import Runtime

from execugraph.agents.context import TrialContext
from execugraph.agents.prompts import format_review, render, task_values
from execugraph.parsing import extract_code
from execugraph.state import TrialState
from execugraph.steps import GeneratorOutput


def _prompt(state: TrialState, ctx: TrialContext) -> str:
    common = task_values(ctx.problem)
    decision = state.get("decision")
    if decision == "retry":
        return render("generator_retry", **common, code=state.get("code", ""), feedback=state.get("feedback", ""))
    if decision == "revise":
        review = format_review(state.get("review", {}))
        return render("generator_revise", **common, code=state.get("code", ""), review=review)
    if ctx.config.mode == "single":
        return render("single", **common)
    return render("generator", **common, plan=state.get("plan", ""))


def generate(state: TrialState, runtime: Runtime[TrialContext]) -> TrialState:
    ctx = runtime.context
    attempt = state.get("attempt", 0)
    decision = state.get("decision")
    sampling = ctx.config.best_of_n > 1
    with ctx.step("generator", attempt) as out:
        text = ctx.ask(
            "generator",
            _prompt(state, ctx),
            seed=ctx.config.seed + attempt if sampling else None,
        )
        parsed = extract_code(text, ctx.problem.entry_point, ctx.problem.aliases)
        out.update(GeneratorOutput(code=parsed.value, repairs=parsed.repairs, parsed_ok=parsed.ok,
                                   reason=decision or "initial"))
    update: TrialState = {
        "code": parsed.value,
        "attempt": attempt + 1,
        "repairs": [*state.get("repairs", []), *parsed.repairs],
    }
    if decision == "retry":
        update["retries_used"] = state.get("retries_used", 0) + 1
    if decision == "revise":
        update["review_gated"] = True
    return update
