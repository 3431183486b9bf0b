"""Logical Reviewer: structured critique before execution; advisory unless reviewer_gates is on."""

from __future__ import annotations

from typing import cast

from langgraph.runtime import Runtime

from execugraph.agents.context import TrialContext
from execugraph.agents.prompts import render
from execugraph.parsing import parse_review
from execugraph.state import TrialState
from execugraph.steps import Review, ReviewerOutput


def review(state: TrialState, runtime: Runtime[TrialContext]) -> TrialState:
    ctx = runtime.context
    attempt = max(0, state.get("attempt", 1) - 1)
    with ctx.step("reviewer", attempt) as out:
        prompt = render("reviewer", statement=ctx.problem.statement, code=state.get("code", ""))
        parsed = parse_review(ctx.ask("reviewer", prompt))
        found = cast(Review, parsed.value)  # parse_review always yields the three keys, severity normalised
        gate = ctx.config.reviewer_gates and found["severity"] == "high" and not state.get("review_gated")
        out.update(ReviewerOutput(review=found, repairs=parsed.repairs, gated=gate, parsed_ok=parsed.ok))
    return {
        "review": found,
        "decision": "revise" if gate else "evaluate",
        "repairs": [*state.get("repairs", []), *parsed.repairs],
    }
