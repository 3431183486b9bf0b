"""Logical Reviewer: structured critique before execution; advisory unless reviewer_gates is on."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from langgraph.runtime import Runtime

from execugraph.agents.context import TrialContext
from execugraph.agents.prompts import render
from execugraph.agents.registry import Block, NodeSpec, TraceView, register
from execugraph.agents.state import TrialState
from execugraph.domain.steps import ReviewerOutput, severity_of
from execugraph.parsing import parse_review
from execugraph.safety.inert_text import md_text


def review(state: TrialState, runtime: Runtime[TrialContext]) -> TrialState:
    ctx = runtime.context
    attempt = max(0, state.get("attempt", 1) - 1)
    with ctx.step("reviewer", attempt) as out:
        prompt = render("reviewer", statement=ctx.problem.statement, code=state.get("code", ""))
        parsed = parse_review(ctx.ask("reviewer", prompt))
        found = parsed.value  # always the three keys, severity normalised
        gate = ctx.config.reviewer_gates and found["severity"] == "high" and not state.get("review_gated")
        out.update(ReviewerOutput(review=found, repairs=parsed.repairs, gated=gate, parsed_ok=parsed.ok))
    return {
        "review": found,
        "decision": "revise" if gate else "evaluate",
        "repairs": [*state.get("repairs", []), *parsed.repairs],
    }


# -- how a trace shows a reviewer step -------------------------------------------------------------------
def _unparsed(output: Mapping[str, Any]) -> str | None:
    repairs = output.get("repairs") or []
    if cast(ReviewerOutput, output).get("parsed_ok") is False or "no_review_found" in repairs:
        return (
            "The reviewer's reply could not be read as a review: no severity, invariants or failures were "
            "found in it. The workflow went on as if the severity were low. The reply as written:"
        )
    if "missing_key:severity" in repairs:
        return "The reviewer's reply named no severity; low was assumed. The reply as written:"
    return None


def _gist(output: Mapping[str, Any]) -> str:
    gist = "reply not parsed" if _unparsed(output) else f"severity {severity_of(output) or '?'}"
    return gist + (", sent back" if cast(ReviewerOutput, output).get("gated") else "")


def _body(output: Mapping[str, Any]) -> list[Block]:
    found = cast(ReviewerOutput, output).get("review") or {}
    problem = _unparsed(output)
    blocks = [Block("unparsed", problem)] if problem else []
    blocks.append(Block("markdown", f"**Severity:** {md_text(severity_of(output) or '?')}"
                        + (" (assumed, not in the reply)" if problem else "")))
    for title, items in (("Invariants", found.get("invariants")), ("Potential failures", found.get("potential_failures"))):
        if items:
            blocks.append(Block("markdown", f"**{title}:**\n" + "\n".join(f"- {md_text(item)}" for item in items)))
    return blocks


SPEC = register(NodeSpec(
    name="reviewer", run=review, output_type=ReviewerOutput, prompt="reviewer", colour="#00897b",
    icon=":material/rate_review:",
    trace=TraceView(
        gist=_gist, body=_body, unparsed=_unparsed,
        signature=lambda output: (severity_of(output), bool(cast(ReviewerOutput, output).get("gated"))),
        describe=lambda output: f"severity {severity_of(output)}",
    ),
))
