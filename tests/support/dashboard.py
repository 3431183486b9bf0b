"""The real dashboard for browser tests: `streamlit run app.py` on a free loopback port, Debian chromium, and the
waits every browser test shares (healthy server, settled script run), written once."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from execugraph.configuration.settings import PROJECT_ROOT

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


def free_port() -> int:
    """A loopback port nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_healthy(url: str, server: subprocess.Popen, timeout_s: float = 180) -> None:
    """Return once Streamlit's health endpoint answers "ok"; fail at once if the server exits."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise AssertionError(f"streamlit exited with {server.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                if response.read() == b"ok":
                    return
        except OSError:
            time.sleep(0.5)
    raise AssertionError(f"streamlit did not become healthy within {timeout_s} s")


def stop_worker(cache_dir: Path, db: Path) -> None:
    """End the background worker the app started for this database (its pid is in the lock file)."""
    for lock in (cache_dir / "workers").glob("*.lock"):
        text = lock.read_text().strip()
        if not text.isdigit():
            continue
        pid = int(text)
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if "execugraph" in cmdline and str(db) in cmdline:
            os.kill(pid, signal.SIGTERM)


@contextmanager
def serve_dashboard(db: Path, cache: Path, log_path: Path, **extra_env: str) -> Iterator[str]:
    """The dashboard over `db` (no Ollama reachable), yielding its URL; stopped with its worker afterwards."""
    port = free_port()
    env = dict(os.environ, EXECUGRAPH_DB=str(db), EXECUGRAPH_CACHE_DIR=str(cache), OLLAMA_HOST="http://127.0.0.1:9")
    env.update(extra_env)
    command = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true", "--server.port",
               str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false",
               "--server.fileWatcherType", "none"]
    with log_path.open("w") as log:
        process = subprocess.Popen(command, cwd=PROJECT_ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}"
        try:
            wait_healthy(url, process)
            yield url
        finally:
            process.terminate()
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                process.kill()
            stop_worker(cache, db)


# Playwright waits 30 s for an element by default; a first page at load 15 on 2 cores can take longer to draw.
ACTION_TIMEOUT_MS = 120_000


def launch_chromium(playwright):  # noqa: ANN001, ANN201 - playwright's types are imported lazily by the tests
    """Debian's chromium (never a downloaded one), headless with the flags the README names.

    Every context it opens (and so every page) waits ACTION_TIMEOUT_MS for an element, not playwright's 30 s."""
    browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=list(CHROMIUM_ARGS))
    opened_context, opened_page = browser.new_context, browser.new_page

    def new_context(**options):  # noqa: ANN003, ANN202
        context = opened_context(**options)
        context.set_default_timeout(ACTION_TIMEOUT_MS)
        return context

    def new_page(**options):  # noqa: ANN003, ANN202
        page = opened_page(**options)
        page.set_default_timeout(ACTION_TIMEOUT_MS)
        return page

    browser.new_context, browser.new_page = new_context, new_page
    return browser


def settled(page, timeout_s: float = 120) -> None:  # noqa: ANN001
    """Wait until the script run is over: no skeleton placeholders and no 'running' status for a moment."""
    deadline, quiet = time.monotonic() + timeout_s, 0
    while time.monotonic() < deadline and quiet < 3:
        busy = (
            page.locator('[data-testid="stSkeleton"]').count()
            + page.locator('[data-testid="stStatusWidget"]:has-text("Running")').count()
        )
        quiet = 0 if busy else quiet + 1
        page.wait_for_timeout(400)
