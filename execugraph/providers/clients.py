"""Shared chat-model clients: one per (spec, endpoint, decoding settings) per process, built once.

A client is not free to build (ChatOpenAI makes an httpx client with its own SSL context, about
0.1 s of CPU) and a provider's first use imports heavy modules under Python's import lock. So the
seed is not part of a client: it goes with each request (`seed_kwargs`: ChatOpenAI's `seed`,
Ollama's `options.seed`, llama.cpp's `seed`), every trial of a batch shares its endpoint's client,
and one built on demand is built under a lock, so concurrent trials never each build one.
`warm_models` imports the providers' modules and builds the clients a batch's conditions need
before its trial threads start.
"""

from __future__ import annotations

import importlib
import logging
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from execugraph.providers.llm import load_llama, make_chat_model

if TYPE_CHECKING:
    from langchain_core.language_models.chat_models import BaseChatModel

    from execugraph.domain.config import RunConfig

log = logging.getLogger("execugraph.providers")

# Providers whose clients are stateless and take the seed per request (replay clients hold a run's answers).
SHARED_PROVIDERS = ("ollama", "openai", "llamacpp")
# What each provider imports on first use; imported once, before any trial thread would queue on it.
HEAVY_MODULES: dict[str, tuple[str, ...]] = {
    "openai": ("langchain_openai", "execugraph.providers.openai_direct"),
    "ollama": ("langchain_ollama",),
    "llamacpp": ("llama_cpp",),
}


@dataclass(frozen=True)
class ClientKey:
    """What makes two clients different: everything but the seed (and the role, which no shared client uses)."""

    spec: str
    temperature: float
    max_tokens: int
    timeout_s: float
    endpoint: str | None
    repeat_penalty: float | None = None


class Endpoints(Protocol):
    """Where a batch's trials send their calls (a `TrialDeps`): None fields mean the configured servers."""

    ollama_host: str | None
    openai_base_url: str | None
    chat_models: dict[str, Any] | None


MAX_CLIENTS = 256  # beyond this the oldest is forgotten (routers holding it keep using it)
_CLIENTS: dict[ClientKey, BaseChatModel] = {}
_BUILD_LOCK = threading.Lock()
_constructions = 0


def constructions() -> int:
    """How many shared clients this process has built (for tests and benchmarks)."""
    return _constructions


def is_shared(spec: str) -> bool:
    """Whether a spec's calls go through a shared client, with the seed sent per request."""
    return spec.partition(":")[0] in SHARED_PROVIDERS


def seed_kwargs(spec: str, seed: int) -> dict[str, int]:
    """The per-request keyword that carries the seed to a shared client (none for other providers)."""
    return {"seed": seed} if is_shared(spec) else {}


def import_provider(provider: str) -> None:
    """Import a provider's heavy client modules now (a no-op once imported)."""
    for module in HEAVY_MODULES.get(provider, ()):
        importlib.import_module(module)


def preload(providers: Iterable[str] = SHARED_PROVIDERS) -> list[str]:
    """Import the providers' client modules now, skipping any not installed; returns the providers imported.

    A worker calls it when it starts (`preload_in_background`), so the seconds langchain_openai
    takes to import are spent before a batch arrives, not between its start and its first call.
    """
    done = []
    for provider in providers:
        try:
            import_provider(provider)
            if provider == "openai":  # building a client imports a second wave (the SDK's resources, httpcore)
                _throwaway_openai_client()
        except Exception as exc:  # noqa: BLE001 - not installed or broken: its trials say so when they run
            log.debug("provider %s not preloaded: %s", provider, exc)
            continue
        done.append(provider)
    return done


def _throwaway_openai_client() -> None:
    """Build (never call) one ChatOpenAI, for the modules it imports lazily.

    It is built for the configured OpenAI-compatible server (`EXECUGRAPH_OPENAI_BASE_URL`) with the default
    call timeout, because langchain_openai keeps one HTTP client per (URL, timeout), each with an SSL context
    that costs ~0.1 s of CPU to load: a batch's first client for that server then finds them built.
    """
    from pydantic import SecretStr

    from execugraph.configuration.settings import load_settings
    from execugraph.domain.config import RunConfig
    from execugraph.providers.openai_direct import chat_class

    chat_class()(model="preload", base_url=load_settings().openai_base_url, api_key=SecretStr("preload"),
                 max_retries=0, timeout=RunConfig.model_fields["llm_timeout_s"].default)


def preload_in_background(providers: Iterable[str] = SHARED_PROVIDERS) -> threading.Thread:
    """`preload` on a daemon thread (a batch that starts meanwhile waits on the import it needs, no longer)."""
    thread = threading.Thread(target=preload, args=(tuple(providers),), name="preload-providers", daemon=True)
    thread.start()
    return thread


def shared_chat_model(key: ClientKey) -> BaseChatModel:
    """The process's one client for `key`, built on first use under a lock (never twice)."""
    model = _CLIENTS.get(key)
    if model is not None:
        return model
    with _BUILD_LOCK:
        model = _CLIENTS.get(key)
        if model is None:
            global _constructions
            provider = key.spec.partition(":")[0]
            model = make_chat_model(
                key.spec, temperature=key.temperature, seed=None, max_tokens=key.max_tokens, timeout_s=key.timeout_s,
                ollama_host=key.endpoint if provider == "ollama" else None,
                openai_base_url=key.endpoint if provider == "openai" else None,
                repeat_penalty=key.repeat_penalty,
            )
            if len(_CLIENTS) >= MAX_CLIENTS:
                del _CLIENTS[next(iter(_CLIENTS))]
            _CLIENTS[key] = model
            _constructions += 1
    return model


def client_key(config: RunConfig, role: str, temperature: float, endpoint: str | None) -> ClientKey:
    """The shared client a role's calls at `temperature` use under `config`."""
    max_tokens, penalty = config.decoding_for(role)
    return ClientKey(config.model_for(role), temperature, max_tokens, config.llm_timeout_s, endpoint, penalty)


def warm_models(configs: Iterable[RunConfig], deps: Endpoints | None = None) -> int:
    """Import the providers and build every shared client `configs` use, before trial threads start.

    `deps` says where the trials' calls go (a `TrialDeps`; roles it injects models for are skipped).
    Never raises: a client that cannot be built fails its trials with the usual message instead.
    Returns how many clients this call built.
    """
    from execugraph.configuration.settings import load_settings
    from execugraph.domain.config import ROLES

    before = constructions()
    injected = set(getattr(deps, "chat_models", None) or {})
    settings = None
    for config in configs:
        for role in ROLES:
            spec = config.model_for(role)
            provider = spec.partition(":")[0]
            if role in injected or provider not in SHARED_PROVIDERS:
                continue
            endpoint: str | None = None
            if provider != "llamacpp":
                settings = settings or load_settings()
                endpoint = (getattr(deps, "ollama_host", None) or settings.ollama_host if provider == "ollama"
                            else getattr(deps, "openai_base_url", None) or settings.openai_base_url)
            try:
                import_provider(provider)
                model = shared_chat_model(client_key(config, role, config.temperature, endpoint))
                if provider == "llamacpp":  # the model file itself: loaded once, not in the first trial
                    load_llama(model.model_path, model.n_ctx, model.n_threads)  # type: ignore[attr-defined]
            except Exception as exc:  # noqa: BLE001 - the trials report it with the provider's words
                log.debug("could not warm %s for %s: %s", spec, role, exc)
    return constructions() - before
