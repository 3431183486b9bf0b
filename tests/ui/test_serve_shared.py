"""Issue 40 points 2, 3 and 6 against `make run`'s own launcher (`python -m ui.serve`): a shared dashboard refuses
`/_stcore/metrics` and hides error details, and stopping the server stops the batch worker it started (or, while
that worker runs a batch, prints one line saying so and how to stop it)."""

from __future__ import annotations

import io
import os
import signal
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from datetime import timedelta
from pathlib import Path

import pytest

from execugraph.batch.worker_process import ensure_worker, lock_path
from execugraph.store import Store
from execugraph.store.models import utcnow
from tests.support.dashboard import CHROMIUM, free_port, launch_chromium, settled
from tests.support.waiting import wait_until
from tests.ui.conftest import PROJECT_ROOT
from ui import serve, worker_exit

TOKEN = "op-token-40-serve-7c1e9a"


def _serve(tmp_path: Path, port: int, **env: str) -> subprocess.Popen:
    """`make run`'s command on `port` over this test's database (its own session: the worker is not in it)."""
    env = os.environ | {"EXECUGRAPH_DB": str(tmp_path / "runs.db"), "EXECUGRAPH_CACHE_DIR": str(tmp_path / "cache"),
                        "OLLAMA_HOST": "http://127.0.0.1:9", "EXECUGRAPH_DASHBOARD_TOKEN": "",
                        "EXECUGRAPH_DASHBOARD_VIEWER_TOKEN": ""} | env
    return subprocess.Popen([sys.executable, "-m", "ui.serve", "--port", str(port)], cwd=PROJECT_ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)


def _get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def _healthy(url: str) -> bool:
    try:
        return _get(f"{url}/_stcore/health") == (200, b"ok")
    except OSError:
        return False


def _stop(process: subprocess.Popen) -> str:
    """SIGTERM the server as `kill` would, wait for it, and return what it printed."""
    if process.poll() is None:
        os.kill(process.pid, signal.SIGTERM)
    out, _ = process.communicate(timeout=120)
    return out


def _worker_alive(pid: int) -> bool:
    return worker_exit.alive(pid)


def _end(pid: int) -> None:
    """Stop a worker a test started, whatever the test's outcome."""
    if _worker_alive(pid):
        os.kill(pid, signal.SIGTERM)
        wait_until(lambda: not _worker_alive(pid), 120, f"worker {pid} to exit")


def test_the_launcher_hides_error_details_only_on_a_shared_dashboard() -> None:
    shared = serve.run_options("0.0.0.0", 8501, ["gpubox"], shared=True)  # what `serve` hands to st.App.run
    assert shared["client.showErrorDetails"] == "none" and shared["server.allowedHosts"] == ["gpubox"]
    assert shared["server.port"] == 8501 and shared["server.headless"] is True
    assert "client.showErrorDetails" not in serve.run_options("127.0.0.1", 8501, [])
    argv = serve.streamlit_argv("0.0.0.0", 8501, ["gpubox"], shared=True)  # the same options as flags
    assert argv[argv.index("--client.showErrorDetails") + 1] == "none" and "--client.showErrorDetails" not in (
        serve.streamlit_argv("127.0.0.1", 8501, []))


@pytest.mark.integration
def test_a_shared_dashboard_refuses_its_metrics_endpoint(tmp_path: Path) -> None:
    port = free_port()
    process = _serve(tmp_path, port, EXECUGRAPH_DASHBOARD_TOKEN=TOKEN)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until(lambda: process.poll() is not None or _healthy(url), 300, "the dashboard to answer")
        assert process.poll() is None
        for path in ("/_stcore/metrics", "/_stcore/metrics/", "//_stcore/metrics", "/_stcore/metrics?families=x"):
            status, body = _get(url + path)
            assert status == 403 and b"session" not in body, (path, status, body[:200])
        status, body = _get(url + "/")
        assert status == 200 and b"<html" in body.lower()  # the app itself is served
    finally:
        _stop(process)


@pytest.mark.integration
@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian chromium: apt-get install -y chromium")
def test_stopping_the_server_stops_its_idle_worker(tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    port = free_port()
    process = _serve(tmp_path, port)
    url = f"http://127.0.0.1:{port}"
    pid = None
    workers = tmp_path / "cache" / "workers"
    try:
        wait_until(lambda: process.poll() is not None or _healthy(url), 300, "the dashboard to answer")
        with sync_playwright() as playwright:  # a browser's first page starts the worker
            browser = launch_chromium(playwright)
            try:
                page = browser.new_page()
                page.goto(url, timeout=120_000)
                page.get_by_text("Health").first.wait_for(timeout=120_000)
                settled(page)
                # The sidebar's "Health" is drawn before the script reaches the worker start, and under load the
                # page can look settled before that line has run; closing the browser then ends the session and
                # its script run. So the browser stays open until the lock the start writes is there.
                wait_until(lambda: any(workers.glob("*.lock")), 180, "the first page to start the worker")
            finally:
                browser.close()
        lock = lock_path(f"sqlite:///{tmp_path / 'runs.db'}").name
        locks = list(workers.glob("*.lock"))
        assert [p.name for p in locks] == [lock]
        def worker_pid() -> int | None:
            """The pid in the lock once it is the worker's own (the starter may hold the lock for a moment)."""
            text = locks[0].read_text().strip()
            try:
                return int(text) if b"execugraph" in Path(f"/proc/{text}/cmdline").read_bytes() else None
            except (ValueError, OSError):
                return None

        wait_until(lambda: worker_pid() is not None, 60, "the worker to write its pid")
        pid = worker_pid()
        assert pid is not None and _worker_alive(pid)
        out = _stop(process)
        assert process.returncode in (0, -signal.SIGTERM), out
        wait_until(lambda: not _worker_alive(pid), 60, "the idle worker to stop with the server")
        assert "keeps running" not in out
    finally:
        if process.poll() is None:
            _stop(process)
        if pid is not None:
            _end(pid)


@pytest.mark.integration
def test_a_worker_running_a_batch_is_left_running_and_named(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'runs.db'}"
    with Store.open(url):
        pass
    pid = ensure_worker(url)
    assert pid is not None
    try:
        wait_until(lambda: lock_path(url).read_text().strip() == str(pid), 120, "the worker to hold its lock")
        with Store.open(url) as store:  # a batch this worker holds (a lease it renews, as far as anyone can tell)
            run_id = store.create_run("batch", "long batch", {"conditions": ["single-oneshot"]}, status="queued")
            store.update_run(run_id, status="running", worker_id=f"{socket.gethostname()}:{pid}:a1b2c3",
                             started_at=utcnow(), heartbeat_at=utcnow() + timedelta(days=1),
                             lease_expires_at=utcnow() + timedelta(days=1))
        worker_exit.started(url, pid)
        out = io.StringIO()
        worker_exit.on_stop(out)
        line = out.getvalue().strip()
        assert "\n" not in line and f"pid {pid}" in line and f"#{run_id}" in line, line
        assert f"python -m execugraph cancel {run_id}" in line and f"kill {pid}" in line
        assert _worker_alive(pid)  # its batch goes on

        with Store.open(url) as store:
            store.update_run(run_id, status="done", finished_at=utcnow())
        worker_exit.started(url, pid)
        out = io.StringIO()
        worker_exit.on_stop(out)  # idle now: stopped, nothing said
        assert out.getvalue() == ""
        wait_until(lambda: not _worker_alive(pid), 60, "the idle worker to stop")
    finally:
        _end(pid)
