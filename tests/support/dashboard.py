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


# The servers running now, by URL (for `dump_threads`).
SERVERS: dict[str, subprocess.Popen] = {}


@contextmanager
def serve_dashboard(db: Path, cache: Path, log_path: Path, **extra_env: str) -> Iterator[str]:
    """The dashboard over `db` (no Ollama reachable), yielding its URL; stopped with its worker afterwards.

    Given PYTHONFAULTHANDLER="1", `dump_threads` has the server write every thread's stack into its log."""
    port = free_port()
    env = dict(os.environ, EXECUGRAPH_DB=str(db), EXECUGRAPH_CACHE_DIR=str(cache), OLLAMA_HOST="http://127.0.0.1:9")
    env.update(extra_env)
    command = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true", "--server.port",
               str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false",
               "--server.fileWatcherType", "none"]
    with log_path.open("w") as log:
        process = subprocess.Popen(command, cwd=PROJECT_ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}"
        SERVERS[url] = process
        try:
            wait_healthy(url, process)
            yield url
        finally:
            SERVERS.pop(url, None)
            process.terminate()
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                process.kill()
            stop_worker(cache, db)


def dump_threads(url: str, wait_s: float = 15) -> None:
    """End the server at `url` with SIGABRT: a server started with PYTHONFAULTHANDLER="1" first writes every
    thread's stack into its log."""
    process = SERVERS.get(url)
    if process is None or process.poll() is not None:
        return
    process.send_signal(signal.SIGABRT)
    try:
        process.wait(wait_s)
    except subprocess.TimeoutExpired:
        pass


def save_evidence(page, url: str, log_path: Path, folder: Path, watch_s: float = 6) -> None:  # noqa: ANN001
    """What a failed wait saw, into `folder`: a screenshot, the page's text twice `watch_s` apart (a live view whose
    elapsed seconds moved was still redrawn; one that stood still had stopped), then every server thread's stack and
    the end of the server log. Each step is best effort: the evidence never hides the failure itself."""
    folder.mkdir(parents=True, exist_ok=True)
    notes = []
    for step, name in ((lambda: page.screenshot(path=str(folder / "page.png"), full_page=True), "screenshot"),
                       (lambda: (folder / "body-1.txt").write_text(page.locator("body").inner_text()), "text"),
                       (lambda: page.wait_for_timeout(watch_s * 1000), "wait"),
                       (lambda: (folder / "body-2.txt").write_text(page.locator("body").inner_text()), "text again")):
        try:
            step()
        except Exception as exc:  # noqa: BLE001 - a closed page or a dead server: note it, go on
            notes.append(f"{name}: {exc}")
    texts = [(folder / n).read_text() if (folder / n).exists() else "" for n in ("body-1.txt", "body-2.txt")]
    notes.append("the page's text changed in " + f"{watch_s:.0f} s" if texts[0] != texts[1]
                 else f"the page's text stood still for {watch_s:.0f} s")
    dump_threads(url)
    lines = log_path.read_text(errors="replace").splitlines() if log_path.exists() else []
    (folder / "server-log-tail.txt").write_text("\n".join(lines[-400:]) + "\n")
    (folder / "notes.txt").write_text("\n".join(notes) + "\n")


# Playwright waits 30 s for an element by default; a first page at load 15 on 2 cores can take longer to draw.
ACTION_TIMEOUT_MS = 120_000


# Every page of a browser this module launches counts the app's websocket traffic (a wrapper around the page's own
# WebSocket, which it changes in nothing else): `settled` knows a message it sent (a click's rerun) is still unanswered.
WEBSOCKET_CLOCK = """(() => {
  const Socket = window.WebSocket;
  const clock = window.__egSocket = {sent: 0, received: 0};
  class Counted extends Socket {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', () => { clock.received = performance.now(); });
    }
    send(data) { clock.sent = performance.now(); return super.send(data); }
  }
  window.WebSocket = Counted;
})();"""


def launch_chromium(playwright, reduced_motion: bool = True):  # noqa: ANN001, ANN201 - playwright is imported lazily
    """Debian's chromium (never a downloaded one), headless with the flags the README names.

    Every context it opens (and so every page) waits ACTION_TIMEOUT_MS for an element, not playwright's 30 s, and
    counts its websocket messages for `settled`. Unless told otherwise it asks for reduced motion (a context may
    still choose): Streamlit then draws its skeletons, spinners and entering elements without animating them, the
    same content and layout for about a fifth less of chromium's CPU per page load (bench/browser_cpu.py).
    test_idle.py passes False: it measures what an ordinary user's tab costs."""
    browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=list(CHROMIUM_ARGS))
    opened_context, opened_page = browser.new_context, browser.new_page
    motion = {"reduced_motion": "reduce"} if reduced_motion else {}

    def new_context(**options):  # noqa: ANN003, ANN202
        context = opened_context(**(motion | options))
        context.set_default_timeout(ACTION_TIMEOUT_MS)
        context.add_init_script(WEBSOCKET_CLOCK)
        return context

    def new_page(**options):  # noqa: ANN003, ANN202
        page = opened_page(**(motion | options))
        page.set_default_timeout(ACTION_TIMEOUT_MS)
        page.add_init_script(WEBSOCKET_CLOCK)
        return page

    browser.new_context, browser.new_page = new_context, new_page
    return browser


# True once the page has been quiet for `quiet` ms: the app's script (or a fragment) is not running and no rerun is
# asked for (`data-test-script-state`, which Streamlit sets on its root for its own browser tests), no element shows
# its loading skeleton or the "Running..." status, and every websocket message the page sent has had an answer.
QUIET = """([quiet, call]) => {
  const app = document.querySelector('[data-testid="stApp"]');
  const socket = window.__egSocket || {sent: 0, received: 0};
  const now = performance.now();
  const busy = !app || app.getAttribute('data-test-script-state') !== 'notRunning'
    || !!document.querySelector('[data-testid="stSkeleton"]')
    || [...document.querySelectorAll('[data-testid="stStatusWidget"]')].some(w => /running/i.test(w.innerText))
    || (socket.sent > socket.received && now - socket.sent < 10000);
  const mark = window.__egSettled;
  if (!mark || mark.call !== call || busy) { window.__egSettled = {call, since: busy ? null : now}; return false; }
  if (mark.since === null) { mark.since = now; return false; }
  return now - Math.max(mark.since, socket.received) >= quiet;
}"""
QUIET_MS = 600  # after a click the server answers within this on a loaded machine; the websocket clock covers more


def settled(page, timeout_s: float = 120) -> None:  # noqa: ANN001
    """Wait until the script run is over: nothing running, asked for or drawing, and quiet for QUIET_MS (checked in
    the page every 100 ms). Gives up quietly after `timeout_s`, as a page that never settles fails its next check."""
    from playwright.sync_api import Error

    deadline = time.monotonic() + timeout_s
    call = f"{time.monotonic_ns()}"
    while (left := deadline - time.monotonic()) > 0:
        try:
            page.wait_for_function(QUIET, arg=[QUIET_MS, call], polling=100, timeout=left * 1000)
            return
        except Error:  # the timeout, or a navigation that replaced the page's context: look again until the deadline
            page.wait_for_timeout(100)


def back_to_runs(page) -> None:  # noqa: ANN001
    """One back press from a page opened from Runs lands on Runs again, its run detail drawn."""
    page.go_back()
    page.wait_for_url("**/runs", timeout=60_000)
    page.get_by_text("Run detail").first.wait_for(timeout=60_000)
    assert page.get_by_role("heading", name="Runs", exact=True).count() >= 1
