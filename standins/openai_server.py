"""A loopback OpenAI-compatible server with a fixed latency and a fixed number of slots.

It plays a vLLM-style server doing continuous batching: up to `slots` chat completions are
served at once, each taking `latency_s`, and requests beyond the slots wait for one. It counts
what a capacity benchmark needs: requests served, busy slot-seconds (the time requests held a
slot), when the first request arrived, and every request body (so tests can check the `seed`
each one carried).

Endpoints (the slice of the OpenAI API that `langchain-openai` uses):

    GET  /v1/models             the models served
    POST /v1/chat/completions   one JSON answer, or a server-sent-event stream when "stream" is true

    GET  /standin/stats         the counters (served, busy_slot_s, peak_in_flight, first_request_at)

Answers come from a `Responder(model, messages, options)` as in `standins.ollama_server`, where
`options` holds the request's sampling fields (seed, temperature, max_tokens, stop). Token counts
in `usage` are whitespace words.

Run in-process with `OpenAIStandIn`, or as its own process, as a real server is (a benchmark's
client then does not share its interpreter with the server): `python -m standins.openai_server
--latency-ms 500 --slots 16 --responder workload` prints `OPENAI_STANDIN_URL=http://127.0.0.1:PORT/v1`
once it listens and serves until SIGTERM / SIGINT. Times are `time.monotonic()`, which on Linux
is one clock for every process.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from standins.loopback import InFlight, Listener, StandInHandler, StandInServer, StartStop, serve_until_signalled
from standins.ollama_server import Responder, count_tokens, echo_responder

SAMPLING_FIELDS = ("seed", "temperature", "max_tokens", "max_completion_tokens", "stop", "top_p")


@dataclass
class CompletionRecord:
    """One POST /v1/chat/completions as received; `served_at` is set once it was answered."""

    body: dict[str, Any]
    received_at: float = field(default_factory=time.monotonic)
    served_at: float | None = None

    @property
    def seed(self) -> Any:
        return self.body.get("seed")


class _Handler(StandInHandler):
    server_version = "OpenAIStandIn"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - signature of the base class
        pass

    def _send(self, status: int, payload: dict[str, Any]) -> None:
        body = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:  # noqa: N802 - http.server naming
        standin = self.server.standin
        path = self.path.split("?", 1)[0].rstrip("/")
        if path == "/v1/models":
            data = [{"id": m, "object": "model", "created": 0, "owned_by": "standin"} for m in standin.models]
            self._send(200, {"object": "list", "data": data})
        elif path == "/standin/stats":
            self._send(200, standin.stats())
        else:
            self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})

    def do_POST(self) -> None:  # noqa: N802
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length > 0 else b""
        if self.path.split("?", 1)[0].rstrip("/") != "/v1/chat/completions":
            self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
            return
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError as exc:
            self._send(400, {"error": {"message": f"invalid JSON: {exc}", "type": "invalid_request_error"}})
            return
        standin = self.server.standin
        model = str(body.get("model") or "")
        if model not in standin.models:
            self._send(404, {"error": {"message": f"The model `{model}` does not exist.", "type": "not_found"}})
            return
        record = standin._record(CompletionRecord(body))
        messages = body.get("messages") or []
        options = {k: body[k] for k in SAMPLING_FIELDS if k in body}
        with standin._calls.slot():
            time.sleep(standin.latency_s)
            text = str(standin.responder(model, messages, options))
        standin._served(record)
        prompt_tokens = sum(count_tokens(str(m.get("content") or "")) for m in messages)
        usage = {"prompt_tokens": prompt_tokens, "completion_tokens": count_tokens(text),
                 "total_tokens": prompt_tokens + count_tokens(text)}
        answer_id = f"chatcmpl-{uuid.uuid4().hex[:12]}"
        if body.get("stream"):
            self._stream(answer_id, model, text, usage)
            return
        self._send(200, {
            "id": answer_id, "object": "chat.completion", "created": int(time.time()), "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": usage,
        })

    def _stream(self, answer_id: str, model: str, text: str, usage: dict[str, int]) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        base = {"id": answer_id, "object": "chat.completion.chunk", "created": int(time.time()), "model": model}
        chunks = [{**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": text},
                                        "finish_reason": None}]},
                  {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}], "usage": usage}]
        for chunk in chunks:
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
        self.wfile.write(b"data: [DONE]\n\n")


class _Server(StandInServer):
    standin: OpenAIStandIn


class OpenAIStandIn(StartStop):
    """An OpenAI-compatible endpoint on 127.0.0.1 serving `slots` requests at once, each in `latency_s`."""

    def __init__(self, responder: Responder = echo_responder, models: Sequence[str] = ("m",),
                 latency_s: float = 0.0, slots: int = 16) -> None:
        if latency_s < 0 or slots < 1:
            raise ValueError(f"need latency_s >= 0 and slots >= 1, got {latency_s} and {slots}")
        self.responder = responder
        self.models = list(models)
        self.latency_s = latency_s
        self.slots = slots
        self.served = 0
        self.first_request_at: float | None = None  # time.monotonic() of the first completion request
        self._requests: list[CompletionRecord] = []
        self._lock = threading.Lock()
        self._calls = InFlight(self._lock, slots)
        self._listener = Listener(_Server, _Handler, "openai-standin")
        self._port: int | None = None

    def start(self) -> OpenAIStandIn:
        """Bind a free loopback port and serve in a daemon thread."""
        self._port = self._listener.start(self)
        return self

    def stop(self) -> None:
        """Stop listening; safe to call twice."""
        self._listener.stop()
        self._port = None

    @property
    def port(self) -> int:
        assert self._port is not None, "not started"
        return self._port

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def busy_slot_s(self) -> float:
        """Seconds requests held a slot (summed over slots)."""
        return self._calls.busy_s

    @property
    def peak_in_flight(self) -> int:
        """The most requests holding a slot at once."""
        return self._calls.peak

    @property
    def requests(self) -> list[CompletionRecord]:
        """Snapshot of the completion requests received so far, oldest first."""
        with self._lock:
            return list(self._requests)

    def stats(self) -> dict[str, Any]:
        """The counters a capacity benchmark reads (also served at GET /standin/stats)."""
        with self._lock:
            return {"served": self.served, "busy_slot_s": self.busy_slot_s, "peak_in_flight": self.peak_in_flight,
                    "first_request_at": self.first_request_at, "slots": self.slots, "latency_s": self.latency_s}

    def reset_counters(self) -> None:
        """Forget what was served (between benchmark phases on one server)."""
        with self._lock:
            self.served, self._calls.busy_s, self._calls.peak, self.first_request_at = 0, 0.0, 0, None
            self._requests.clear()

    def _record(self, record: CompletionRecord) -> CompletionRecord:
        with self._lock:
            self._requests.append(record)
            if self.first_request_at is None:
                self.first_request_at = record.received_at
        return record

    def _served(self, record: CompletionRecord) -> None:
        with self._lock:
            record.served_at = time.monotonic()
            self.served += 1


def main(argv: Sequence[str] | None = None) -> int:
    """Serve until SIGTERM/SIGINT; print the URL as soon as the port is bound."""
    parser = argparse.ArgumentParser(prog="python -m standins.openai_server", description=main.__doc__)
    parser.add_argument("--latency-ms", type=float, default=0.0, help="time each request holds its slot")
    parser.add_argument("--slots", type=int, default=16, help="requests served at once (the rest wait)")
    parser.add_argument("--models", default="m", help="comma-separated model names served")
    parser.add_argument("--responder", choices=("echo", "workload"), default="echo",
                        help="workload: the benchmarks' replies by agent role (standins.workload)")
    args = parser.parse_args(argv)
    responder: Responder = echo_responder
    if args.responder == "workload":
        from standins.role_responder import role_responder
        from standins.workload import REPLIES

        responder = role_responder(REPLIES)
    models = [m.strip() for m in args.models.split(",") if m.strip()]
    standin = OpenAIStandIn(responder, models, latency_s=args.latency_ms / 1000.0, slots=args.slots).start()
    return serve_until_signalled(standin, f"OPENAI_STANDIN_URL={standin.base_url}")


if __name__ == "__main__":
    sys.exit(main())
