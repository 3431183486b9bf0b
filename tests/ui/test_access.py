"""A dashboard shared beyond loopback: a token to get in, a viewer who cannot change anything, no foreign Host.

The launcher is run as `make run` runs it; the sign-in and the viewer's read-only store through AppTest
on the real app; the Host check against a real server (a WebSocket handshake sent by hand on loopback).
"""

from __future__ import annotations

import base64
import os
import socket
import subprocess
import sys

import pytest

from execugraph.store import StoreReadOnlyError
from tests.support.waiting import wait_until
from tests.ui.conftest import PROJECT_ROOT, no_exception, texts
from ui import access
from ui.keys import Runs

OPERATOR, VIEWER = "op-token-5e0c71a4b9d2", "view-token-83f2a6c1d7e0"


def serve(*args: str, **env: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "ui.serve", *args], cwd=PROJECT_ROOT, env=os.environ | env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def handshake(port: int, host: str) -> str:
    """The status line a WebSocket upgrade to the app's stream gets with this Host header."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as conn:
        key = base64.b64encode(os.urandom(16)).decode()
        conn.sendall((f"GET /_stcore/stream HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                      f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                      f"Sec-WebSocket-Protocol: streamlit\r\nOrigin: http://{host}\r\n\r\n").encode())
        return conn.recv(200).decode(errors="replace").splitlines()[0]


def test_listening_beyond_loopback_without_a_token_is_refused_with_the_fix(tmp_path) -> None:
    env = {"EXECUGRAPH_DASHBOARD_TOKEN": "", "EXECUGRAPH_DASHBOARD_VIEWER_TOKEN": ""}
    process = serve("--host", "0.0.0.0", "--port", str(free_port()), **env)
    _out, err = process.communicate(timeout=120)
    assert process.returncode == 2, err
    assert "not started" in err and "EXECUGRAPH_DASHBOARD_TOKEN" in err and "SSH tunnel" in err


def test_a_shared_dashboard_accepts_websockets_only_for_its_own_host_names(tmp_path) -> None:
    port = free_port()
    process = serve("--host", "0.0.0.0", "--port", str(port), EXECUGRAPH_DASHBOARD_TOKEN=OPERATOR,
                    EXECUGRAPH_DB=str(tmp_path / "runs.db"), EXECUGRAPH_CACHE_DIR=str(tmp_path / "cache"))
    try:
        def answering() -> bool:
            try:
                return handshake(port, "127.0.0.1").startswith("HTTP/1.1")
            except OSError:
                return False

        wait_until(answering, 300, "the dashboard to answer")
        assert " 101 " in handshake(port, f"127.0.0.1:{port}")
        assert " 101 " in handshake(port, f"{socket.gethostname()}:{port}")
        assert " 403 " in handshake(port, f"rebound.example:{port}")  # a DNS-rebinding page's Host
    finally:
        os.killpg(process.pid, 15)
        process.communicate(timeout=60)


def test_the_gate_asks_for_a_token_and_a_viewer_gets_a_store_that_refuses_writes(app, seeded_db, monkeypatch) -> None:
    monkeypatch.setenv("EXECUGRAPH_DASHBOARD_TOKEN", OPERATOR)
    monkeypatch.setenv("EXECUGRAPH_DASHBOARD_VIEWER_TOKEN", VIEWER)
    at = app("synthesize")
    no_exception(at)
    assert at.text_input(key=access.TOKEN_INPUT) is not None and not at.dataframe  # nothing but the form
    assert not any("Problem statement" in t for t in texts(at, "markdown"))
    at.text_input(key=access.TOKEN_INPUT).input("guess")
    at.button[0].click().run()
    assert any("not valid" in e for e in texts(at, "error")) and access.ROLE_KEY not in at.session_state

    at.text_input(key=access.TOKEN_INPUT).input(VIEWER)
    at.button[0].click().run()
    assert at.session_state[access.ROLE_KEY] == "viewer"
    at.switch_page("pages/runs.py").run()
    no_exception(at)
    assert any("signed in as a viewer" in i for i in texts(at, "info"))
    from ui.resources import _viewer_store

    with pytest.raises(StoreReadOnlyError, match="viewer"):
        _viewer_store(os.environ["EXECUGRAPH_DB"]).delete_run(seeded_db.single)
    assert OPERATOR not in str(at.session_state) and VIEWER not in str(at.session_state)


def test_an_operator_token_opens_everything(app, seeded_db, monkeypatch) -> None:
    monkeypatch.setenv("EXECUGRAPH_DASHBOARD_TOKEN", OPERATOR)
    at = app("synthesize")
    at.text_input(key=access.TOKEN_INPUT).input(OPERATOR)
    at.button[0].click().run()
    at.switch_page("pages/runs.py").run()
    no_exception(at)
    at.session_state[Runs.DETAIL] = seeded_db.single
    at.run()
    assert not at.button(key=Runs.DELETE).disabled
