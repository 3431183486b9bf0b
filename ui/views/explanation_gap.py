"""Why a trial has no explanation, in words, from what the store kept (the explainer step's output and its calls):
"no explanation" alone left a user guessing whether the explainer was off, failed, or the model said nothing."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from execugraph.parsing import parse_plan
from ui.views.formatting import duration


class CallLike(Protocol):
    """The fields of a stored LLM call this module reads (execugraph.store.LLMCall has them)."""

    response: str
    tokens_out: int
    latency_s: float
    cache_hit: bool


def explainer_step_gap(output: Mapping[str, Any], calls: Sequence[CallLike]) -> str:
    """Why an explainer step that ran left no explanation: it raised, made no call, got an empty or unusable reply."""
    error = output.get("error")
    if error:
        return f"the explainer raised {error} before it had an answer"
    if not calls:
        return "the explainer step recorded no model call (it stopped before asking the model)"
    last = calls[-1]
    spent = f"{last.tokens_out} output tokens in {duration(last.latency_s)}"
    source = "a cached reply" if last.cache_hit else "the model"
    if not (last.response or "").strip():
        if last.tokens_out:
            return (f"{source} returned an empty reply after {spent} (a reasoning model can spend its whole "
                    "budget on thinking the server does not return)")
        return f"{source} returned an empty reply ({spent})"
    if parse_plan(last.response).value:  # the text is usable now (a later parser): say so rather than guess
        return f"the explainer stored no text, though {source}'s reply ({spent}) reads as one; the reply is below"
    return (f"nothing of {source}'s reply ({spent}) was left once chatter, code fences and <think> blocks were "
            "removed; the reply is below")


def trial_gap(explainer_on: bool, explainer_steps: int, status: str) -> str | None:
    """Why a finished trial has no explanation when no explainer step says why (None: an explainer step does)."""
    if not explainer_on:
        return "this condition runs without the explainer"
    if explainer_steps:
        return None
    if status == "error":
        return "the trial stopped with an error before the explainer ran"
    if status != "done":
        return "the explainer has not run yet (the trial is not finished)"
    return "the trial ended before the explainer ran"
