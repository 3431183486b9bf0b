"""Deterministic chat models for agent tests: scripted replies per role, prompts recorded."""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import PrivateAttr


class ScriptedChatModel(BaseChatModel):
    """Replies in order (the last one repeats); raises `error` instead when set."""

    replies: list[str]
    error: str | None = None
    _prompts: list[str] = PrivateAttr(default_factory=list)
    _index: int = PrivateAttr(default=0)

    @property
    def _llm_type(self) -> str:
        return "scripted"

    @property
    def prompts(self) -> list[str]:
        return self._prompts

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        self._prompts.append("\n".join(str(m.content) for m in messages))
        if self.error:
            raise ConnectionError(self.error)
        text = self.replies[min(self._index, len(self.replies) - 1)]
        self._index += 1
        usage = {"input_tokens": 10, "output_tokens": len(text.split()), "total_tokens": 10 + len(text.split())}
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text, usage_metadata=usage))])


def scripted(**roles: list[str]) -> dict[str, ScriptedChatModel]:
    """`scripted(generator=[...], reviewer=[...])` -> chat models to inject per role."""
    return {role: ScriptedChatModel(replies=replies) for role, replies in roles.items()}


def fenced(code: str) -> str:
    """Wrap code the way chat models usually answer."""
    return f"Here is the solution:\n```python\n{code.strip()}\n```\nThis works in O(1)."
