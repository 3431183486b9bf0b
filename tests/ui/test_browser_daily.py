"""Daily use in a real browser: the first page shows our page list (never the raw lowercase file names) and no
Deploy button; a chart as drawn on the page and as downloaded has the same colours, title and range, and
its second download is served at once. Chromium via Playwright against `streamlit run app.py`."""

from __future__ import annotations

import re
import time

import pytest

from tests.support.dashboard import CHROMIUM, settled
from tests.ui.module_server import module_browser, module_chromium, module_server  # noqa: F401 - one of each per file

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian chromium: apt-get install -y chromium"),
]
RAW_NAMES = ("ablations", "batch", "export", "retrieval", "runs", "statistics", "synthesize", "trace", "app")
FILL = re.compile(r"fill: (rgb\([^)]*\))")


def _sidebar_links(page) -> list[str]:
    """Each sidebar link's label (its last line: the icon's ligature name comes first)."""
    texts = page.locator('[data-testid="stSidebar"] a').all_inner_texts()
    return [t.strip().splitlines()[-1].strip() for t in texts if t.strip()]


def test_first_page_never_lists_raw_page_files_and_has_no_deploy_button(server, browser):  # noqa: F811
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{server}/statistics", timeout=120_000)  # a deep link as the server's first request
    seen: set[str] = set()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and "Statistics" not in seen:
        seen.update(_sidebar_links(page))
        page.wait_for_timeout(100)
    settled(page)
    seen.update(_sidebar_links(page))
    assert {"Synthesize", "Statistics", "Export / Import"} <= seen
    assert not seen & set(RAW_NAMES), seen
    assert page.locator('[data-testid="stAppDeployButton"]').count() == 0


def test_the_chart_on_the_page_is_the_chart_downloaded(server, browser, tmp_path):  # noqa: F811
    page = browser.new_page(viewport={"width": 1280, "height": 1600}, accept_downloads=True)
    page.goto(f"{server}/ablations", timeout=120_000)
    page.get_by_text("Pass rate by arm").first.wait_for(timeout=120_000)
    settled(page)
    chart = page.locator('[data-testid="stPlotlyChart"]').filter(has_text="Pass rate by arm").first
    screen = chart.evaluate("e => e.innerHTML")
    times = []
    files = []
    for name in ("SVG", "SVG"):
        started = time.perf_counter()
        with page.expect_download(timeout=180_000) as download:
            page.get_by_role("button", name=re.compile(rf"\b{name}$")).first.click()
        path = tmp_path / f"{len(files)}-{download.value.suggested_filename}"
        download.value.save_as(path)
        times.append(time.perf_counter() - started)
        files.append(path.read_text())
    exported = files[0]
    bars = re.compile(r'<g class="point"><path d="[^"]*" style="[^"]*')

    def fills(svg: str) -> list[str]:
        return sorted(FILL.search(m).group(1) for m in bars.findall(svg))

    assert fills(screen) and fills(screen) == fills(exported)  # theme=None: no restyling on the page
    title = re.compile(r'class="gtitle"[^>]*>([^<]*)<')
    assert title.search(screen).group(1) == title.search(exported).group(1)
    ticks = re.compile(r'<g class="ytick"><text[^>]*>([^<]+)</text>')
    assert ticks.findall(screen) == ticks.findall(exported)
    print(f"download times (s): first {times[0]:.2f}, again {times[1]:.2f}")
    assert times[1] < times[0]


def test_one_click_on_prepare_the_bundle_offers_the_download(server, browser):  # noqa: F811
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    page.goto(f"{server}/export", timeout=120_000)
    picker = page.get_by_text("Runs to export").first
    picker.wait_for(timeout=120_000)
    settled(page)
    box = page.locator('[data-testid="stMultiSelect"]').filter(has_text="Runs to export").first
    box.locator("input").click()
    page.keyboard.type("fib (multi-full)")  # a finished run (a running one cannot be exported)
    page.get_by_role("option", name=re.compile(r"fib \(multi-full\)")).first.click()
    page.keyboard.press("Escape")
    prepare = page.get_by_role("button", name=re.compile("Prepare the bundle"))
    prepare.wait_for(timeout=60_000)
    settled(page)
    prepare.click()  # once: the download must follow without a second click
    page.get_by_role("button", name=re.compile(r"Download execugraph-runs-\d+")).wait_for(timeout=120_000)
    assert page.get_by_text("Cannot export").count() == 0
