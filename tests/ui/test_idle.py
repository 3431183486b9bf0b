"""An idle dashboard stays idle: `make run` as a user starts it, one chromium tab open, nobody clicking.

Measured over the `make run` process group (make, streamlit): CPU time used in a quiet window (under 5% of
one core), lines the log gained (none), and inotify watches held (none: the tree, its .venv, .cache and
database are not watched; watching them kept a core busy and the log growing on an idle dashboard).
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.support.dashboard import CHROMIUM, free_port, launch_chromium, settled, stop_worker, wait_healthy
from tests.ui.conftest import PROJECT_ROOT

QUIET_WINDOW_S = 20.0
MAX_CORE_SHARE = 0.05
pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian chromium: apt-get install -y chromium"),
]


def _group(pgid: int) -> list[int]:
    """Pids of the live processes in a process group."""
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == pgid:
                pids.append(int(entry))
    return pids


def _cpu_ticks(pgid: int) -> int:
    """User + system clock ticks used so far by the group's processes."""
    total = 0
    for pid in _group(pgid):
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total


def _inotify_watches(pgid: int) -> int:
    """Inotify watches held by the group (one `inotify wd:` line per watched path in fdinfo)."""
    watches = 0
    for pid in _group(pgid):
        try:
            for fd in os.listdir(f"/proc/{pid}/fdinfo"):
                watches += Path(f"/proc/{pid}/fdinfo/{fd}").read_text().count("inotify wd:")
        except OSError:
            continue
    return watches


def _wait_quiet(pgid: int, sample_s: float = 2.0, deadline_s: float = 240.0) -> None:
    """Wait until the group uses under MAX_CORE_SHARE over one sample (fails after `deadline_s`)."""
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        before, started = _cpu_ticks(pgid), time.monotonic()
        time.sleep(sample_s)
        share = (_cpu_ticks(pgid) - before) / os.sysconf("SC_CLK_TCK") / (time.monotonic() - started)
        if share < MAX_CORE_SHARE:
            return
    raise AssertionError(f"the dashboard never went quiet within {deadline_s:.0f} s")


@pytest.fixture
def make_run(seeded_db, tmp_path):
    """`make run PORT=...` in its own process group on a copy of the seeded database; stopped afterwards."""
    port = free_port()
    db, cache, log_path = tmp_path / "runs.db", tmp_path / "cache", tmp_path / "make-run.log"
    env = dict(os.environ, EXECUGRAPH_DB=str(db), EXECUGRAPH_CACHE_DIR=str(cache), OLLAMA_HOST="http://127.0.0.1:9")
    log = log_path.open("w")
    process = subprocess.Popen(
        ["make", "--no-print-directory", "run", f"PORT={port}", "HOST=127.0.0.1"],
        cwd=PROJECT_ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # make leads its own group: every process it starts is measured
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, process)
        yield url, process.pid, log_path
    finally:
        try:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(30)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            os.killpg(process.pid, signal.SIGKILL)
        log.close()
        stop_worker(cache, db)


# The pages measured, one after the other in the same tab of one `make run` (starting it costs a minute under load).
PAGES = (("", "Problem statement"), ("statistics", "Paired comparisons"))


def _idle_window(page, pgid: int, log_path: Path, must_show: str) -> tuple[float, float, list[str], int]:  # noqa: ANN001
    """Ticks used, seconds, log lines gained and inotify watches held over one quiet window with the tab open."""
    _wait_quiet(pgid)  # start-up work (imports on the warm-up thread) ends before the window opens
    lines_before = log_path.read_text().count("\n")
    ticks_before, started = _cpu_ticks(pgid), time.monotonic()
    page.wait_for_timeout(QUIET_WINDOW_S * 1000)  # the tab stays open; nobody touches it
    ticks_after, elapsed = _cpu_ticks(pgid), time.monotonic() - started
    new_lines = log_path.read_text().splitlines()[lines_before:]
    watches = _inotify_watches(pgid)
    assert page.get_by_text(must_show).count() >= 1  # the tab was alive the whole time
    return ticks_after - ticks_before, elapsed, new_lines, watches


def test_an_open_tab_on_an_idle_dashboard_costs_almost_nothing(make_run):
    from playwright.sync_api import sync_playwright

    url, pgid, log_path = make_run
    measured = {}
    with sync_playwright() as playwright:
        browser = launch_chromium(playwright, reduced_motion=False)  # an ordinary tab: its animations count
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1600})
            for path, must_show in PAGES:
                page.goto(f"{url}/{path}", timeout=120_000)
                page.get_by_text(must_show).first.wait_for(timeout=120_000)
                settled(page)
                measured[path] = _idle_window(page, pgid, log_path, must_show)
        finally:
            browser.close()
    for path, (ticks, elapsed, new_lines, watches) in measured.items():
        share = ticks / os.sysconf("SC_CLK_TCK") / elapsed
        print(f"/{path}: {100 * share:.2f}% of one core over {elapsed:.1f} s, {len(new_lines)} log lines, "
              f"{watches} watches")
        assert share < MAX_CORE_SHARE, f"/{path}: idle dashboard used {100 * share:.1f}% of a core"
        assert new_lines == [], (path, new_lines[:5])
        assert watches == 0, f"/{path}: the dashboard watches files"
