"""What a model spec names (`provider:name`) and the error a model raises, without LangChain.

Why a module of its own: validating `--models` while enqueueing a batch, or a worker's `LLMError` checks, should not
load LangChain (about 0.6 s); `llm` re-exports every name here, so `llm.LLMError` is this very class.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["PROVIDERS", "EndpointUnreachableError", "LLMError", "ModelSpec", "parse_spec", "plugin_providers"]

PROVIDERS = ("ollama", "openai", "llamacpp", "replay")


class LLMError(RuntimeError):
    """A model could not answer; the message names provider, host/model and what to do."""


class EndpointUnreachableError(LLMError):
    """The model's server stayed unreachable for the whole outage budget (the fault itself was transient)."""

    def __init__(self, message: str, endpoint: str) -> None:
        super().__init__(message)
        self.endpoint = endpoint


@dataclass(frozen=True)
class ModelSpec:
    provider: str
    name: str

    def __str__(self) -> str:
        return f"{self.provider}:{self.name}"


def plugin_providers() -> dict[str, Any]:
    """Every registered provider prefix -> ProviderEntry (the built-ins and the installed plugins')."""
    from execugraph.plugins import registry

    return registry().providers


def parse_spec(spec: str) -> ModelSpec:
    """Split `provider:name`; the name may itself contain colons (`ollama:qwen2.5-coder:7b`)."""
    provider, sep, name = spec.strip().partition(":")
    if not sep or not name or (provider not in PROVIDERS and provider not in plugin_providers()):
        extra = [f"{p}:<{e.example or 'name'}>" for p, e in plugin_providers().items() if p not in PROVIDERS]
        raise LLMError(
            f"bad model spec {spec!r}: use ollama:<model>, openai:<model>, llamacpp:<gguf path or 'default'>, "
            f"replay:<run id>{''.join(', ' + e for e in extra)}"
        )
    return ModelSpec(provider, name)
