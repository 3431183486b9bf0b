"""The real app in a real browser: `streamlit run app.py` on a free loopback port against a seeded database,
Debian chromium driven by Playwright through every page, no Streamlit exception anywhere, screenshots kept.

Screenshots go to test-artifacts/screenshots/ (gitignored). docs/screenshot.png, the README's picture, is
written only when it does not exist yet: delete it and rerun this test to refresh it.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.ui.conftest import PROJECT_ROOT

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = PROJECT_ROOT / "test-artifacts" / "screenshots"
README_SHOT = PROJECT_ROOT / "docs" / "screenshot.png"
PAGES = {  # url path -> (title, a text the seeded page must show)
    "": ("Synthesize", "Problem statement"),
    "batch": ("Batch", "internal30 live batch (seeded)"),
    "runs": ("Runs", "Run detail"),
    "trace": ("Trace", "Agent steps"),
    "retrieval": ("Retrieval", "Technique to edit"),
    "ablations": ("Ablations", "Pass rate by arm"),
    "statistics": ("Statistics", "Paired comparisons"),
    "export": ("Export / Import", "Runs to export"),
}
pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian chromium: apt-get install -y chromium"),
]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_healthy(url: str, server: subprocess.Popen, timeout_s: float = 180) -> None:
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


def _stop_worker(cache_dir: Path, db: Path) -> None:
    """End the background worker the app started for this test's database (its pid is in the lock file)."""
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


@pytest.fixture
def server(seeded_db, tmp_path):
    """The dashboard serving this test's seeded database; stopped (with its worker) afterwards."""
    port = _free_port()
    db, cache = tmp_path / "runs.db", tmp_path / "cache"
    env = dict(os.environ, EXECUGRAPH_DB=str(db), EXECUGRAPH_CACHE_DIR=str(cache), OLLAMA_HOST="http://127.0.0.1:9")
    log = open(tmp_path / "streamlit.log", "w")  # noqa: SIM115 - closed below
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            "app.py",
            "--server.headless",
            "true",
            "--server.port",
            str(port),
            "--server.address",
            "127.0.0.1",
            "--browser.gatherUsageStats",
            "false",
            "--server.fileWatcherType",
            "none",
        ],
        cwd=PROJECT_ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(url, process)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()
        _stop_worker(cache, db)


def _browser(playwright):
    return playwright.chromium.launch(
        executable_path=str(CHROMIUM),
        args=[
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ],
    )


def _settled(page, timeout_s: float = 120) -> None:
    """Wait until the script run is over: no skeleton placeholders and no 'running' status for a moment."""
    deadline, quiet = time.monotonic() + timeout_s, 0
    while time.monotonic() < deadline and quiet < 3:
        busy = (
            page.locator('[data-testid="stSkeleton"]').count()
            + page.locator('[data-testid="stStatusWidget"]:has-text("Running")').count()
        )
        quiet = 0 if busy else quiet + 1
        page.wait_for_timeout(400)


def test_every_page_in_chromium_without_an_exception(server):
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = _browser(playwright)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 2000})
            for path, (title, must_show) in PAGES.items():
                page.goto(f"{server}/{path}", timeout=120_000)
                page.get_by_role("heading", name=title, exact=True).first.wait_for(timeout=120_000)
                page.get_by_text(must_show).first.wait_for(timeout=120_000)
                _settled(page)
                exceptions = page.locator('[data-testid="stException"]')
                assert exceptions.count() == 0, f"/{path}: {exceptions.first.inner_text()}"
                page.screenshot(path=str(ARTIFACTS / f"{path or 'synthesize'}.png"))
                if path == "trace":
                    assert page.locator(".js-plotly-plot").count() >= 1  # the timeline drew in the browser
            readme = browser.new_page(viewport={"width": 1280, "height": 800})
            readme.goto(f"{server}/ablations", timeout=120_000)
            readme.get_by_text("Pass rate by arm").first.wait_for(timeout=120_000)
            _settled(readme)
            readme.screenshot(path=str(ARTIFACTS / "readme.png"))
        finally:
            browser.close()
    if not README_SHOT.exists():
        shutil.copyfile(ARTIFACTS / "readme.png", README_SHOT)
    assert (ARTIFACTS / "trace.png").stat().st_size > 10_000


def test_synthesize_shows_steps_live_then_the_result_with_the_embedded_model(server, tmp_path):
    """Type a problem, press Synthesize, see the live 'working' view, then the verdict and the trace link."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = _browser(playwright)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1600})
            page.goto(server, timeout=120_000)
            page.get_by_label("Problem statement").fill("Return the sum of the two integers a and b.")
            page.get_by_label("Condition").click()
            page.get_by_role("option", name="single-oneshot").click()
            page.get_by_role("button", name="Synthesize").click()
            page.get_by_text("is working...").first.wait_for(timeout=120_000)  # the fragment's live view
            page.get_by_text("Open run #").first.wait_for(timeout=600_000)  # the full rerun once the trial ended
            _settled(page)
            assert page.locator('[data-testid="stException"]').count() == 0
            assert page.get_by_text("#1 generator").count() >= 1
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / "synthesize-result.png"))
        finally:
            browser.close()
    from execugraph.store import Store

    with Store.open(str(tmp_path / "runs.db")) as store:
        single = store.list_runs(kind="single", limit=1)[0]
        assert single.title.endswith("(single-oneshot)") and single.status in ("done", "failed")
        trial = store.trials_for_run(single.id)[0]
        assert [s.node for s in store.steps_for_trial(trial.id)][:1] == ["generator"]
