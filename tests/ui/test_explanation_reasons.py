"""Issue 41: where Trace has no explanation to show it says why, from the stored step and its LLM call: an empty
reply (with the tokens a reasoning model spent), a reply that was all chatter (shown), a step that raised; and
Synthesize says when the condition has no explainer or the trial ended before it ran."""

from __future__ import annotations

import json
from typing import Any

from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from execugraph.benchmarks import load_benchmark
from execugraph.configuration.conditions import resolve_condition
from execugraph.workflow.single import run_single
from execugraph.workflow.trial import TrialDeps
from standins.scripted import ScriptedChatModel, fenced, scripted
from tests.support.reference_internal30 import REFERENCE
from tests.ui.conftest import no_exception, texts
from tests.ui.synthesize_form import fill_add_problem
from ui.views.explanation_gap import explainer_step_gap, trial_gap

REVIEW = json.dumps({"invariants": [], "potential_failures": [], "severity": "low"})


class HiddenThinking(ScriptedChatModel):
    """A reasoning model behind a server that returns no thinking: empty content, yet output tokens were spent."""

    spent: int = 126

    def _generate(self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any) -> ChatResult:
        usage = {"input_tokens": 40, "output_tokens": self.spent, "total_tokens": 40 + self.spent}
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content="", usage_metadata=usage))])


def _trial(store, explainer) -> int:  # noqa: ANN001
    problem = next(p for p in load_benchmark("internal30") if p.id == "fib")
    code = fenced(REFERENCE["fib"])
    chat = scripted(planner=["plan"], generator=[code], reviewer=[REVIEW], optimizer=[code])
    chat["explainer"] = explainer
    _, result = run_single(store, problem, resolve_condition("multi-full"), TrialDeps(chat_models=chat))
    assert result.status == "done", result.message
    return result.trial_id


def _explainer_lines(at) -> list[str]:  # noqa: ANN001
    return [m for m in texts(at, "markdown") if m.startswith("_no explanation_")]


def test_an_empty_reply_names_the_tokens_it_cost(app, db_store):
    trial_id = _trial(db_store, HiddenThinking(replies=[""]))
    at = app("trace", trial=str(trial_id))
    no_exception(at)
    lines = _explainer_lines(at)
    assert len(lines) == 1, texts(at, "markdown")
    assert "the model returned an empty reply after 126 output tokens" in lines[0]
    assert "reasoning model" in lines[0]


def test_a_reply_of_chatter_only_is_shown_beside_the_reason(app, db_store):
    trial_id = _trial(db_store, ScriptedChatModel(replies=["Sure! Here is the explanation:"]))
    step = next(s for s in db_store.steps_for_trial(trial_id) if s.node == "explainer")
    assert not (step.output or {}).get("explanation")  # the parser kept nothing: the case this test is about
    at = app("trace", trial=str(trial_id))
    no_exception(at)
    lines = _explainer_lines(at)
    assert len(lines) == 1 and "nothing of the model's reply" in lines[0], lines
    assert any(c.value == "Sure! Here is the explanation:" for c in at.code)


def test_a_real_explanation_has_no_reason_line(app, db_store):
    trial_id = _trial(db_store, ScriptedChatModel(replies=["It adds the two previous numbers."]))
    at = app("trace", trial=str(trial_id))
    no_exception(at)
    assert _explainer_lines(at) == []
    assert "It adds the two previous numbers." in texts(at, "markdown")


def test_a_step_that_raised_and_a_trial_without_explainer_say_so():
    assert explainer_step_gap({"error": "TimeoutError: no answer in 600 s"}, []).startswith(
        "the explainer raised TimeoutError"
    )
    assert "recorded no model call" in explainer_step_gap({}, [])
    assert trial_gap(False, 0, "done") == "this condition runs without the explainer"
    assert trial_gap(True, 0, "error") == "the trial stopped with an error before the explainer ran"
    assert trial_gap(True, 1, "done") is None  # the explainer step below gives its own reason


def test_synthesize_says_the_condition_has_no_explainer(app):
    from ui.keys import Synthesize

    at = app("synthesize")
    fill_add_problem(at, "single-oneshot")
    at.button(key=Synthesize.SUBMIT).click().run()
    no_exception(at)
    job = at.session_state[Synthesize.JOB]
    assert job is not None and job.wait(120) and job.error is None
    at.run()
    no_exception(at)
    captions = texts(at, "caption")
    assert any("No explanation: this condition runs without the explainer." in c for c in captions), captions
