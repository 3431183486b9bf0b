"""An example ExecuGraph plugin: one hook per kind of thing a plugin can add (see docs/plugins.md)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, TypedDict

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from execugraph.agents.registry import Block, NodeSpec, TraceView
from execugraph.domain.problem import Problem
from execugraph.plugins import hookimpl

SOLUTIONS = {
    "add": "def add(a, b):\n    return a + b\n",
    "double": "def double(x):\n    return 2 * x\n",
    "is_even": "def is_even(n):\n    return n % 2 == 0\n",
}


# -- a benchmark -----------------------------------------------------------------------------------------------
def load_toy(**opts: Any) -> list[Problem]:
    """Three toy problems with call tests (options are accepted and ignored)."""
    specs = [
        ("add", "Return the sum of a and b.", [([1, 2], 3), ([-1, 1], 0), ([10, 5], 15)]),
        ("double", "Return twice x.", [([2], 4), ([0], 0), ([-3], -6)]),
        ("is_even", "Return True when n is even.", [([2], True), ([3], False), ([0], True)]),
    ]
    return [Problem(id=f"toy_{name}", benchmark="toy-arith", category="arith", statement=statement,
                    entry_point=name, signature=f"def {name}(...)",
                    tests=[{"kind": "call", "args": args, "expected": expected} for args, expected in cases])
            for name, statement, cases in specs]


@hookimpl
def register_benchmarks(register: Any) -> None:
    register("toy-arith", load_toy, description="three toy functions (example plugin)")


# -- a model provider ------------------------------------------------------------------------------------------
class ToyChat(BaseChatModel):
    """Answers with the toy program whose function the prompt names (a fenced block, as a model would)."""

    variant: str = "scripted"

    @property
    def _llm_type(self) -> str:
        return "toy"

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        prompt = " ".join(str(m.content) for m in messages)
        asked = str(messages[-1].content) if messages else ""  # the task, not the system prompt's examples
        name = next((n for n in SOLUTIONS if re.search(rf"`{n}`|def {n}\(|Write {n}\b", asked)), None)
        code = SOLUTIONS[name] if name else "def solution():\n    return None\n"
        message = AIMessage(content=f"```python\n{code}```", usage_metadata={
            "input_tokens": len(prompt) // 4, "output_tokens": len(code) // 4,
            "total_tokens": len(prompt) // 4 + len(code) // 4})
        return ChatResult(generations=[ChatGeneration(message=message)])


@hookimpl
def register_providers(register: Any) -> None:
    register("toy", lambda name, **kwargs: ToyChat(variant=name), description="toy answers (example plugin)",
             example="scripted")


# -- an external loop ------------------------------------------------------------------------------------------
def toy_echo(problem: Problem, models: Any) -> str:
    """One call to the condition's generator model; its reply is the program."""
    reply = models.chat("generator").invoke(f"Write {problem.entry_point}: {problem.statement}")
    return str(reply.content)


@hookimpl
def register_loops(register: Any) -> None:
    register("toy-echo", toy_echo, description="one model call, no feedback (example plugin)")


# -- an agent node and a condition that runs it ----------------------------------------------------------------
class CriticOutput(TypedDict):
    defines_entry_point: bool
    lines: int


def toy_critic(state: Mapping[str, Any], runtime: Any) -> dict[str, Any]:
    """Notes whether the generated program defines the entry point (a step of its own in the trace)."""
    ctx = runtime.context
    code = state.get("code", "") or ""
    with ctx.step("toy_critic", max(0, state.get("attempt", 1) - 1)) as out:
        out.update(CriticOutput(defines_entry_point=f"def {ctx.problem.entry_point}(" in code,
                                lines=len(code.splitlines())))
    return {}


def _critic_body(output: Mapping[str, Any]) -> list[Block]:
    ok = output.get("defines_entry_point")
    return [Block("success" if ok else "error", "defines the entry point" if ok else "entry point missing")]


CRITIC = NodeSpec(name="toy_critic", run=toy_critic, output_type=CriticOutput, colour="#009688", follows="generator",
                  trace=TraceView(gist=lambda o: f"{o.get('lines', 0)} lines", body=_critic_body))


@hookimpl
def register_agents(register: Any) -> None:
    register(CRITIC)


@hookimpl
def register_conditions(register: Any) -> None:
    register("toy-critic", {"mode": "multi", "planner": False, "reviewer": False, "optimizer": False,
                            "explainer": False, "retry_budget": 1, "nodes": ["toy_critic"]},
             description="generator, the toy critic, evaluator (example plugin)")
