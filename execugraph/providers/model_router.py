"""Per-trial access to the role models: response cache, cost accounting and an LLMCall row per call."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

from execugraph.domain.config import RunConfig
from execugraph.domain.json_types import JsonObject
from execugraph.providers.clients import client_key, seed_kwargs, shared_chat_model
from execugraph.providers.llm import EndpointUnreachableError, LLMError, make_chat_model, parse_spec, prompt_hash
from execugraph.providers.outages import EndpointWaiter, GiveUp, TrialInterrupted
from execugraph.store.models import utcnow
from execugraph.store.row_fields import LLMCallFields

if TYPE_CHECKING:
    from execugraph.store import Store

Messages = list[dict[str, str]]


@dataclass
class Reply:
    text: str
    tokens_in: int
    tokens_out: int
    latency_s: float
    cache_hit: bool


@dataclass
class Usage:
    """Running cost of one trial."""

    calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0


def _to_lc(messages: Messages) -> list[Any]:
    kinds = {"system": SystemMessage, "user": HumanMessage, "assistant": AIMessage}
    return [kinds[m["role"]](content=m["content"]) for m in messages]


def _estimate_tokens(text: str) -> int:
    return max(1, len(text) // 4) if text else 0


def describe_model_failure(spec: str, summary: str, endpoint: str | None) -> str:
    """Turn a provider failure that waiting cannot fix into one sentence naming server, model and the fix."""
    provider, _, name = spec.partition(":")
    lowered = summary.lower()
    if provider == "ollama":
        if "not found" in lowered or "404" in lowered:
            return f"model {name!r} is not pulled on Ollama at {endpoint}: run `ollama pull {name}` ({summary})"
        return f"Ollama at {endpoint} refused model {name}: {summary}"
    if provider == "openai":
        if "not found" in lowered or "404" in lowered:
            return (f"model {name!r} is not served by the OpenAI-compatible server at {endpoint}: start the server "
                    f"with that model or pick one listed by {endpoint}/models ({summary})")
        if "401" in lowered or "403" in lowered or "authentication" in lowered:
            return (f"the OpenAI-compatible server at {endpoint} refused the API key for model {name}: "
                    f"set EXECUGRAPH_OPENAI_API_KEY ({summary})")
        if "context" in lowered:
            return f"the prompt does not fit model {name}'s context at {endpoint}: {summary}"
        return f"the OpenAI-compatible server at {endpoint} refused model {name}: {summary}"
    return f"{spec} failed: {summary}"


class ModelRouter:
    """Routes each role's prompt to its chat model; every call is persisted as it happens."""

    def __init__(
        self,
        config: RunConfig,
        store: Store,
        trial_id: int,
        *,
        ollama_host: str,
        openai_base_url: str | None = None,
        run_id: int | None = None,
        chat_models: dict[str, BaseChatModel] | None = None,
        replay_loader: Callable[[int, str], dict[str, list[str]]] | None = None,
        interrupted: Callable[[], TrialInterrupted | None] | None = None,
    ) -> None:
        self.config = config
        self.store = store
        self.trial_id = trial_id
        self.run_id = run_id
        self.ollama_host = ollama_host
        self.openai_base_url = openai_base_url
        self.interrupted = interrupted
        self.usage = Usage()
        self._injected = chat_models or {}
        self._replay_loader = replay_loader
        self._models: dict[str, BaseChatModel] = {}
        # Where LLMCall rows go: the current step's buffer (written with the step), else straight to the store.
        self.sink: Callable[[LLMCallFields], None] | None = None

    def spec_for(self, role: str) -> str:
        return "scripted:test" if role in self._injected else self.config.model_for(role)

    def endpoint_for(self, spec: str) -> str | None:
        """The server a spec's calls go to (None for in-process and recorded models, which have no outages)."""
        provider = spec.partition(":")[0]
        if provider == "ollama":
            return self.ollama_host
        if provider == "openai":
            if self.openai_base_url is None:
                from execugraph.configuration.settings import load_settings

                self.openai_base_url = load_settings().openai_base_url
            return self.openai_base_url
        return None

    def _model(self, role: str, temperature: float) -> BaseChatModel:
        """The role's client; the seed is not part of it but goes with each request (`_invoke`)."""
        if role in self._injected:
            return self._injected[role]
        key = f"{role}:{temperature}"
        if key not in self._models:
            spec = self.config.model_for(role)
            answers = None
            if parse_spec(spec).provider == "replay":
                if self._replay_loader is None:
                    raise LLMError("replay provider needs a store to read the recorded run from")
                answers = self._replay_loader(int(parse_spec(spec).name), role)
            if answers is None:  # stateless clients are shared process-wide (an HTTP client costs ~0.1 s CPU)
                self._models[key] = shared_chat_model(client_key(self.config, role, temperature, self.endpoint_for(spec)))
            else:
                self._models[key] = make_chat_model(spec, role=role, replay_answers=answers)
        return self._models[key]

    def _cache_key(self, spec: str, messages: Messages, temperature: float, seed: int, role: str = "") -> str:
        max_tokens, penalty = self.config.decoding_for(role)
        key: JsonObject = {"spec": spec, "messages": messages, "t": temperature, "seed": seed, "max": max_tokens}
        if penalty is not None:  # only then: every other role keeps the keys it had before
            key["repeat_penalty"] = penalty
        if spec.startswith("openai:"):  # two servers may serve different weights under one model name
            key["url"] = self.endpoint_for(spec)
        blob = json.dumps(key, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(blob.encode()).hexdigest()

    def call(
        self,
        role: str,
        messages: Messages,
        *,
        temperature: float | None = None,
        seed: int | None = None,
    ) -> Reply:
        """Ask `role`'s model; raises LLMError with a helpful message when the provider fails.

        A transient fault of a served model (connection refused or reset, timeout, 5xx, 429)
        is waited out within the outage budget (see `execugraph.providers.outages`); a permanent one
        (unknown model, other 4xx, prompt over the context) raises at once.
        """
        temperature = self.config.temperature if temperature is None else temperature
        seed = self.config.seed if seed is None else seed
        spec = self.spec_for(role)
        provider = spec.partition(":")[0]
        use_cache = self.config.cache_enabled and provider not in ("replay", "scripted") and temperature == 0.0
        key = self._cache_key(spec, messages, temperature, seed, role)
        reply: Reply | None = None
        if use_cache:
            hit = self.store.cache_get(key)
            if hit is not None:
                reply = Reply(hit.response, hit.tokens_in, hit.tokens_out, 0.0, True)
        if reply is None:
            model = self._model(role, temperature)
            message, latency = self._invoke(role, spec, model, messages, seed)
            text = message.content if isinstance(message.content, str) else json.dumps(message.content)
            usage = getattr(message, "usage_metadata", None) or {}
            tokens_in = int(usage.get("input_tokens") or _estimate_tokens("".join(m["content"] for m in messages)))
            tokens_out = int(usage.get("output_tokens") or _estimate_tokens(text))
            reply = Reply(text, tokens_in, tokens_out, latency, False)
            if use_cache:
                self.store.cache_put(key, provider, spec, text, tokens_in, tokens_out)
        self.usage.calls += 1
        self.usage.tokens_in += reply.tokens_in
        self.usage.tokens_out += reply.tokens_out
        row = LLMCallFields(
            role=role,
            provider=provider,
            model=spec,
            messages=messages,
            response=reply.text,
            tokens_in=reply.tokens_in,
            tokens_out=reply.tokens_out,
            latency_s=reply.latency_s,
            seed=seed,
            temperature=temperature,
            cache_hit=reply.cache_hit,
            prompt_hash=prompt_hash(messages),
            created_at=utcnow(),
        )
        if self.sink is not None:
            self.sink(row)
        else:
            self.store.add_llm_call(self.trial_id, **row)
        return reply

    def _invoke(self, role: str, spec: str, model: BaseChatModel, messages: Messages, seed: int) -> tuple[Any, float]:
        """One answer and the latency of the call that produced it, outages waited out; the seed goes per request."""
        prompt = _to_lc(messages)
        latency = 0.0
        per_request = {} if role in self._injected else seed_kwargs(spec, seed)

        def attempt() -> Any:
            nonlocal latency
            started = time.perf_counter()
            # One JSON answer instead of a token stream: same text, a fraction of the client CPU.
            answer = model.invoke(prompt, stream=False, **per_request)
            latency = time.perf_counter() - started
            return answer

        endpoint = self.endpoint_for(spec) if role not in self._injected else None
        if endpoint is None:  # in-process, recorded or injected models: no server to wait for
            try:
                return attempt(), latency
            except LLMError:
                raise
            except Exception as exc:  # providers raise anything from httpx to ValueError
                raise LLMError(f"{role}: {describe_model_failure(spec, f'{type(exc).__name__}: {exc}', None)}") from exc
        waiter = EndpointWaiter(endpoint, self.run_id, budget_s=self.config.outage_budget_s, store=self.store,
                                interrupted=self.interrupted)
        try:
            return waiter.call(attempt), latency
        except GiveUp as exc:
            if exc.permanent:
                raise LLMError(f"{role}: {describe_model_failure(spec, str(exc), endpoint)}") from exc
            raise EndpointUnreachableError(f"{role}: {exc} (model {spec})", endpoint) from exc
