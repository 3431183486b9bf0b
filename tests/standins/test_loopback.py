"""The stand-ins' shared start and stop (`standins.loopback`): a free port served until stopped, calls counted
and queued beyond a limit, and a helper process that never says it is ready is killed with its error shown."""

from __future__ import annotations

import socket
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from standins.db_lock import DatabaseLock
from standins.loopback import InFlight, Listener, StandInHandler, StandInServer


class _Hello(StandInHandler):
    server: StandInServer

    def do_GET(self) -> None:  # noqa: N802 - http.server naming
        body = f"hello from {self.server.standin}".encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - signature of the base class
        pass


def _wait_until(check, timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.01)


def test_a_listener_serves_its_standin_on_a_free_port_until_stopped() -> None:
    listener = Listener(StandInServer, _Hello, "hello-standin")
    port = listener.start("the stand-in")
    try:
        assert port > 0 and listener.thread is not None and listener.thread.name == f"hello-standin-{port}"
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=30) as answer:
            assert answer.read() == b"hello from the stand-in"
    finally:
        listener.stop()
    listener.stop()  # a second stop is harmless
    assert listener.server is None and listener.thread is None
    with pytest.raises(ConnectionRefusedError), socket.create_connection(("127.0.0.1", port), timeout=30):
        pass


def test_calls_beyond_the_limit_wait_for_a_slot_and_the_peak_and_busy_time_are_counted() -> None:
    calls = InFlight(threading.Lock(), limit=2)
    release = threading.Event()
    entered: list[int] = []

    def call(i: int) -> None:
        with calls.slot():
            entered.append(i)
            release.wait(60)

    threads = [threading.Thread(target=call, args=(i,), daemon=True) for i in range(5)]
    for thread in threads:
        thread.start()
    _wait_until(lambda: len(entered) >= 2, 60, "two calls to hold the two slots")
    assert calls.now == 2  # the other three wait for a slot (no more than two hold one)
    time.sleep(0.05)  # the slot holders stay busy a measurable while
    release.set()
    for thread in threads:
        thread.join(60)
    assert sorted(entered) == [0, 1, 2, 3, 4] and calls.now == 0 and calls.peak == 2
    assert calls.busy_s >= 2 * 0.05


def test_a_helper_process_that_never_says_it_is_ready_is_killed_and_its_error_shown(tmp_path: Path) -> None:
    missing = tmp_path / "missing-folder" / "runs.db"
    with pytest.raises(RuntimeError, match="the lock holder did not take the lock") as raised:
        DatabaseLock(f"sqlite:///{missing}", 1.0).start()
    assert "unable to open database file" in str(raised.value)  # the holder's own stderr, not a bare failure
