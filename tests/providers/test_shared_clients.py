"""Trials share one warm client per endpoint and decoding settings; the seed goes with each request.

16 threads, each a trial with its own seed, ask the same spec at once: one client is built (not
one per seed, nor one per thread racing on a cold cache), and every request reaches the loopback
server carrying its trial's seed (OpenAI's `seed`, Ollama's `options.seed`), with the LLMCall row
recording the same seed and temperature as before.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from langchain_ollama import ChatOllama
from langchain_openai import ChatOpenAI

from execugraph.domain.config import RunConfig
from execugraph.providers import clients
from execugraph.providers.model_router import ModelRouter
from execugraph.store import Store
from execugraph.workflow.trial import TrialDeps
from standins.ollama_server import OllamaStandIn
from standins.openai_server import OpenAIStandIn

pytestmark = pytest.mark.integration

THREADS = 16
MESSAGES = [{"role": "system", "content": "You are the Generator."}, {"role": "user", "content": "double x"}]


@pytest.fixture
def openai_server() -> Iterator[OpenAIStandIn]:
    with OpenAIStandIn(models=["m"], latency_s=0.05, slots=THREADS) as server:
        yield server


@pytest.fixture
def ollama_server() -> Iterator[OllamaStandIn]:
    with OllamaStandIn(models=["m"], latency_s=0.05) as server:
        yield server


def _count_inits(monkeypatch: pytest.MonkeyPatch, cls: type) -> list[int]:
    """Count constructions of `cls` (and its subclasses) from now on."""
    built: list[int] = []
    original = cls.__init__

    def counting(self: Any, *args: Any, **kwargs: Any) -> None:
        built.append(1)
        original(self, *args, **kwargs)

    monkeypatch.setattr(cls, "__init__", counting)
    return built


def _config(spec: str, seed: int) -> RunConfig:
    return RunConfig(condition="single-oneshot", mode="single", planner=False, reviewer=False, optimizer=False,
                     default_model=spec, seed=seed, cache=False)


def _sixteen_trials(store: Store, spec: str, ollama_host: str, openai_url: str | None) -> list[dict[str, Any]]:
    """16 routers (one per trial, seeds 0..15) call the generator together; returns the LLMCall rows."""
    rows: list[dict[str, Any]] = []
    start = threading.Barrier(THREADS)

    def trial(seed: int) -> None:
        router = ModelRouter(_config(spec, seed), store, trial_id=seed + 1, ollama_host=ollama_host,
                             openai_base_url=openai_url)
        router.sink = lambda row: rows.append(dict(row))
        start.wait(timeout=30)
        router.call("generator", MESSAGES)

    with ThreadPoolExecutor(THREADS) as pool:
        for future in [pool.submit(trial, seed) for seed in range(THREADS)]:
            future.result(timeout=60)
    return rows


def _check_rows(rows: list[dict[str, Any]], spec: str) -> None:
    assert sorted(r["seed"] for r in rows) == list(range(THREADS))
    assert {(r["model"], r["temperature"], r["cache_hit"]) for r in rows} == {(spec, 0.0, False)}
    assert all(r["tokens_in"] > 0 and r["tokens_out"] > 0 for r in rows)


def test_sixteen_openai_trials_share_one_client_and_each_seed_reaches_the_server(
    sqlite_store: Store, openai_server: OpenAIStandIn, monkeypatch: pytest.MonkeyPatch,
) -> None:
    built = _count_inits(monkeypatch, ChatOpenAI)
    rows = _sixteen_trials(sqlite_store, "openai:m", "http://127.0.0.1:9", openai_server.base_url)
    assert len(built) == 1, f"{len(built)} ChatOpenAI clients built for one endpoint"
    bodies = [r.body for r in openai_server.requests]
    assert sorted(b["seed"] for b in bodies) == list(range(THREADS))
    assert {(b["model"], b["temperature"], b["max_tokens"]) for b in bodies} == {("m", 0.0, 768)}
    assert openai_server.served == THREADS
    _check_rows(rows, "openai:m")


def test_sixteen_ollama_trials_share_one_client_and_send_options_seed(
    sqlite_store: Store, ollama_server: OllamaStandIn, monkeypatch: pytest.MonkeyPatch,
) -> None:
    built = _count_inits(monkeypatch, ChatOllama)
    rows = _sixteen_trials(sqlite_store, "ollama:m", ollama_server.url, None)
    assert len(built) == 1, f"{len(built)} ChatOllama clients built for one endpoint"
    options = [r.options for r in ollama_server.requests]
    assert sorted(o["seed"] for o in options) == list(range(THREADS))
    assert {(o["temperature"], o["num_predict"]) for o in options} == {(0.0, 768)}
    _check_rows(rows, "ollama:m")


def test_warm_models_builds_the_clients_before_the_trials_run(
    sqlite_store: Store, openai_server: OpenAIStandIn, monkeypatch: pytest.MonkeyPatch,
) -> None:
    multi = RunConfig(default_model="openai:m", cache=False)  # multi-full: the explainer decodes differently
    deps = TrialDeps(openai_base_url=openai_server.base_url)
    built = clients.warm_models([multi, _config("openai:m", 0)], deps)
    assert built == 2  # every role shares one client, but the explainer's (fewer max tokens) is its own
    assert clients.warm_models([multi], deps) == 0
    later = _count_inits(monkeypatch, ChatOpenAI)
    _sixteen_trials(sqlite_store, "openai:m", "http://127.0.0.1:9", openai_server.base_url)
    assert later == []


def test_warm_models_skips_injected_roles_and_unknown_specs(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []
    real: Callable[[clients.ClientKey], Any] = clients.shared_chat_model
    monkeypatch.setattr(clients, "shared_chat_model", lambda key: seen.append(key.spec) or real(key))
    deps = TrialDeps(chat_models={role: object() for role in ("planner", "generator", "reviewer", "optimizer",
                                                              "explainer", "evaluator")})  # type: ignore[misc]
    assert clients.warm_models([RunConfig(default_model="openai:m")], deps) == 0
    assert clients.warm_models([RunConfig(default_model="replay:3")]) == 0
    assert seen == []
