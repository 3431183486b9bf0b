"""An external loop (a plugin's `register_loops`) as an arm of any batch: it writes the program, we grade it.

Why a graph of its own (loop -> grade, built by `workflow.graph`): the loop is a black box that takes a problem and model handles and
returns a program, so nothing of our six agents applies to it; but its program is graded by the same grade
node, sandbox and rules as ours, and its LLM calls land in the store as ours do, so its trials have traces,
verdicts and statistics like every other condition's.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler, CallbackManagerForLLMRun
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult, LLMResult
from langgraph.runtime import Runtime
from pydantic import PrivateAttr

from execugraph.agents.context import TrialContext
from execugraph.agents.registry import Block, NodeSpec, TraceView, WrittenCode, register
from execugraph.agents.state import TrialState
from execugraph.domain.problem import Problem
from execugraph.parsing import extract_code
from execugraph.providers.llm import LLMError, prompt_hash
from execugraph.providers.model_router import ModelRouter
from execugraph.store.models import utcnow
from execugraph.store.row_fields import LLMCallFields

LOOP_NODE = "loop"
LOOP_COLOUR = "#795548"


@dataclass(frozen=True)
class LoopAnswer:
    """What a loop may return instead of a bare program: the program and, optionally, its own account of it."""

    code: str
    explanation: str = ""


def _text(message: BaseMessage) -> str:
    return message.content if isinstance(message.content, str) else str(message.content)


def _role(message: BaseMessage) -> str:
    return {"human": "user", "ai": "assistant", "system": "system"}.get(message.type, "user")


class RouterChat(BaseChatModel):
    """A LangChain chat model whose every call goes through the trial's model router (recorded, cached, retried)."""

    role: str = "generator"
    _router: Any = PrivateAttr(default=None)

    @property
    def _llm_type(self) -> str:
        return "execugraph-router"

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: CallbackManagerForLLMRun | None = None, **kwargs: Any) -> ChatResult:
        router = cast(ModelRouter, self._router)
        reply = router.call(self.role, [{"role": _role(m), "content": _text(m)} for m in messages],
                            temperature=kwargs.get("temperature"), seed=kwargs.get("seed"))
        message = AIMessage(content=reply.text, usage_metadata={
            "input_tokens": reply.tokens_in, "output_tokens": reply.tokens_out,
            "total_tokens": reply.tokens_in + reply.tokens_out})
        return ChatResult(generations=[ChatGeneration(message=message)])


class RecordingCallback(BaseCallbackHandler):
    """Records the calls of chat models a loop builds itself (pass `callbacks=models.callbacks`) as LLM calls."""

    def __init__(self, router: ModelRouter, role: str = "loop") -> None:
        self.router = router
        self.role = role
        self._started: dict[UUID, tuple[float, list[dict[str, str]], str]] = {}

    def on_chat_model_start(self, serialized: dict[str, Any], messages: list[list[BaseMessage]], *, run_id: UUID,
                            **kwargs: Any) -> None:
        sent = [{"role": _role(m), "content": _text(m)} for m in (messages[0] if messages else [])]
        name = (kwargs.get("metadata") or {}).get("ls_model_name") or (serialized or {}).get("name") or "?"
        self._started[run_id] = (time.perf_counter(), sent, str(name))

    def on_llm_end(self, response: LLMResult, *, run_id: UUID, **kwargs: Any) -> None:
        started, sent, name = self._started.pop(run_id, (time.perf_counter(), [], "?"))
        generation = response.generations[0][0] if response.generations and response.generations[0] else None
        text = generation.text if generation is not None else ""
        usage = getattr(getattr(generation, "message", None), "usage_metadata", None) or {}
        tokens_in = int(usage.get("input_tokens") or 0)
        tokens_out = int(usage.get("output_tokens") or 0)
        self.router.usage.calls += 1
        self.router.usage.tokens_in += tokens_in
        self.router.usage.tokens_out += tokens_out
        row = LLMCallFields(role=self.role, provider="plugin", model=f"plugin:{name}", messages=sent, response=text,
                            tokens_in=tokens_in, tokens_out=tokens_out, latency_s=time.perf_counter() - started,
                            seed=None, temperature=None, cache_hit=False, prompt_hash=prompt_hash(sent),
                            created_at=utcnow())
        if self.router.sink is not None:
            self.router.sink(row)


