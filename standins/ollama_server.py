"""A loopback HTTP server that speaks the slice of Ollama's REST API our clients use.

Why it exists: no Ollama daemon runs on CI or dev machines, yet the `ollama:<model>` provider
must be exercised over real HTTP with the real `langchain-ollama` / `ollama` client, and the
batch and scale-out benchmarks need LLM endpoints with a fixed, known per-call latency that
serve many calls at once (as Ollama does with OLLAMA_NUM_PARALLEL) and can be made to die.

Endpoints (shapes follow Ollama's API and what ollama-python 0.6 parses):

    GET  /              "Ollama is running"
    GET  /api/version   {"version": ...}
    GET  /api/tags      the models "pulled" on this stand-in
    POST /api/show      details of one model; 404 for an unknown one
    POST /api/chat      NDJSON stream (the default) or one JSON object when "stream" is false

Answers come from a `Responder(model, messages, options) -> str`. The server honours the
`num_predict` (done_reason "length") and `stop` options on the responder's text, and reports
whitespace-token counts as prompt_eval_count / eval_count.

What the real client raises (pinned by tests/providers/test_ollama_client.py):

    model not pulled       HTTP 404 {"error": "model 'x' not found"} -> ollama.ResponseError, status_code 404
    nothing listening      stream=True (ChatOllama's default): httpx.ConnectError;
                           stream=False: builtin ConnectionError("Failed to connect to Ollama ...")
    set_down(mode="reset") httpx.ReadError (connection reset by peer), also for calls in flight
    set_down(mode="503")   ollama.ResponseError, status_code 503
    set_down(mode="refuse") the listening socket is closed: new connections are refused as above
    set_slow(seconds)       every chat call answers that much later (a server loading a model cold)
    latency > client timeout httpx.ReadTimeout
    validate_model_on_init  ChatOllama(...) raises ValueError "Model `x` not found in Ollama ..."

Run in-process with `OllamaStandIn`, or as its own process (multi-process tests):
`python -m standins.ollama_server --port 0 --latency-ms 200 --models a,b`, which prints
`OLLAMA_STANDIN_URL=http://127.0.0.1:PORT` once it listens and serves until SIGTERM / SIGINT.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import re
import socket
import struct
import sys
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

from standins.loopback import InFlight, Listener, StandInHandler, StandInServer, StartStop, serve_until_signalled

Responder = Callable[[str, list[dict[str, Any]], dict[str, Any]], str]
DownMode = Literal["reset", "503", "refuse"]

STANDIN_VERSION = "0.9.0-standin"
DEFAULT_MODELS = ("qwen2.5-coder:7b-instruct-q4_K_M",)
_TOKEN_RE = re.compile(r"\S+\s*|\s+")


class ScriptExhausted(RuntimeError):
    """A scripted responder was asked for more replies than it was given."""


@dataclass
class ChatRecord:
    """One POST /api/chat as received, kept for assertions; `outcome` is filled in when it ends.

    outcome: "pending" while in flight, then "ok", "not_found", "bad_request", "down"
    (reset or 503 because the endpoint was down) or "error" (the responder raised).
    """

    model: str
    messages: list[dict[str, Any]]
    options: dict[str, Any]
    stream: bool
    format: Any = None
    outcome: str = "pending"
    reply: str | None = None
    received_at: float = field(default_factory=time.monotonic)
    finished_at: float | None = None


# --------------------------------------------------------------------------- responders


def _last_user_text(messages: Sequence[dict[str, Any]]) -> str:
    for message in reversed(messages):
        if message.get("role") == "user":
            return str(message.get("content") or "")
    return ""


def echo_responder(model: str, messages: list[dict[str, Any]], options: dict[str, Any]) -> str:
    """Deterministic answer that shows what arrived: the model name and the last user message."""
    return f"echo[{model}]: {_last_user_text(messages)}"


def scripted_responder(replies: Iterable[str], *, cycle: bool = False) -> Responder:
    """Answer calls with `replies` in order, across threads; when they run out, cycle or fail.

    Without `cycle`, one call too many raises `ScriptExhausted`, which the server turns into an
    HTTP 500 naming the problem, so a test that scripted too few replies fails loudly.
    """
    queue = list(replies)
    if not queue:
        raise ValueError("scripted_responder needs at least one reply")
    source = itertools.cycle(queue) if cycle else iter(queue)
    lock = threading.Lock()

    def respond(model: str, messages: list[dict[str, Any]], options: dict[str, Any]) -> str:
        with lock:
            try:
                return next(source)
            except StopIteration:
                raise ScriptExhausted(f"scripted responder ran out after {len(queue)} replies") from None

    return respond


def chat_model_responder(chat_model: Any) -> Responder:
    """Serve the answers of any LangChain chat model (its own settings apply; per-call options are ignored)."""
    lock = threading.Lock()

    def respond(model: str, messages: list[dict[str, Any]], options: dict[str, Any]) -> str:
        pairs = [(m.get("role", "user"), str(m.get("content") or "")) for m in messages]
        with lock:  # in-process models such as llama.cpp are not safe to call from two threads
            answer = chat_model.invoke(pairs)
        return str(answer.content)

    return respond


def embedded_responder(max_tokens: int = 256) -> Responder:
    """Answer with the project's embedded GGUF model, as an Ollama box serving a real model would.

    Imported lazily so the stand-in itself needs only the standard library.
    """
    from execugraph.providers.llm import make_chat_model

    return chat_model_responder(make_chat_model("llamacpp:default", max_tokens=max_tokens))


def count_tokens(text: str) -> int:
    """Approximate token count: whitespace-separated words (enough for usage accounting in tests)."""
    return len(text.split())


# --------------------------------------------------------------------------- request handling


def _full_name(model: str) -> str:
    """Ollama treats a name without a tag as `<name>:latest`."""
    return model if ":" in model.rsplit("/", 1)[-1] else f"{model}:latest"


def _now_rfc3339() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _model_details(name: str) -> dict[str, Any]:
    family = name.split(":", 1)[0].split("/")[-1]
    return {
        "parent_model": "",
        "format": "gguf",
        "family": family,
        "families": [family],
        "parameter_size": "stand-in",
        "quantization_level": "none",
    }


def _digest(name: str) -> str:
    return hashlib.sha256(name.encode()).hexdigest()


def _apply_options(reply: str, options: dict[str, Any]) -> tuple[str, str]:
    """Cut the reply at the first stop string and at num_predict tokens, as a real server would."""
    done_reason = "stop"
    stops = options.get("stop") or []
    if isinstance(stops, str):
        stops = [stops]
    cuts = [reply.find(s) for s in stops if s and s in reply]
    if cuts:
        reply = reply[: min(cuts)]
    limit = options.get("num_predict")
    if isinstance(limit, int) and limit >= 0:
        pieces = _TOKEN_RE.findall(reply)
        words = [i for i, p in enumerate(pieces) if p.strip()]
        if len(words) > limit:
            reply = "".join(pieces[: words[limit]]) if limit else ""
            done_reason = "length"
    return reply, done_reason


class _Handler(StandInHandler):
    """Per-connection handler (keep-alive plus chunked NDJSON, as Ollama serves it); state lives on `OllamaStandIn`."""

    server_version = "OllamaStandIn"
    server: _Server
    _body: bytes = b""

    # -- plumbing

    def setup(self) -> None:
        super().setup()
        self.server.standin._track(self.connection, add=True)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.standin._track(self.connection, add=False)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - signature of the base class
        if self.server.standin.verbose:
            super().log_message(format, *args)

    def _send_json(self, status: int, payload: dict[str, Any]) -> None:
        body = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _send_text(self, status: int, text: str) -> None:
        body = text.encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _reset(self) -> None:
        """Abort the connection with a TCP RST, as a crashing server or a dropped link looks to a client."""
        self.close_connection = True
        try:
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()  # the fd really closes (with RST) once rfile is closed in finish()
        except OSError:
            pass

    def _read_json(self) -> dict[str, Any] | None:
        try:
            body = json.loads(self._body or b"{}")
        except json.JSONDecodeError as exc:
            self._send_json(400, {"error": f"invalid JSON body: {exc}"})
            return None
        if not isinstance(body, dict):
            self._send_json(400, {"error": "request body must be a JSON object"})
            return None
        return body

    def _answer_if_down(self) -> bool:
        mode = self.server.standin.down_mode
        if mode is None:
            return False
        if mode == "503":
            self._send_json(503, {"error": "service unavailable: stand-in endpoint is down"})
        else:
            self._reset()
        return True

    # -- verbs

    def do_HEAD(self) -> None:  # noqa: N802 - http.server naming
        self.do_GET()

    def do_GET(self) -> None:  # noqa: N802
        if self._answer_if_down():
            return
        path = self.path.split("?", 1)[0]
        standin = self.server.standin
        if path == "/":
            self._send_text(200, "Ollama is running")
        elif path == "/api/version":
            self._send_json(200, {"version": STANDIN_VERSION})
        elif path == "/api/tags":
            self._send_json(200, {"models": [standin._tag_entry(m) for m in standin.models]})
        else:
            self._send_text(404, "404 page not found")

    def do_POST(self) -> None:  # noqa: N802
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            self.close_connection = True
            self._send_json(400, {"error": f"bad Content-Length header: {self.headers.get('Content-Length')!r}"})
            return
        self._body = self.rfile.read(length) if length > 0 else b""  # drained first, so keep-alive stays in step
        if self._answer_if_down():
            return
        path = self.path.split("?", 1)[0]
        if path == "/api/chat":
            self._chat()
        elif path == "/api/show":
            self._show()
        else:
            self._send_text(404, "404 page not found")

    def _show(self) -> None:
        body = self._read_json()
        if body is None:
            return
        name = str(body.get("model") or body.get("name") or "")
        if not name:
            self._send_json(400, {"error": "model is required"})
            return
        full = _full_name(name)
        if full not in self.server.standin.models:
            self._send_json(404, {"error": f"model '{name}' not found"})
            return
        self._send_json(
            200,
            {
                "license": "",
                "modelfile": f"# stand-in model {full}\nFROM {full}\n",
                "parameters": "",
                "template": "{{ .Prompt }}",
                "details": _model_details(full),
                "model_info": {"general.architecture": "standin", "general.parameter_count": 0},
                "capabilities": ["completion"],
                "modified_at": self.server.standin.started_at,
            },
        )

    def _chat(self) -> None:
        standin = self.server.standin
        began = time.perf_counter_ns()
        body = self._read_json()
        if body is None:
            return
        model = body.get("model")
        messages = body.get("messages", [])
        options = body.get("options") or {}
        stream = body.get("stream", True) is not False
        if not isinstance(model, str) or not model:
            self._send_json(400, {"error": "model is required"})
            return
        if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
            self._send_json(400, {"error": "messages must be a list of objects"})
            return
        if not isinstance(options, dict):
            self._send_json(400, {"error": "options must be an object"})
            return
        record = standin._record(ChatRecord(model, messages, options, stream, body.get("format")))
        if _full_name(model) not in standin.models:
            standin._finish(record, "not_found")
            self._send_json(404, {"error": f"model '{model}' not found"})
            return
        if not messages:  # Ollama answers an empty chat by loading the model
            standin._finish(record, "ok")
            done = {"model": model, "created_at": _now_rfc3339(), "message": {"role": "assistant", "content": ""}}
            self._send_json(200, {**done, "done_reason": "load", "done": True})
            return

        with standin._calls.slot():
            if standin._wait_latency() or standin.down_mode is not None:
                standin._finish(record, "down")
                self._answer_if_down()
                return
            try:
                reply = standin.responder(model, messages, options)
            except Exception as exc:  # the responder is test code: report its failure, keep serving
                standin._finish(record, "error")
                self._send_json(500, {"error": f"stand-in responder failed: {type(exc).__name__}: {exc}"})
                return
            reply, done_reason = _apply_options(str(reply), options)
            prompt_tokens = sum(count_tokens(str(m.get("content") or "")) for m in messages)
            standin._finish(record, "ok", reply)
            self._deliver(model, reply, done_reason, prompt_tokens, stream, began)

    def _deliver(self, model: str, reply: str, done_reason: str, prompt_tokens: int, stream: bool, began: int) -> None:
        eval_count = count_tokens(reply)

        def final(content: str) -> dict[str, Any]:
            total = time.perf_counter_ns() - began
            return {
                "model": model,
                "created_at": _now_rfc3339(),
                "message": {"role": "assistant", "content": content},
                "done_reason": done_reason,
                "done": True,
                "total_duration": total,
                "load_duration": 0,
                "prompt_eval_count": prompt_tokens,
                "prompt_eval_duration": 0,
                "eval_count": eval_count,
                "eval_duration": total,
            }

        if not stream:
            self._send_json(200, final(reply))
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for piece in _TOKEN_RE.findall(reply):
            part = {"model": model, "created_at": _now_rfc3339(), "message": {"role": "assistant", "content": piece}}
            self._write_chunk({**part, "done": False})
        self._write_chunk(final(""))
        self.wfile.write(b"0\r\n\r\n")

    def _write_chunk(self, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode() + b"\n"
        self.wfile.write(f"{len(data):X}\r\n".encode() + data + b"\r\n")


class _Server(StandInServer):
    standin: OllamaStandIn

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hung up (timeout, cancelled stream) is routine here, not a traceback."""
        if isinstance(sys.exc_info()[1], ConnectionError) and not self.standin.verbose:
            return
        super().handle_error(request, client_address)


