"""The real langchain-ollama / ollama client over real HTTP against the loopback Ollama stand-in.

Why: no Ollama daemon runs here, so this is how the `ollama:<model>` path is exercised end to end.
These tests also pin what the client actually raises for each failure (model missing, nothing
listening, endpoint reset or 503, timeout), which the provider layer turns into trial errors;
a client upgrade that changes them fails here first.
"""

from __future__ import annotations

import asyncio
import socket
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import ollama
import pytest
from langchain_core.messages import HumanMessage, SystemMessage
from langchain_ollama import ChatOllama

from standins.ollama_server import OllamaStandIn, count_tokens, embedded_responder, scripted_responder

pytestmark = pytest.mark.integration

MODEL = "qwen2.5-coder:7b"
CONNECT_FAILED = "Failed to connect to Ollama"


@pytest.fixture
def srv():
    with OllamaStandIn(models=[MODEL]) as server:
        yield server


def _chat(url: str, model: str = MODEL, **kwargs: Any) -> ChatOllama:
    return ChatOllama(base_url=url, model=model, client_kwargs={"timeout": kwargs.pop("timeout", 30)}, **kwargs)


def _closed_port_url() -> str:
    """A loopback URL on which nothing listens (the port was just free)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def test_invoke_streams_by_default_and_reports_usage(srv: OllamaStandIn) -> None:
    llm = _chat(srv.url, seed=7, temperature=0.0, num_predict=64)
    answer = llm.invoke([SystemMessage("be brief"), HumanMessage("write fib in python")])
    assert answer.content == f"echo[{MODEL}]: write fib in python"
    assert answer.usage_metadata == {"input_tokens": 6, "output_tokens": 5, "total_tokens": 11}
    assert answer.response_metadata["model_name"] == MODEL and answer.response_metadata["done_reason"] == "stop"
    (record,) = srv.requests
    assert record.stream is True  # ChatOllama streams under .invoke unless told otherwise
    assert record.options == {"seed": 7, "temperature": 0.0, "num_predict": 64}
    assert record.messages == [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "write fib in python"},
    ]


def test_invoke_non_streaming(srv: OllamaStandIn) -> None:
    answer = _chat(srv.url).invoke("hello there", stream=False)
    assert answer.content == f"echo[{MODEL}]: hello there"
    assert answer.usage_metadata is not None and answer.usage_metadata["input_tokens"] == 2
    assert answer.usage_metadata["output_tokens"] == 3
    assert [r.stream for r in srv.requests] == [False]


def test_stream_yields_several_chunks_that_add_up(srv: OllamaStandIn) -> None:
    chunks = list(_chat(srv.url).stream("one two three"))
    assert len([c for c in chunks if c.content]) == 4  # one chunk per word piece
    full = chunks[0]
    for chunk in chunks[1:]:
        full = full + chunk
    assert full.content == f"echo[{MODEL}]: one two three"
    assert full.usage_metadata is not None
    assert (full.usage_metadata["input_tokens"], full.usage_metadata["output_tokens"]) == (3, 4)


def test_num_predict_truncation_surfaces_as_done_reason_length(srv: OllamaStandIn) -> None:
    answer = _chat(srv.url, num_predict=2).invoke("a b c d")
    assert answer.content.split() == [f"echo[{MODEL}]:", "a"]
    assert answer.response_metadata["done_reason"] == "length" and answer.usage_metadata["output_tokens"] == 2


def test_async_invoke(srv: OllamaStandIn) -> None:
    answer = asyncio.run(_chat(srv.url).ainvoke("from asyncio"))
    assert answer.content == f"echo[{MODEL}]: from asyncio"


def test_scripted_replies_reach_the_caller_in_order() -> None:
    code = "```python\ndef f(x):\n    return x + 1\n```"
    with OllamaStandIn(responder=scripted_responder(["PLAN: add one", code]), models=[MODEL]) as srv:
        llm = _chat(srv.url)
        assert [llm.invoke("plan").content, llm.invoke("code").content] == ["PLAN: add one", code]


def test_ollama_client_lists_and_shows_models(srv: OllamaStandIn) -> None:
    client = ollama.Client(host=srv.url)
    assert [m.model for m in client.list().models] == [MODEL]
    shown = client.show(MODEL)
    assert shown.details is not None and shown.details.family == "qwen2.5-coder"
    assert shown.modelinfo and shown.capabilities == ["completion"]
    with pytest.raises(ollama.ResponseError) as err:
        client.show("absent:1b")
    assert err.value.status_code == 404


@pytest.mark.parametrize("stream", [True, False])
def test_model_not_pulled_raises_response_error_404(srv: OllamaStandIn, stream: bool) -> None:
    with pytest.raises(ollama.ResponseError) as err:
        _chat(srv.url, model="llama3:70b").invoke("hi", stream=stream)
    assert err.value.status_code == 404
    assert err.value.error == "model 'llama3:70b' not found"
    assert str(err.value) == "model 'llama3:70b' not found (status code: 404)"


def test_validate_model_on_init_names_the_missing_model(srv: OllamaStandIn) -> None:
    with pytest.raises(
        ValueError, match=r"Model `llama3:70b` not found in Ollama.*Available local models: qwen2.5-coder:7b"
    ):
        _chat(srv.url, model="llama3:70b", validate_model_on_init=True)
    _chat(srv.url, validate_model_on_init=True)  # a pulled model passes the same check


def test_connection_refused_streaming_raises_httpx_connect_error() -> None:
    with pytest.raises(httpx.ConnectError, match="Connection refused"):
        _chat(_closed_port_url()).invoke("hi")


def test_connection_refused_non_streaming_raises_connection_error() -> None:
    with pytest.raises(ConnectionError, match=CONNECT_FAILED):
        _chat(_closed_port_url()).invoke("hi", stream=False)


def test_endpoint_reset_raises_read_error_then_recovers(srv: OllamaStandIn) -> None:
    llm = _chat(srv.url)
    assert llm.invoke("warm up").content  # leaves a pooled keep-alive connection behind
    srv.set_down(True, mode="reset")
    with pytest.raises(httpx.ReadError):
        llm.invoke("while down")
    srv.set_down(False)
    assert llm.invoke("after").content == f"echo[{MODEL}]: after"


@pytest.mark.parametrize("stream", [True, False])
def test_endpoint_503_raises_response_error(srv: OllamaStandIn, stream: bool) -> None:
    llm = _chat(srv.url)
    srv.set_down(True, mode="503")
    with pytest.raises(ollama.ResponseError) as err:
        llm.invoke("while down", stream=stream)
    assert err.value.status_code == 503
    srv.set_down(False)
    assert (
        llm.invoke("again", stream=stream).content == f"echo[{MODEL}]: again"
    )  # the same pooled connection still works


def test_endpoint_refusing_after_it_served_raises_connect_error(srv: OllamaStandIn) -> None:
    llm = _chat(srv.url)
    assert llm.invoke("before").content
    srv.set_down(True, mode="refuse")
    with pytest.raises(httpx.ConnectError):
        llm.invoke("during")
    srv.set_down(False)
    assert llm.invoke("after").content == f"echo[{MODEL}]: after"


def test_slow_endpoint_past_the_client_timeout_raises_read_timeout() -> None:
    with OllamaStandIn(models=[MODEL], latency_s=2.0) as srv:
        with pytest.raises(httpx.ReadTimeout):
            _chat(srv.url, timeout=0.3).invoke("slow")


def test_one_client_from_many_threads_runs_calls_in_parallel() -> None:
    with OllamaStandIn(models=[MODEL], latency_s=0.4) as srv:
        llm = _chat(srv.url)
        with ThreadPoolExecutor(max_workers=8) as pool:
            answers = list(pool.map(lambda i: llm.invoke(f"call {i}").content, range(8)))
        assert answers == [f"echo[{MODEL}]: call {i}" for i in range(8)]
        assert srv.peak_in_flight == 8  # neither ChatOllama nor the stand-in serialised the calls


@pytest.mark.slow
def test_embedded_model_answers_through_the_ollama_api() -> None:
    with OllamaStandIn(responder=embedded_responder(max_tokens=24), models=["smollm2:135m"]) as srv:
        answer = _chat(srv.url, model="smollm2:135m", timeout=120).invoke("Say hello in one word.")
        (record,) = srv.requests
    assert isinstance(answer.content, str) and answer.content.strip()
    assert record.outcome == "ok" and record.reply == answer.content
    assert answer.usage_metadata is not None
    assert answer.usage_metadata["output_tokens"] == count_tokens(answer.content) > 0
