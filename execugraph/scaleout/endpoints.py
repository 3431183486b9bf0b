"""Balancing trials over several LLM endpoints (Ollama or OpenAI-compatible), with health checks and draining.

Each endpoint has a limit on trials in flight (a trial talks to one endpoint at
a time, so this bounds its concurrent LLM calls, like OLLAMA_NUM_PARALLEL on
the server). A new trial goes to the healthy endpoint with the most free
slots. Health is the endpoint's model list answering in time and naming every
model of its kind the batch uses: GET /api/tags for Ollama, GET /models under
the /v1 base URL for an OpenAI-compatible server. It is checked for all
endpoints at start, then periodically by a background thread, and at once for
an endpoint a trial just failed on. A failing endpoint is drained (gets no new
trials; the reason is kept) and re-admitted when a check passes again.
"""

from __future__ import annotations

import logging
import threading
import time
import urllib.error
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from execugraph.providers.health import ollama_models, openai_models

log = logging.getLogger("execugraph.scaleout")

# probe(url, timeout_s) -> the model names the endpoint serves; raises when it is not healthy.
Probe = Callable[[str, float], list[str]]


def full_model_name(name: str) -> str:
    """Ollama treats `name` without a tag as `name:latest`."""
    return name if ":" in name.rsplit("/", 1)[-1] else f"{name}:latest"


def _openai_probe(url: str, timeout: float) -> list[str]:
    from execugraph.configuration.settings import load_settings

    return openai_models(url, timeout_s=timeout, api_key=load_settings().openai_api_key)


# kind -> (the probe, the path it reads, how a model name is compared)
KINDS: dict[str, tuple[Probe, str, Callable[[str], str]]] = {
    "ollama": (lambda url, timeout: ollama_models(url, timeout_s=timeout), "/api/tags", full_model_name),
    "openai": (_openai_probe, "/models", lambda name: name),
}


@dataclass
class Endpoint:
    """One LLM endpoint as the driver sees it."""

    url: str
    limit: int
    in_flight: int = 0
    healthy: bool = True
    reason: str | None = None  # why it is drained (None while healthy)
    handed_out: int = 0  # trials given to it so far
    drains: int = 0  # times it was drained

    @property
    def free(self) -> int:
        return self.limit - self.in_flight if self.healthy else 0


class EndpointBalancer:
    """Hands out endpoint slots to trials; drains and re-admits endpoints on health checks.

    With `checked=False` (no role of the batch uses a model of this kind) endpoints
    are never probed: they only bound concurrency. `on_health(endpoint, reason)` is
    called after every check that found it unhealthy (reason) or that re-admitted
    it (None).
    """

    def __init__(
        self,
        urls: Iterable[str],
        limit: int,
        *,
        required_models: Iterable[str] = (),
        checked: bool = True,
        check_every_s: float = 5.0,
        probe_timeout_s: float = 2.0,
        probe: Probe | None = None,
        kind: str = "ollama",
        on_health: Callable[[Endpoint, str | None], None] | None = None,
    ) -> None:
        self.endpoints = [Endpoint(url, limit) for url in urls]
        if not self.endpoints:
            raise ValueError("at least one LLM endpoint is needed")
        if limit < 1:
            raise ValueError(f"per-endpoint concurrency must be at least 1, got {limit}")
        if kind not in KINDS:
            raise ValueError(f"unknown endpoint kind {kind!r}; use {' or '.join(KINDS)}")
        default_probe, self._path, self._name = KINDS[kind]
        self.kind = kind
        self.required = sorted({self._name(m) for m in required_models})
        self.checked = checked
        self.check_every_s = check_every_s
        self.probe_timeout_s = probe_timeout_s
        self._probe = probe or default_probe
        self._on_health = on_health
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # -- slots

    def acquire(self) -> Endpoint | None:
        """The healthy endpoint with the most free slots (one slot taken), or None when all are full or drained."""
        with self._lock:
            best = max(self.endpoints, key=lambda e: (e.free, -e.handed_out))
            if best.free <= 0:
                return None
            best.in_flight += 1
            best.handed_out += 1
            return best

    def release(self, endpoint: Endpoint) -> None:
        with self._lock:
            endpoint.in_flight -= 1

    def capacity(self) -> int:
        """Trials the healthy endpoints can take in total (busy slots included)."""
        with self._lock:
            return sum(e.limit for e in self.endpoints if e.healthy)

    def healthy(self) -> list[Endpoint]:
        with self._lock:
            return [e for e in self.endpoints if e.healthy]

    def describe(self) -> str:
        """One line per drained endpoint with its reason, for error messages."""
        with self._lock:
            return "; ".join(f"{e.url}: {e.reason}" for e in self.endpoints if not e.healthy) or "all healthy"

    # -- health

    def check(self, endpoint: Endpoint) -> str | None:
        """Probe one endpoint now and update its state; returns the reason it is unhealthy, or None."""
        if not self.checked:
            return None
        reason = self._diagnose(endpoint.url)
        readmitted = False
        with self._lock:
            if reason is not None and endpoint.healthy:
                endpoint.healthy, endpoint.reason = False, reason
                endpoint.drains += 1
                log.warning("draining LLM endpoint %s: %s", endpoint.url, reason)
            elif reason is None and not endpoint.healthy:
                log.warning("LLM endpoint %s passes its health check again (was: %s)", endpoint.url, endpoint.reason)
                endpoint.healthy, endpoint.reason = True, None
                readmitted = True
            elif reason is not None:
                endpoint.reason = reason
        if self._on_health is not None and (reason is not None or readmitted):
            try:
                self._on_health(endpoint, reason)
            except Exception:  # reporting must never stop the health checks
                log.exception("on_health callback failed for %s", endpoint.url)
        return reason

    def check_all(self) -> None:
        for endpoint in self.endpoints:
            self.check(endpoint)

    def _diagnose(self, url: str) -> str | None:
        try:
            served = {self._name(m) for m in self._probe(url, self.probe_timeout_s)}
        except Exception as exc:  # refused, reset, timeout, HTTP 503, garbage: all mean "do not send trials"
            return f"health check GET {url.rstrip('/')}{self._path} failed: {_why(exc)}"
        missing = [m for m in self.required if m not in served]
        if missing:
            verb = "pulled on" if self.kind == "ollama" else "served by"
            return f"health check: model(s) {', '.join(missing)} not {verb} {url}"
        return None

    def start(self) -> None:
        """Check every endpoint every `check_every_s` in a background thread until `stop()`."""
        if not self.checked or self._thread is not None:
            return
        self._thread = threading.Thread(target=self._loop, name="endpoint-health", daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        while not self._stop.wait(self.check_every_s):
            started = time.monotonic()
            self.check_all()
            log.debug("checked %d endpoints in %.2f s", len(self.endpoints), time.monotonic() - started)

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=self.probe_timeout_s * len(self.endpoints) + 1)
            self._thread = None


def _why(exc: BaseException) -> str:
    """A short cause: `HTTP 503 Service Unavailable`, `ConnectionRefusedError: ...`, `TimeoutError: ...`."""
    if isinstance(exc, urllib.error.HTTPError):
        return f"HTTP {exc.code} {exc.reason}"
    if isinstance(exc, urllib.error.URLError) and isinstance(exc.reason, BaseException):
        exc = exc.reason
    return f"{type(exc).__name__}: {exc}"