# --------------------------------------------------------------------------- the stand-in


class OllamaStandIn(StartStop):
    """An Ollama-compatible endpoint on 127.0.0.1, served from a background thread.

    `latency_s` is slept per chat call before answering, in parallel across calls (one thread per
    connection); `max_concurrency` caps how many calls are processed at once (the rest queue,
    like Ollama's OLLAMA_NUM_PARALLEL). `set_down` makes it fail like a dying endpoint.
    """

    def __init__(
        self,
        responder: Responder = echo_responder,
        models: Sequence[str] = DEFAULT_MODELS,
        latency_s: float = 0.0,
        max_concurrency: int | None = None,
        *,
        port: int = 0,
        verbose: bool = False,
    ) -> None:
        if latency_s < 0:
            raise ValueError(f"latency_s must be >= 0, got {latency_s}")
        if max_concurrency is not None and max_concurrency < 1:
            raise ValueError(f"max_concurrency must be >= 1 or None, got {max_concurrency}")
        if not models:
            raise ValueError("models must name at least one model the stand-in serves")
        self.responder = responder
        self.models = [_full_name(m) for m in models]
        self.latency_s = latency_s
        self.max_concurrency = max_concurrency
        self.verbose = verbose
        self.started_at = _now_rfc3339()
        self._port = port
        self._requests: list[ChatRecord] = []
        self._lock = threading.Lock()
        self._state = threading.Condition(self._lock)  # wakes latency sleepers when the endpoint dies
        self._down_mode: DownMode | None = None
        self.slow_s = 0.0  # extra delay per chat call (set_slow)
        self._calls = InFlight(self._lock, max_concurrency)  # under max_concurrency the rest queue
        self._connections: set[socket.socket] = set()
        self._listener = Listener(_Server, _Handler, "ollama-standin")

    # -- lifecycle

    def start(self) -> OllamaStandIn:
        """Bind (a free port unless one was given) and serve in a daemon thread."""
        if self._listener.server is None:
            self._port = self._listener.start(self, self._port)  # kept, so a revived endpoint reuses it
        return self

    def stop(self) -> None:
        """Stop listening and drop every open connection; safe to call twice."""
        self._listener.stop()
        self._drop_connections()

    @property
    def port(self) -> int:
        return self._port

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._port}"

    # -- failure injection

    @property
    def down_mode(self) -> DownMode | None:
        return self._down_mode

    def set_down(self, down: bool, mode: DownMode = "reset") -> None:
        """Make the endpoint fail (or recover). Calls sleeping in their latency fail too.

        reset:  every request, and every call in flight, gets its connection reset (TCP RST)
        503:    every request gets HTTP 503 {"error": ...}
        refuse: the listening socket is closed, so new connections are refused; open ones are dropped
        """
        if mode not in ("reset", "503", "refuse"):
            raise ValueError(f"unknown down mode {mode!r}; use 'reset', '503' or 'refuse'")
        with self._state:
            previous = self._down_mode
            self._down_mode = mode if down else None
            self._state.notify_all()
        if down and mode == "refuse":
            self._listener.stop()
            self._drop_connections()
        elif not down and previous == "refuse":
            self.start()  # rebinds the same port (SO_REUSEADDR)

    def set_slow(self, seconds: float) -> None:
        """Delay every chat call by `seconds` more (0 ends it), like a server loading a large model."""
        if seconds < 0:
            raise ValueError(f"seconds must be >= 0, got {seconds}")
        with self._state:
            self.slow_s = seconds
            self._state.notify_all()

    # -- assertions

    @property
    def requests(self) -> list[ChatRecord]:
        """Snapshot of the chat requests received so far, oldest first."""
        with self._lock:
            return list(self._requests)

    def _tag_entry(self, name: str) -> dict[str, Any]:
        return {
            "name": name,
            "model": name,
            "modified_at": self.started_at,
            "size": 1,
            "digest": _digest(name),
            "details": _model_details(name),
        }

    # -- used by the handler

    def _record(self, record: ChatRecord) -> ChatRecord:
        with self._lock:
            self._requests.append(record)
        return record

    def _finish(self, record: ChatRecord, outcome: str, reply: str | None = None) -> None:
        with self._lock:
            record.outcome, record.reply, record.finished_at = outcome, reply, time.monotonic()

    def _wait_latency(self) -> bool:
        """Sleep the configured latency (plus any slowness); return True early if the endpoint goes down meanwhile."""
        deadline = time.monotonic() + self.latency_s + self.slow_s
        with self._state:
            while self._down_mode is None:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._state.wait(left)
            return True

    @property
    def peak_in_flight(self) -> int:
        """The most chat calls processed at once so far."""
        return self._calls.peak

    def _track(self, conn: socket.socket, *, add: bool) -> None:
        with self._lock:
            (self._connections.add if add else self._connections.discard)(conn)

    def _drop_connections(self) -> None:
        with self._lock:
            conns = list(self._connections)
        for conn in conns:
            try:
                conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                conn.shutdown(socket.SHUT_RDWR)  # wakes a handler blocked reading the next request
            except OSError:
                pass


