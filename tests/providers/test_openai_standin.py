"""The OpenAI-compatible stand-in behind the capacity benchmark: slots, queueing and its counters.

Requests beyond the slots wait for one (never more than `slots` in flight), every request is
counted with the slot time it held, and the real ChatOpenAI client gets answers it parses,
streamed or not, with `usage` token counts.
"""

from __future__ import annotations

import json
import threading
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
from langchain_core.messages import HumanMessage
from langchain_openai import ChatOpenAI
from pydantic import SecretStr

from standins.openai_server import OpenAIStandIn

pytestmark = pytest.mark.integration

LATENCY_S = 0.2


@pytest.fixture
def server() -> Iterator[OpenAIStandIn]:
    with OpenAIStandIn(models=["m"], latency_s=LATENCY_S, slots=4) as running:
        yield running


def _client(server: OpenAIStandIn) -> ChatOpenAI:
    return ChatOpenAI(model="m", base_url=server.base_url, api_key=SecretStr("k"), max_retries=0, timeout=30)


def test_requests_beyond_the_slots_wait_and_are_counted(server: OpenAIStandIn) -> None:
    client = _client(server)
    start = threading.Barrier(8)

    def ask(seed: int) -> str:
        start.wait(timeout=30)
        return str(client.invoke([HumanMessage(f"q{seed}")], stream=False, seed=seed).content)

    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(ask, range(8)))
    assert answers == [f"echo[m]: q{i}" for i in range(8)]
    stats = server.stats()
    assert stats["served"] == 8 and stats["peak_in_flight"] == 4  # 8 asked at once, 4 slots: the rest queued
    assert stats["busy_slot_s"] >= 8 * LATENCY_S * 0.99
    assert sorted(r.seed for r in server.requests) == list(range(8))
    assert all(r.served_at is not None and r.served_at >= r.received_at for r in server.requests)
    with urllib.request.urlopen(server.base_url.removesuffix("/v1") + "/standin/stats", timeout=10) as answer:
        assert json.load(answer)["served"] == 8


def test_the_real_client_reads_usage_streamed_or_not(server: OpenAIStandIn) -> None:
    client = _client(server)
    plain = client.invoke([HumanMessage("one two three")], stream=False)
    assert plain.content == "echo[m]: one two three"
    assert plain.usage_metadata is not None and plain.usage_metadata["input_tokens"] == 3
    streamed = "".join(str(chunk.content) for chunk in client.stream([HumanMessage("four")]))
    assert streamed == "echo[m]: four"
    with urllib.request.urlopen(f"{server.base_url}/models", timeout=10) as answer:
        assert [m["id"] for m in json.load(answer)["data"]] == ["m"]