class LoopModels:
    """The model handles a loop gets: `chat(role)` for the condition's models, `callbacks` for its own."""

    def __init__(self, router: ModelRouter) -> None:
        self._router = router
        self.callbacks: list[BaseCallbackHandler] = [RecordingCallback(router)]

    def chat(self, role: str = "generator") -> BaseChatModel:
        """The chat model the condition configures for `role` (its calls are recorded as that role's)."""
        model = RouterChat(role=role)
        model._router = self._router
        return model

    def spec(self, role: str = "generator") -> str:
        """The provider spec behind `chat(role)`, e.g. `llamacpp:default`."""
        return self._router.spec_for(role)


def _answer(value: Any, name: str) -> LoopAnswer:
    if isinstance(value, LoopAnswer):
        return value
    if isinstance(value, str):
        return LoopAnswer(value)
    if isinstance(value, Mapping) and isinstance(value.get("code"), str):
        return LoopAnswer(value["code"], str(value.get("explanation") or ""))
    raise TypeError(f"loop {name!r} returned {type(value).__name__}; it must return a program (str) or LoopAnswer")


def run_loop(state: TrialState, runtime: Runtime[TrialContext]) -> TrialState:
    """Run the condition's external loop once and keep the program it returns for the grade node."""
    from execugraph.plugins import registry

    ctx = runtime.context
    name = ctx.config.loop or ""
    entry = registry().loops.get(name)
    with ctx.step(LOOP_NODE, 0) as out:  # type: ignore[arg-type]  # a standalone node
        out["loop"] = name
        if entry is None:
            raise LLMError(f"no installed plugin registers the loop {name!r} (python -m execugraph plugins)")
        out["plugin"] = entry.plugin
        answer = _answer(entry.run(problem_view(ctx.problem), LoopModels(ctx.router)), name)
        code = (extract_code(answer.code, ctx.problem.entry_point, ctx.problem.aliases).value
                if "```" in answer.code else answer.code)
        out["code"] = code
        if answer.explanation:
            out["explanation"] = answer.explanation
    update: TrialState = {"code": code, "attempt": 1}
    if answer.explanation:
        update["explanation"] = answer.explanation
    return update


def problem_view(problem: Problem) -> Problem:
    """What a loop sees of a problem: everything but the held-out tests and the reference solution."""
    return problem.model_copy(update={"tests": problem.visible_tests(), "reference": ""})


def _gist(output: Mapping[str, Any]) -> str:
    return f"external loop {output.get('loop', '?')}"


def _body(output: Mapping[str, Any]) -> list[Block]:
    blocks = [Block("caption", f"written by the plugin loop `{output.get('loop', '?')}` "
                               f"({output.get('plugin', 'unknown plugin')})")]
    if output.get("code"):
        blocks.append(Block("code", str(output["code"]), language="python", line_numbers=True))
    if output.get("explanation"):
        blocks.append(Block("explanation", str(output["explanation"])))
    return blocks


def _written(output: Mapping[str, Any]) -> WrittenCode | None:
    code = output.get("code")
    return WrittenCode(code if isinstance(code, str) else None, "external loop", True)


SPEC = register(NodeSpec(name=LOOP_NODE, run=run_loop, output_type=dict, colour=LOOP_COLOUR, standalone=True,
                         icon=":material/extension:", writes=_written,
                         trace=TraceView(gist=_gist, body=_body, signature=lambda o: (o.get("code"),),
                                         differs="wrote different code")))
