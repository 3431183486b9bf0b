"""Generator: plan-conditioned code; on a retry it sees structured execution feedback.

A retry that returns the previous attempt's program unchanged makes no progress: it is recorded
(`unchanged` in this step, `no_progress` in the evaluator's and in the trial's message), and the
next retry prompt says so, asking for a different program (the README's Conditions section).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from langgraph.runtime import Runtime

from execugraph.agents.context import TrialContext
from execugraph.agents.prompts import format_review, render, task_values
from execugraph.agents.registry import Block, NodeSpec, TraceView, WrittenCode, register
from execugraph.agents.state import TrialState
from execugraph.domain.steps import GeneratorOutput
from execugraph.parsing import extract_code

UNCHANGED_NOTE = (
    "Your last answer repeated this same program unchanged, so it failed the same way again. "
    "Do not send it back as it is: find what is wrong and write a program that differs from it."
)


def _same_program(a: str, b: str) -> bool:
    """Whether two programs are the same text, ignoring trailing whitespace on lines and at the ends."""
    def norm(code: str) -> str:
        return "\n".join(line.rstrip() for line in code.strip().splitlines())

    return bool(a.strip()) and norm(a) == norm(b)


def _prompt(state: TrialState, ctx: TrialContext) -> str:
    common = task_values(ctx.problem)
    decision = state.get("decision")
    if decision == "retry":
        return render("generator_retry", **common, code=state.get("code", ""), feedback=state.get("feedback", ""),
                      unchanged=UNCHANGED_NOTE if state.get("unchanged") else "")
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
        unchanged = decision == "retry" and _same_program(parsed.value, state.get("code", ""))
        if unchanged:
            out["unchanged"] = True
    update: TrialState = {
        "code": parsed.value,
        "attempt": attempt + 1,
        "repairs": [*state.get("repairs", []), *parsed.repairs],
        "unchanged": unchanged,
    }
    if decision == "retry":
        update["retries_used"] = state.get("retries_used", 0) + 1
    if unchanged:
        update["no_progress"] = [*state.get("no_progress", []), attempt]
    if decision == "revise":
        update["review_gated"] = True
    return update


# -- how a trace shows a generator step ------------------------------------------------------------------
def _unparsed(output: Mapping[str, Any]) -> str | None:
    if cast(GeneratorOutput, output).get("parsed_ok") is False:
        return "No usable code could be extracted from the generator's reply. The reply as written:"
    return None


def _body(output: Mapping[str, Any]) -> list[Block]:
    problem = _unparsed(output)
    code = cast(GeneratorOutput, output).get("code") or "# (no code)"
    return [*([Block("unparsed", problem)] if problem else []), Block("code", code, "python", line_numbers=True)]


def _written(output: Mapping[str, Any]) -> WrittenCode:
    """Each attempt is the trial's new program (the code tracking the trace and Compare follow)."""
    made = cast(GeneratorOutput, output)
    return WrittenCode(code=made.get("code"), note=made.get("reason", "initial"), replaces=True)


SPEC = register(NodeSpec(
    name="generator", run=generate, output_type=GeneratorOutput, prompt="generator", colour="#1e88e5",
    icon=":material/code:",
    trace=TraceView(
        gist=lambda output: cast(GeneratorOutput, output).get("reason", ""),
        body=_body,
        signature=lambda output: (str(cast(GeneratorOutput, output).get("code", "")).strip(),),
        differs="wrote different code",
        unparsed=_unparsed,
    ),
    writes=_written,
))
