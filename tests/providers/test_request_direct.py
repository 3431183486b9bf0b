"""Requests that skip the OpenAI SDK's params transform store what the SDK's own path stored.

A multi-agent trial runs against the OpenAI-compatible stand-in on loopback twice, into two stores:
once with clients built as plain ChatOpenAI (the SDK's `create`, its `maybe_transform`), once as
`DirectChatOpenAI`. The server must receive the same request bodies (the trial's seed in each),
and the stores must hold the same LLMCall rows (timings aside, which must be real in both) and
the same response-cache keys; the direct run must never have gone through `create`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from langchain_core.messages import HumanMessage, SystemMessage
from openai.resources.chat.completions import Completions
from pydantic import SecretStr

from execugraph.domain.config import RunConfig
from execugraph.providers import clients, openai_direct
from execugraph.providers.openai_direct import DirectChatOpenAI, plain_request
from execugraph.store import Store
from execugraph.workflow.trial import TrialDeps, run_trial
from sandbox import SandboxPool
from standins.openai_server import OpenAIStandIn
from standins.role_responder import role_responder
from standins.workload import REPLIES, problems

pytestmark = pytest.mark.integration

SEED = 7
VOLATILE = ("id", "trial_id", "step_id", "latency_s", "created_at")


@pytest.fixture(scope="module")
def pool() -> Iterator[SandboxPool]:
    with SandboxPool() as running:
        yield running


@pytest.fixture
def server() -> Iterator[OpenAIStandIn]:
    with OpenAIStandIn(role_responder(REPLIES), models=["m"], latency_s=0.01, slots=4) as running:
        yield running


def _trial(tmp_path: Any, name: str, server: OpenAIStandIn, pool: SandboxPool,
           direct: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[list[dict], list[str], list[dict], int]:
    """One multi-full trial in its own store; (LLMCall rows, cache keys, request bodies, SDK create calls)."""
    monkeypatch.setattr(openai_direct, "DIRECT_REQUESTS", direct)
    monkeypatch.setattr(clients, "_CLIENTS", {})  # a fresh client of this kind, not one another test built
    creates: list[int] = []
    original = Completions.create

    def counting(self: Completions, *args: Any, **kwargs: Any) -> Any:
        creates.append(1)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Completions, "create", counting)
    server.reset_counters()
    store = Store.open(str(tmp_path / f"{name}.db"))
    config = RunConfig(condition="multi-full", default_model="openai:m", seed=SEED, cache=True)
    run_id = store.create_run("batch", name, config.model_dump())
    result = run_trial(problems(1)[0], config, store, run_id=run_id,
                       deps=TrialDeps(pool=pool, openai_base_url=server.base_url))
    assert result.status == "done" and result.passed, result.message
    rows = [{k: v for k, v in call.model_dump().items() if k not in VOLATILE} | {"timed": call.latency_s > 0}
            for call in store.llm_calls_for_trial(result.trial_id)]
    with store.engine.connect() as conn:
        keys = sorted(k for (k,) in conn.exec_driver_sql("SELECT key FROM llm_cache"))
    store.close()
    return rows, keys, [r.body for r in server.requests], len(creates)


def test_a_trial_stores_the_same_calls_with_or_without_the_sdk_transform(tmp_path, server, pool, monkeypatch) -> None:
    sdk_rows, sdk_keys, sdk_bodies, sdk_creates = _trial(tmp_path, "sdk", server, pool, False, monkeypatch)
    rows, keys, bodies, creates = _trial(tmp_path, "direct", server, pool, True, monkeypatch)
    assert len(sdk_rows) >= 4 and sdk_creates == len(sdk_rows)  # planner, generator, reviewer, ... via `create`
    assert creates == 0  # the direct client never called the SDK's `create`
    assert bodies == sdk_bodies
    assert all(body["seed"] == SEED and body["max_tokens"] >= 16 and body["stream"] is False for body in bodies)
    assert rows == sdk_rows
    assert all(row["timed"] and row["seed"] == SEED and row["tokens_in"] > 0 for row in rows)
    assert keys == sdk_keys and len(keys) == len(rows)


def test_the_answer_reads_as_the_sdks_and_unusual_requests_keep_its_path(server: OpenAIStandIn) -> None:
    common: dict[str, Any] = {"model": "m", "base_url": server.base_url, "api_key": SecretStr("k"), "max_retries": 0,
                              "timeout": 30, "extra_body": {"max_tokens": 99}}
    from langchain_openai import ChatOpenAI

    prompt = [SystemMessage("be brief"), HumanMessage("one two three")]
    sdk = ChatOpenAI(**common).invoke(prompt, stream=False, seed=3)
    direct = DirectChatOpenAI(**common).invoke(prompt, stream=False, seed=3)
    assert direct.content == sdk.content and direct.usage_metadata == sdk.usage_metadata
    assert direct.additional_kwargs == sdk.additional_kwargs
    # the SDK's typed answer adds None for the fields the server left out (logprobs, token details); nothing reads them
    for key in ("finish_reason", "model_name", "model_provider"):
        assert direct.response_metadata[key] == sdk.response_metadata[key]
    assert {k: v for k, v in sdk.response_metadata["token_usage"].items() if v is not None} == \
        direct.response_metadata["token_usage"]
    first, second = (r.body for r in server.requests)
    assert first == second and first["seed"] == 3 and first["max_tokens"] == 99
    plain = {"model": "m", "stream": False, "messages": [{"role": "user", "content": "x"}], "extra_body": {}}
    assert plain_request(plain)
    assert not plain_request({**plain, "tools": [{"type": "function"}]})
    assert not plain_request({**plain, "stream": True})
    assert not plain_request({**plain, "messages": [{"role": "user", "content": [{"type": "text", "text": "x"}]}]})
