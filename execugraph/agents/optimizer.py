"""Optimizer: a cleaner or faster version, kept only if it passes the same tests again."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from langgraph.runtime import Runtime

from execugraph.agents.context import TrialContext
from execugraph.agents.execution import execute
from execugraph.agents.prompts import render, task_values
from execugraph.agents.registry import Block, NodeSpec, TraceView, WrittenCode, register
from execugraph.agents.state import TrialState
from execugraph.domain.steps import OptimizerOutcome, OptimizerOutput
from execugraph.parsing import extract_code
from execugraph.safety.inert_text import md_text


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
            accepted = result.passed
            outcome = OptimizerOutcome(
                accepted=accepted,
                reason="passed the same tests" if accepted else "regression rejected",
                verdict=result.verdict,
                candidate=candidate,
            )
        out.update(OptimizerOutput(**outcome, repairs=parsed.repairs))
    return {
        "code": candidate if outcome["accepted"] else code,
        "optimizer": outcome,
        "decision": "grade",
        "repairs": [*state.get("repairs", []), *parsed.repairs],
    }


# -- how a trace shows an optimizer step -----------------------------------------------------------------
def _describe(output: Mapping[str, Any]) -> str:
    tried = cast(OptimizerOutput, output)
    return "accepted" if tried.get("accepted") else f"rejected ({tried.get('reason', '')})"


def _gist(output: Mapping[str, Any]) -> str:
    tried = cast(OptimizerOutput, output)
    return "accepted" if tried.get("accepted") else f"kept the original ({tried.get('reason', '')})"


def _body(output: Mapping[str, Any]) -> list[Block]:
    tried = cast(OptimizerOutput, output)
    blocks = [Block("markdown", f"**{'Accepted' if tried.get('accepted') else 'Rejected'}:** "
                                f"{md_text(tried.get('reason', ''))}")]
    if tried.get("candidate"):
        blocks.append(Block("diff", tried.get("candidate", "")))
    return [*blocks, Block("executions")]


def _signature(output: Mapping[str, Any]) -> tuple[Any, ...]:
    tried = cast(OptimizerOutput, output)
    return (bool(tried.get("accepted")), str(tried.get("candidate", "")).strip())


def _written(output: Mapping[str, Any]) -> WrittenCode:
    """A candidate is only proposed: the trial keeps its program unless the candidate was accepted."""
    tried = cast(OptimizerOutput, output)
    return WrittenCode(code=tried.get("candidate"), note="accepted" if tried.get("accepted") else "rejected",
                       replaces=False)


SPEC = register(NodeSpec(
    name="optimizer", run=optimize, output_type=OptimizerOutput, prompt="optimizer", colour="#fdd835",
    icon=":material/auto_fix_high:",
    trace=TraceView(gist=_gist, body=_body, signature=_signature, describe=_describe),
    writes=_written,
))
