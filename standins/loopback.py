"""How every stand-in starts and stops: an HTTP server on a loopback port served from a thread (counting the calls
it serves at once), or a helper process that says when it is ready; one copy, so the stand-ins differ only in what
they answer."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Self

ROOT = Path(__file__).resolve().parents[1]
POLL_S = 0.05  # how soon `shutdown` is noticed by the serving thread


class StandInServer(ThreadingHTTPServer):
    """One daemon thread per connection; many concurrent callers queue in the backlog rather than being refused."""

    daemon_threads = True
    request_queue_size = 256
    standin: Any  # the stand-in whose state the handler reads


class StandInHandler(BaseHTTPRequestHandler):
    """Keep-alive HTTP/1.1 without Nagle: small header and body writes must not wait out a delayed ACK (~40 ms)."""

    protocol_version = "HTTP/1.1"

    def setup(self) -> None:
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class Listener:
    """A stand-in's server on 127.0.0.1, served from a daemon thread until `stop` (safe to call twice)."""

    def __init__(self, server_class: type[StandInServer], handler: type[BaseHTTPRequestHandler], name: str) -> None:
        self.server_class = server_class
        self.handler = handler
        self.name = name
        self.server: StandInServer | None = None
        self.thread: threading.Thread | None = None

    def start(self, standin: Any, port: int = 0) -> int:
        """Bind `port` (0: a free one), serve `standin` in a daemon thread; the bound port."""
        server = self.server_class(("127.0.0.1", port), self.handler)
        server.standin = standin
        bound = int(server.server_address[1])
        self.server = server
        self.thread = threading.Thread(target=server.serve_forever, args=(POLL_S,), name=f"{self.name}-{bound}",
                                       daemon=True)
        self.thread.start()
        return bound

    def stop(self) -> None:
        """Stop serving and close the listening socket (new connections are refused); open ones are left alone."""
        server, thread = self.server, self.thread
        self.server, self.thread = None, None
        if server is not None:
            server.shutdown()
            server.server_close()
        if thread is not None:
            thread.join(timeout=5)


class InFlight:
    """Calls being served: at most `limit` at once (the rest wait for a slot; None: no limit), their peak and the
    seconds they held a slot. Counted under `lock`, the stand-in's own, so its snapshots agree with its other counters.
    """

    def __init__(self, lock: threading.Lock, limit: int | None = None) -> None:
        self.lock = lock
        self._free = threading.BoundedSemaphore(limit) if limit else None
        self.now = 0
        self.peak = 0
        self.busy_s = 0.0

    @contextmanager
    def slot(self) -> Iterator[None]:
        """Hold a slot (waiting for one when all are taken) while the body serves one call."""
        if self._free is not None:
            self._free.acquire()
        began = time.monotonic()
        with self.lock:
            self.now += 1
            self.peak = max(self.peak, self.now)
        try:
            yield
        finally:
            with self.lock:
                self.now -= 1
                self.busy_s += time.monotonic() - began
            if self._free is not None:
                self._free.release()


class StartStop:
    """`with standin:` starts it and stops it, whatever happens inside."""

    def start(self) -> Self:
        raise NotImplementedError

    def stop(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def serve_until_signalled(standin: Any, banner: str) -> int:
    """Print `banner` (the URL line a parent process waits for), serve until SIGTERM/SIGINT, then stop `standin`."""
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    print(banner, flush=True)
    while not stop.wait(0.5):
        pass
    standin.stop()
    return 0


def spawn_until_ready(module: str, args: list[str], ready: str, what: str) -> tuple[subprocess.Popen[str], str]:
    """`python -m module args` from the project root, once its first line starts with `ready`: (process, line).

    A process that prints anything else first, or dies, is killed and `what` is raised with its stderr tail.
    """
    proc = subprocess.Popen([sys.executable, "-m", module, *args], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline().strip()
    if not line.startswith(ready):
        proc.kill()
        _, err = proc.communicate()
        raise RuntimeError(f"{what} ({line!r}): {err[-2000:]}")
    return proc, line
