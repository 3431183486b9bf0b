"""Which provider failures are waited out (transient) and which end a trial at once (permanent).

The exceptions are the real classes the clients raise (httpx, ollama, openai, langchain-openai),
built the way those clients build them.
"""

from __future__ import annotations

import random

import httpx
import ollama
import openai
import pytest
from langchain_openai.chat_models.base import OpenAIContextOverflowError

from execugraph.providers.errors import classify
from execugraph.providers.llm import LLMError
from execugraph.providers.outages import Backoff, OutageTracker, format_duration, waiting_line

REQUEST = httpx.Request("POST", "http://127.0.0.1:8000/v1/chat/completions")


def _response(status: int) -> httpx.Response:
    return httpx.Response(status, request=REQUEST, json={"error": {"message": f"status {status}"}})


def _status_error(cls: type[openai.APIStatusError], status: int) -> openai.APIStatusError:
    return cls(f"Error code: {status}", response=_response(status), body=None)


@pytest.mark.parametrize(
    "exc",
    [
        httpx.ConnectError("[Errno 111] Connection refused", request=REQUEST),
        httpx.ReadTimeout("timed out", request=REQUEST),
        httpx.ReadError("[Errno 104] Connection reset by peer", request=REQUEST),
        httpx.RemoteProtocolError("Server disconnected without sending a response.", request=REQUEST),
        ConnectionError("Failed to connect to Ollama."),
        TimeoutError("timed out"),
        ollama.ResponseError("service unavailable", 503),
        ollama.ResponseError("overloaded", 429),
        ollama.ResponseError("bad gateway", 502),
        openai.APIConnectionError(request=REQUEST),
        openai.APITimeoutError(request=REQUEST),
        _status_error(openai.InternalServerError, 500),
        _status_error(openai.RateLimitError, 429),
        _status_error(openai.APIStatusError, 503),
    ],
    ids=lambda e: type(e).__name__ + str(getattr(e, "status_code", "")),
)
def test_transient_faults_are_waited_out(exc: BaseException) -> None:
    fault = classify(exc)
    assert fault.transient, fault


@pytest.mark.parametrize(
    "exc",
    [
        ollama.ResponseError("model 'x' not found", 404),
        ollama.ResponseError("invalid options", 400),
        _status_error(openai.NotFoundError, 404),
        _status_error(openai.BadRequestError, 400),
        _status_error(openai.AuthenticationError, 401),
        OpenAIContextOverflowError("prompt is too long", response=_response(400), body=None),
        LLMError("bad model spec"),
        ValueError("something our code got wrong"),
    ],
    ids=lambda e: type(e).__name__ + str(getattr(e, "status_code", "")),
)
def test_permanent_faults_end_the_trial_at_once(exc: BaseException) -> None:
    fault = classify(exc)
    assert not fault.transient, fault


def test_status_and_server_words_are_in_the_summary() -> None:
    fault = classify(ollama.ResponseError('{"error": "model \'llama9\' not found"}', 404))
    assert fault.status == 404 and fault.summary == "HTTP 404: model 'llama9' not found"
    assert classify(_status_error(openai.InternalServerError, 500)).summary.startswith("HTTP 500")


def test_a_wrapped_transient_cause_is_found() -> None:
    try:
        try:
            raise httpx.ConnectError("[Errno 111] Connection refused", request=REQUEST)
        except httpx.ConnectError as inner:
            raise RuntimeError("the client gave up") from inner
    except RuntimeError as outer:
        assert classify(outer).transient


def test_backoff_grows_to_its_cap_with_jitter() -> None:
    backoff, rng = Backoff(first_s=0.5, cap_s=8.0), random.Random(7)
    delays = [backoff.delay(n, rng) for n in range(8)]
    for n, delay in enumerate(delays):
        ceiling = min(8.0, 0.5 * 2**n)
        assert ceiling / 2 <= delay <= ceiling
    assert len(set(delays)) == len(delays)  # jittered: no two trials retry in lockstep


def test_the_outage_is_shared_per_run_and_endpoint_and_ends_on_an_answer() -> None:
    tracker = OutageTracker()
    first = tracker.failed(1, "http://a", "refused")
    again = tracker.failed(1, "http://a", "reset")
    assert again is first and first.failures == 2 and first.last_error == "reset"
    assert tracker.failed(2, "http://a", "refused") is not first  # another batch has its own budget
    assert tracker.answered(1, "http://a") is first and tracker.current(1, "http://a") is None
    assert tracker.answered(1, "http://a") is None


def test_the_waiting_line_and_durations_read_well() -> None:
    from datetime import UTC, datetime

    since = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    line = waiting_line("http://gpu1:11434", since)
    assert line == f"waiting: http://gpu1:11434 unreachable since {since.astimezone():%H:%M:%S}, retrying"
    assert [format_duration(s) for s in (4.4, 65, 3725)] == ["4 s", "1 min 05 s", "1 h 02 min"]
