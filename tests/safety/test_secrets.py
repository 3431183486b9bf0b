"""No secret leaves the process: a server echoing the API key, a password in the database URL, the worker's argv.

A real OpenAI-compatible stand-in on loopback answers every call `401` with the caller's
Authorization header in its body (as some proxies do); the key must then appear nowhere: not in
the trial, its steps or the run, not in an exported bundle, not in what the CLI prints.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from execugraph.batch.worker_process import ensure_worker
from execugraph.configuration.settings import PROJECT_ROOT
from execugraph.providers.health import redact as health_redact
from execugraph.safety import redaction
from execugraph.store import Store
from execugraph.store.engine import RawAtError, display, normalise_url
from execugraph.store.opening import redact as opening_redact
from tests.support import db_files
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration

KEY = "sk-echoed-4c1d9e7f0b2a"


class _EchoingUnauthorized(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - http.server naming
        self._refuse()

    def do_POST(self) -> None:  # noqa: N802
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self._refuse()

    def _refuse(self) -> None:
        body = json.dumps({"error": {"message": f"invalid key: {self.headers.get('Authorization')}",
                                     "type": "invalid_request_error", "code": "invalid_api_key"}}).encode()
        self.send_response(401)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def echoing_server():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _EchoingUnauthorized)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/v1"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize(("url", "shown"), [
    ("postgresql://u:p@ss@host/db", "postgresql://u:***@host/db"),
    ("postgresql://u:p%40ss%3Aw@host:5432/db?sslmode=require", "postgresql://u:***@host:5432/db?sslmode=require"),
    ("postgresql://u:pa:ss/w@host/db", "postgresql://u:***@host/db"),
    ("postgresql://user@host/db", "postgresql://user@host/db"),
    ("sqlite:////data/a@b/runs.db", "sqlite:////data/a@b/runs.db"),
])
def test_one_redaction_hides_passwords_holding_at_colon_and_percent(url: str, shown: str) -> None:
    assert redaction.redact_url(url) == health_redact(url) == opening_redact(url) == shown
    password = redaction.url_password(url)
    if password:
        try:
            where = display(normalise_url(url))
        except RawAtError as exc:  # a raw '@' before the host is refused (issue 40), hiding the whole user part
            where = str(exc)
        assert password not in where.split("://", 1)[1].replace("u:***@", "")


def test_an_api_key_echoed_by_a_401_is_stored_exported_and_printed_nowhere(tmp_path, echoing_server) -> None:
    db = tmp_path / "runs.db"
    env = os.environ | {"EXECUGRAPH_DB": str(db), "EXECUGRAPH_OPENAI_BASE_URL": echoing_server,
                        "EXECUGRAPH_OPENAI_API_KEY": KEY}

    def cli(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "execugraph", *args], cwd=PROJECT_ROOT, env=env,
                              capture_output=True, text=True, timeout=600)

    ran = cli("run", "--problem", "internal30/fib", "--condition", "single-oneshot", "--model", "openai:m", "--json")
    bundle = tmp_path / "bundle.zip"
    shown = [ran, cli("export", "--run", "1", "--out", str(bundle)), cli("status", "1"), cli("doctor", "--no-load")]
    with Store.open(str(db)) as store:
        (run,) = store.list_runs()
        (trial,) = store.trials_for_run(run.id)
        assert trial.status == "error" and "401" in (trial.message or ""), trial.message  # the echo was there
        stored = json.dumps([trial.message, run.error, [s.output for s in store.steps_for_trial(trial.id)]],
                            default=str)
    assert KEY not in stored and "***" in stored
    assert KEY.encode() not in db_files.read_bytes(db)
    with zipfile.ZipFile(bundle) as archive:
        assert all(KEY.encode() not in archive.read(name) for name in archive.namelist())
    assert [r.args[3:5] for r in shown if KEY in r.stdout + r.stderr] == []


def test_the_autostarted_worker_gets_the_database_from_its_environment_not_its_argv(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("EXECUGRAPH_CACHE_DIR", str(tmp_path / "cache"))
    db = str(tmp_path / "secret-name.db")
    Store.open(db).close()
    pid = ensure_worker(db, idle_exit_s=30)
    assert pid is not None
    try:
        wait_until(lambda: b"worker" in open(f"/proc/{pid}/cmdline", "rb").read(), 60, "the worker to start")
        argv = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
        environ = open(f"/proc/{pid}/environ", "rb").read().split(b"\0")
        assert not any(b"secret-name" in arg for arg in argv), argv
        assert f"EXECUGRAPH_DB={db}".encode() in environ
    finally:
        os.kill(pid, 15)


def test_a_database_password_is_scrubbed_from_messages_but_never_mangles_a_program(tmp_path, monkeypatch) -> None:
    """A password may be an ordinary word: messages lose it, code and statements keep it (see redaction)."""
    for remembered in ("_keys", "_passwords"):  # put back what this process remembered before, afterwards
        monkeypatch.setattr(redaction, remembered, getattr(redaction, remembered))
    redaction.remember_url("postgresql://eg:fibonacci@127.0.0.1:9/runs")
    redaction.remember("sk-unit-key-8d2f61a0")
    with Store.open(str(tmp_path / "runs.db")) as store:
        run_id = store.create_run("single", "fibonacci", {"note": "sk-unit-key-8d2f61a0"})
        trial_id = store.create_trial(run_id, "fib", "single-oneshot", 0, 0, category="dp")
        store.finish_trial(trial_id, status="error", final_code="def fibonacci(n):\n    return n\n",
                           message="login for eg:fibonacci failed; key sk-unit-key-8d2f61a0")
        (trial,) = store.trials_for_run(run_id)
        assert trial.final_code == "def fibonacci(n):\n    return n\n"
        assert trial.message == "login for eg:*** failed; key ***"
        assert store.get_run(run_id).title == "fibonacci" and store.get_run(run_id).config == {"note": "***"}
