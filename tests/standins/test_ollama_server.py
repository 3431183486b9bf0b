"""The Ollama stand-in over plain urllib: each endpoint, each failure mode, parallel latency, the CLI.

Why: every Ollama-path test and the batch/scale benchmarks trust this server; if it served
malformed shapes or serialised its latency, they would measure the stand-in, not our code.
Loopback only, so these stay in the fast unit suite.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from standins.ollama_server import (
    OllamaStandIn,
    ScriptExhausted,
    count_tokens,
    echo_responder,
    scripted_responder,
)

MODEL = "qwen2.5-coder:7b"
ROOT = Path(__file__).resolve().parents[2]


def _get(url: str) -> tuple[int, str]:
    with urllib.request.urlopen(url, timeout=10) as resp:
        return resp.status, resp.read().decode()


def _post(url: str, payload: dict[str, Any]) -> tuple[int, str, str]:
    """POST JSON; return status, content type and body, also for HTTP errors."""
    req = urllib.request.Request(url, data=json.dumps(payload).encode(), headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, resp.headers["Content-Type"], resp.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, err.headers["Content-Type"], err.read().decode()


def _chat(srv: OllamaStandIn, content: str = "hello there world", **extra: Any) -> tuple[int, str, str]:
    return _post(f"{srv.url}/api/chat", {"model": MODEL, "messages": [{"role": "user", "content": content}], **extra})


@pytest.fixture
def srv():
    with OllamaStandIn(models=[MODEL, "smollm2"]) as server:
        yield server


def test_root_version_and_tags(srv: OllamaStandIn) -> None:
    assert srv.url.startswith("http://127.0.0.1:") and srv.port > 0
    assert _get(f"{srv.url}/") == (200, "Ollama is running")
    assert json.loads(_get(f"{srv.url}/api/version")[1])["version"]
    status, body = _get(f"{srv.url}/api/tags")
    models = json.loads(body)["models"]
    assert status == 200
    assert [m["model"] for m in models] == [MODEL, "smollm2:latest"]  # untagged names get :latest, as in Ollama
    assert all(m["name"] == m["model"] and len(m["digest"]) == 64 and m["details"]["format"] == "gguf" for m in models)


def test_unknown_path_is_404(srv: OllamaStandIn) -> None:
    with pytest.raises(urllib.error.HTTPError) as err:
        _get(f"{srv.url}/api/nothing")
    assert err.value.code == 404


def test_show_known_and_unknown_model(srv: OllamaStandIn) -> None:
    status, ctype, body = _post(f"{srv.url}/api/show", {"model": "smollm2"})
    shown = json.loads(body)
    assert (status, ctype) == (200, "application/json; charset=utf-8")
    assert shown["details"]["family"] == "smollm2" and "model_info" in shown and shown["capabilities"] == ["completion"]
    status, _, body = _post(f"{srv.url}/api/show", {"model": "llama3:8b"})
    assert (status, json.loads(body)) == (404, {"error": "model 'llama3:8b' not found"})


def test_chat_non_streaming_answer_and_usage(srv: OllamaStandIn) -> None:
    status, ctype, body = _chat(srv, stream=False, options={"seed": 7, "temperature": 0})
    answer = json.loads(body)
    assert (status, ctype) == (200, "application/json; charset=utf-8")
    assert answer["message"] == {"role": "assistant", "content": f"echo[{MODEL}]: hello there world"}
    assert answer["done"] is True and answer["done_reason"] == "stop" and answer["model"] == MODEL
    assert answer["prompt_eval_count"] == 3 and answer["eval_count"] == 4
    assert answer["total_duration"] > 0 and answer["created_at"].endswith("Z")
    (record,) = srv.requests
    assert (record.model, record.stream, record.outcome) == (MODEL, False, "ok")
    assert record.options == {"seed": 7, "temperature": 0}
    assert record.messages == [{"role": "user", "content": "hello there world"}]
    assert record.reply == answer["message"]["content"]


def test_chat_streams_ndjson_chunks_then_a_done_line(srv: OllamaStandIn) -> None:
    status, ctype, body = _chat(srv)  # Ollama streams unless told otherwise
    lines = [json.loads(line) for line in body.splitlines()]
    assert (status, ctype) == (200, "application/x-ndjson")
    assert len(lines) == 5  # four word pieces, then the closing line
    assert all(not part["done"] for part in lines[:-1])
    assert "".join(part["message"]["content"] for part in lines) == f"echo[{MODEL}]: hello there world"
    last = lines[-1]
    assert last["done"] is True and last["done_reason"] == "stop" and last["message"]["content"] == ""
    assert (last["prompt_eval_count"], last["eval_count"]) == (3, 4)
    assert srv.requests[0].stream is True


def test_num_predict_truncates_with_reason_length_and_stop_cuts(srv: OllamaStandIn) -> None:
    answer = json.loads(_chat(srv, "a b c d e", stream=False, options={"num_predict": 3})[2])
    assert answer["message"]["content"].split() == [f"echo[{MODEL}]:", "a", "b"]
    assert (answer["done_reason"], answer["eval_count"]) == ("length", 3)
    answer = json.loads(_chat(srv, "keep STOP drop", stream=False, options={"stop": ["STOP"]})[2])
    assert answer["message"]["content"] == f"echo[{MODEL}]: keep " and answer["done_reason"] == "stop"


def test_unknown_model_chat_is_404_and_recorded(srv: OllamaStandIn) -> None:
    status, _, body = _post(
        f"{srv.url}/api/chat", {"model": "missing:1b", "messages": [{"role": "user", "content": "x"}]}
    )
    assert (status, json.loads(body)) == (404, {"error": "model 'missing:1b' not found"})
    assert [(r.model, r.outcome) for r in srv.requests] == [("missing:1b", "not_found")]


def test_malformed_chat_requests_are_400_naming_the_field(srv: OllamaStandIn) -> None:
    status, _, body = _post(f"{srv.url}/api/chat", {"messages": []})
    assert (status, json.loads(body)["error"]) == (400, "model is required")
    status, _, body = _post(f"{srv.url}/api/chat", {"model": MODEL, "messages": "hi"})
    assert (status, json.loads(body)["error"]) == (400, "messages must be a list of objects")
    req = urllib.request.Request(f"{srv.url}/api/chat", data=b"{not json")
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(req, timeout=10)
    assert err.value.code == 400 and "invalid JSON" in json.loads(err.value.read())["error"]


def test_empty_chat_is_a_load_response(srv: OllamaStandIn) -> None:
    answer = json.loads(_post(f"{srv.url}/api/chat", {"model": MODEL, "messages": [], "stream": False})[2])
    assert (answer["done"], answer["done_reason"], answer["message"]["content"]) == (True, "load", "")


def test_scripted_responder_answers_in_order_then_fails_loudly() -> None:
    with OllamaStandIn(responder=scripted_responder(["first", "second"]), models=[MODEL]) as srv:
        replies = [json.loads(_chat(srv, stream=False)[2])["message"]["content"] for _ in range(2)]
        assert replies == ["first", "second"]
        status, _, body = _chat(srv, stream=False)
        assert status == 500 and "ScriptExhausted" in json.loads(body)["error"]
        assert [r.outcome for r in srv.requests] == ["ok", "ok", "error"]


def test_scripted_responder_cycle_and_validation() -> None:
    respond = scripted_responder(["a", "b"], cycle=True)
    assert [respond(MODEL, [], {}) for _ in range(5)] == ["a", "b", "a", "b", "a"]
    once = scripted_responder(["only"])
    assert once(MODEL, [], {}) == "only"
    with pytest.raises(ScriptExhausted, match="after 1 replies"):
        once(MODEL, [], {})
    with pytest.raises(ValueError, match="at least one reply"):
        scripted_responder([])


def test_echo_responder_is_deterministic_and_uses_the_last_user_message() -> None:
    messages = [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "q1"},
        {"role": "assistant", "content": "a"},
    ]
    assert echo_responder("m", messages + [{"role": "user", "content": "q2"}], {}) == "echo[m]: q2"
    assert echo_responder("m", messages, {}) == echo_responder("m", messages, {}) == "echo[m]: q1"
    assert count_tokens("  two\n words ") == 2


def test_responder_receives_model_messages_and_options() -> None:
    seen: list[tuple[str, list[dict[str, Any]], dict[str, Any]]] = []

    def spy(model: str, messages: list[dict[str, Any]], options: dict[str, Any]) -> str:
        seen.append((model, messages, options))
        return "ok"

    with OllamaStandIn(responder=spy, models=[MODEL]) as srv:
        _chat(srv, "q", options={"seed": 3, "temperature": 0.2, "num_predict": 64})
    assert seen == [(MODEL, [{"role": "user", "content": "q"}], {"seed": 3, "temperature": 0.2, "num_predict": 64})]


def _chat_in_threads(srv: OllamaStandIn, n: int) -> list[int]:
    statuses: list[int] = []
    lock = threading.Lock()

    def call() -> None:
        status = _chat(srv, stream=False)[0]
        with lock:
            statuses.append(status)

    threads = [threading.Thread(target=call) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    return statuses


def test_latency_is_slept_in_parallel_by_concurrent_calls() -> None:
    with OllamaStandIn(models=[MODEL], latency_s=0.5) as srv:
        assert _chat_in_threads(srv, 8) == [200] * 8
        assert srv.peak_in_flight == 8  # all eight were sleeping at the same time
        records = srv.requests
    first_done = min(r.finished_at for r in records)
    assert all(r.received_at < first_done for r in records)  # every call arrived before any finished


def test_max_concurrency_caps_calls_in_flight() -> None:
    with OllamaStandIn(models=[MODEL], latency_s=0.1, max_concurrency=2) as srv:
        assert _chat_in_threads(srv, 6) == [200] * 6
        assert srv.peak_in_flight == 2


def test_down_reset_then_revive(srv: OllamaStandIn) -> None:
    srv.set_down(True)
    assert srv.down_mode == "reset"
    with pytest.raises(ConnectionResetError):  # urllib does not wrap a reset in URLError
        _chat(srv)
    srv.set_down(False)
    assert _chat(srv)[0] == 200


def test_down_503(srv: OllamaStandIn) -> None:
    srv.set_down(True, mode="503")
    status, _, body = _chat(srv)
    assert status == 503 and "down" in json.loads(body)["error"]
    with pytest.raises(urllib.error.HTTPError) as err:
        _get(f"{srv.url}/api/tags")
    assert err.value.code == 503


def test_down_refuse_closes_the_port_and_revival_reuses_it(srv: OllamaStandIn) -> None:
    port = srv.port
    srv.set_down(True, mode="refuse")
    with pytest.raises(urllib.error.URLError) as err:
        _get(f"{srv.url}/")
    assert isinstance(err.value.reason, ConnectionRefusedError)
    srv.set_down(False)
    assert srv.port == port and _get(f"{srv.url}/") == (200, "Ollama is running")


def test_unknown_down_mode_is_refused(srv: OllamaStandIn) -> None:
    with pytest.raises(ValueError, match="unknown down mode 'hang'"):
        srv.set_down(True, mode="hang")  # type: ignore[arg-type]


def test_going_down_fails_calls_in_flight_without_waiting_out_their_latency() -> None:
    with OllamaStandIn(models=[MODEL], latency_s=30.0) as srv:
        errors: list[BaseException] = []

        def call() -> None:
            try:
                _chat(srv)
            except OSError as exc:
                errors.append(exc)

        worker = threading.Thread(target=call)
        worker.start()
        deadline = time.monotonic() + 10
        while not srv.requests and time.monotonic() < deadline:
            time.sleep(0.01)
        started = time.monotonic()
        srv.set_down(True)
        worker.join(timeout=10)
        assert not worker.is_alive() and time.monotonic() - started < 5
        assert len(errors) == 1 and isinstance(errors[0], ConnectionResetError)
        assert [r.outcome for r in srv.requests] == ["down"]


def test_stop_closes_the_port() -> None:
    srv = OllamaStandIn(models=[MODEL]).start()
    url = srv.url
    assert _get(f"{url}/")[0] == 200
    srv.stop()
    srv.stop()  # idempotent
    with pytest.raises(urllib.error.URLError):
        _get(f"{url}/")


def test_constructor_rejects_bad_settings() -> None:
    with pytest.raises(ValueError, match="latency_s"):
        OllamaStandIn(latency_s=-1)
    with pytest.raises(ValueError, match="max_concurrency"):
        OllamaStandIn(max_concurrency=0)
    with pytest.raises(ValueError, match="models"):
        OllamaStandIn(models=[])


def test_runs_as_a_separate_process_until_sigterm() -> None:
    cmd = [
        sys.executable,
        "-m",
        "standins.ollama_server",
        "--port",
        "0",
        "--latency-ms",
        "50",
        "--models",
        "a,b:2",
    ]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline().strip() if proc.stdout else ""
        assert line.startswith("OLLAMA_STANDIN_URL=http://127.0.0.1:"), proc.stderr.read() if proc.stderr else line
        url = line.split("=", 1)[1]
        tags = json.loads(_get(f"{url}/api/tags")[1])
        assert [m["model"] for m in tags["models"]] == ["a:latest", "b:2"]
        payload = {"model": "b:2", "messages": [{"role": "user", "content": "hi"}], "stream": False}
        started = time.monotonic()
        answer = json.loads(_post(f"{url}/api/chat", payload)[2])
        assert answer["message"]["content"] == "echo[b:2]: hi" and time.monotonic() - started >= 0.05
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
