"""One place that decides whether an LLM provider failure is worth retrying.

Transient faults (the endpoint is down, restarting, overloaded or slow: connection
refused or reset, timeouts, HTTP 5xx, 429, a broken HTTP exchange) are waited out by
`execugraph.providers.outages`; permanent ones (unknown model, any other 4xx, a prompt over the
context window, our own configuration errors) end the trial at once, because retrying
cannot change their answer. Covers httpx (both Ollama and OpenAI clients sit on it), the
`ollama` client, the `openai` package and LangChain's model-error taxonomy, and walks an
exception's cause chain, since clients like to wrap one error in another.
"""

from __future__ import annotations

import errno
import socket
import urllib.error
from dataclasses import dataclass

from execugraph.safety.redaction import scrub_message

# HTTP statuses a server may answer while it is overloaded, restarting or behind a proxy that is.
TRANSIENT_STATUSES = frozenset({408, 425, 429, 500, 502, 503, 504, 520, 521, 522, 523, 524})
_TRANSIENT_ERRNOS = frozenset(
    {errno.ECONNREFUSED, errno.ECONNRESET, errno.ECONNABORTED, errno.EPIPE, errno.ETIMEDOUT,
     errno.EHOSTUNREACH, errno.ENETUNREACH, errno.ENETDOWN, errno.EAGAIN}
)


@dataclass(frozen=True)
class Fault:
    """What went wrong, in one line, and whether waiting can fix it."""

    transient: bool
    summary: str  # e.g. "HTTP 503: service unavailable", "ConnectError: [Errno 111] Connection refused"
    status: int | None = None  # the HTTP status, when the server answered at all

    def __post_init__(self) -> None:  # a server may echo the key it was sent: it never goes further
        object.__setattr__(self, "summary", scrub_message(self.summary))


def _status_of(exc: BaseException) -> int | None:
    """The HTTP status an exception carries (ollama.ResponseError, openai.APIStatusError, httpx, urllib)."""
    for attr in ("status_code", "code", "status"):
        value = getattr(exc, attr, None)
        if isinstance(value, int) and 100 <= value <= 599:
            return value
    response = getattr(exc, "response", None)
    value = getattr(response, "status_code", None)
    return value if isinstance(value, int) and 100 <= value <= 599 else None


def _class_names(exc: BaseException) -> set[str]:
    return {cls.__name__ for cls in type(exc).__mro__}


def _own_verdict(exc: BaseException) -> Fault | None:
    """Classify one exception without looking at its causes; None when it says nothing either way."""
    from execugraph.providers.llm import LLMError

    names = _class_names(exc)
    text = _with_root_cause(exc)
    if isinstance(exc, LLMError):
        return Fault(False, str(exc))
    if "ContextOverflowError" in names or "LengthFinishReasonError" in names:
        return Fault(False, text, _status_of(exc))
    status = _status_of(exc)
    if status is not None and (
        "ResponseError" in names or "APIStatusError" in names or "HTTPStatusError" in names
        or isinstance(exc, urllib.error.HTTPError)
    ):
        return Fault(status in TRANSIENT_STATUSES, f"HTTP {status}: {_short(exc)}", status)
    # openai.APIConnectionError (APITimeoutError is a subclass), LangChain's connection/timeout errors
    if names & {"APIConnectionError", "ModelConnectionError", "ModelTimeoutError", "ModelRateLimitError"}:
        return Fault(True, text)
    # httpx: ConnectError, ConnectTimeout, ReadTimeout, ReadError, WriteError, RemoteProtocolError, PoolTimeout, ...
    if names & {"TransportError", "TimeoutException", "NetworkError", "RemoteProtocolError", "ProtocolError"}:
        return Fault(True, text)
    if names & {"ModelNotFoundError", "ModelAuthenticationError", "ModelPermissionDeniedError",
                "ModelInvalidRequestError"}:
        return Fault(False, text, status)
    if isinstance(exc, (ConnectionError, TimeoutError, socket.timeout, urllib.error.URLError)):
        return Fault(True, text)
    if isinstance(exc, OSError) and exc.errno in _TRANSIENT_ERRNOS:
        return Fault(True, text)
    return None


def _with_root_cause(exc: BaseException) -> str:
    """`OpenAIConnectionError: Connection error. (ConnectError: [Errno 111] Connection refused)`."""
    text = f"{type(exc).__name__}: {exc}"
    root, seen = exc, {id(exc)}
    while (nxt := root.__cause__ or root.__context__) is not None and id(nxt) not in seen and len(seen) < 8:
        seen.add(id(nxt))
        root = nxt
    if root is not exc and str(root) and str(root) not in text:
        text += f" ({type(root).__name__}: {root})"
    return text


def _short(exc: BaseException) -> str:
    """The server's own words, without the client's decoration."""
    for attr in ("error", "message"):
        value = getattr(exc, attr, None)
        if isinstance(value, str) and value:
            return value
    return str(exc)


def classify(exc: BaseException) -> Fault:
    """Transient or permanent, with a one-line summary; unknown exceptions are permanent (fail fast)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen and len(seen) < 8:
        seen.add(id(current))
        verdict = _own_verdict(current)
        if verdict is not None:
            return verdict
        current = current.__cause__ or current.__context__
    return Fault(False, f"{type(exc).__name__}: {exc}", _status_of(exc))