# --------------------------------------------------------------------------- separate process


def main(argv: Sequence[str] | None = None) -> int:
    """Serve until SIGTERM/SIGINT; print the URL as soon as the port is bound."""
    parser = argparse.ArgumentParser(prog="python -m standins.ollama_server", description=main.__doc__)
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (0: any free port)")
    parser.add_argument("--latency-ms", type=float, default=0.0, help="fixed delay per chat call")
    parser.add_argument("--models", default=",".join(DEFAULT_MODELS), help="comma-separated model names served")
    parser.add_argument("--max-concurrency", type=int, default=None, help="chat calls processed at once")
    parser.add_argument("--responder", choices=("echo", "embedded"), default="echo")
    parser.add_argument("--verbose", action="store_true", help="log every request to stderr")
    args = parser.parse_args(argv)
    models = [m.strip() for m in args.models.split(",") if m.strip()]
    if not models:
        parser.error("--models must name at least one model")
    responder = embedded_responder() if args.responder == "embedded" else echo_responder
    standin = OllamaStandIn(
        responder,
        models,
        latency_s=args.latency_ms / 1000.0,
        max_concurrency=args.max_concurrency,
        port=args.port,
        verbose=args.verbose,
    ).start()
    return serve_until_signalled(standin, f"OLLAMA_STANDIN_URL={standin.url}")


if __name__ == "__main__":
    sys.exit(main())
