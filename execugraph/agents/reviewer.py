"""Logical Reviewer: structured critique before execution; advisory unless reviewer_gates is on."""

from __future__ import annotations

from execugraph.agents.context import TrialContext
from execugraph.agents.prompts import render
from execugraph.parsing import parse_review
from execugraph.state import TrialState


def review(state: TrialState, ctx: TrialContext) -> TrialState:
    attempt = max(0, state.get("attempt", 1) - 1)
    with ctx.step("reviewer", attempt) as out:
        prompt = render("reviewer", statement=ctx.problem.statement, code=state.get("code", ""))
        parsed = parse_review(ctx.ask("reviewer", prompt))
        gate = ctx.config.reviewer_gates and parsed.value.get("severity") == "high" and not state.get("review_gated")
        out.update(review=parsed.value, repairs=parsed.repairs, gated=gate, parsed_ok=parsed.ok)
    return {
        "review": parsed.value,
        "decision": "revise" if gate else "evaluate",
        "repairs": [*state.get("repairs", []), *parsed.repairs],
    }
