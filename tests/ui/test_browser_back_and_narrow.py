"""Issue 30 in a real browser: at 800 px the sidebar no longer keeps 300 px; every page (Export's tabs included)
shows labels whole and no control past the main area's right edge at 1280 and 800 px; and leaving Trace after
following the Runs page's link takes one Back press."""

from __future__ import annotations

import pytest

from tests.support.dashboard import CHROMIUM, launch_chromium, settled
from tests.ui.module_server import module_server  # noqa: F401 - the fixture `server`, one per file
from tests.ui.test_browser import PAGES
from tests.ui.test_browser_narrow import CUT_TEXT

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian chromium: apt-get install -y chromium"),
]
EXPORT_TABS = ("Import", "Rescore", "Reproduce")

# Controls (buttons, inputs, select boxes, tabs) whose box reaches past the main area, and the sidebar's width.
LAYOUT = """() => {
  const main = document.querySelector('[data-testid="stMain"]');
  const right = main.getBoundingClientRect().right;
  const cut = [];
  for (const el of main.querySelectorAll('button, input, [data-baseweb="select"], [data-testid="stTab"]')) {
    if (!el.offsetParent) continue;
    const box = el.getBoundingClientRect();
    if (box.width && box.right > right + 1) cut.push((el.innerText || el.tagName).slice(0, 40));
  }
  const bar = document.querySelector('section[data-testid="stSidebar"]');
  return {cut, sidebar: bar ? bar.getBoundingClientRect().right : 0,
          overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth};
}"""


def _check(page, where: str, width: int) -> list[str]:
    assert page.locator('[data-testid="stException"]').count() == 0, where
    layout = page.evaluate(LAYOUT)
    problems = [f"{where}: {text}" for text in page.evaluate(CUT_TEXT)]
    problems += [f"{where}: control past the edge: {text}" for text in layout["cut"]]
    if layout["overflow"] > 0:
        problems.append(f"{where}: page scrolls sideways by {layout['overflow']} px")
    if width <= 800 and layout["sidebar"] > 240:
        problems.append(f"{where}: sidebar takes {layout['sidebar']} px of {width}")
    return problems


@pytest.mark.parametrize("size", ((1280, 800), (800, 900)), ids=lambda s: f"{s[0]}x{s[1]}")
def test_every_page_fits_at_1280_and_800(server, size):  # noqa: F811
    from playwright.sync_api import sync_playwright

    width, height = size
    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        try:
            page = browser.new_page(viewport={"width": width, "height": height})
            problems: list[str] = []
            for path, (_, must_show) in PAGES.items():
                page.goto(f"{server}/{path}", timeout=120_000)
                page.get_by_text(must_show).first.wait_for(timeout=120_000)
                settled(page)
                problems += _check(page, path or "synthesize", width)
                for tab in EXPORT_TABS if path == "export" else ():
                    page.get_by_role("tab", name=tab).click()
                    settled(page)
                    problems += _check(page, f"export/{tab}", width)
            assert not problems, problems
        finally:
            browser.close()


def test_one_back_press_leaves_trace_for_runs(server):  # noqa: F811
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(f"{server}/runs", timeout=120_000)
            page.get_by_text("Run detail").first.wait_for(timeout=120_000)
            settled(page)
            page.get_by_role("link", name="Step through its trials in Trace").click()
            page.get_by_text("Agent steps").first.wait_for(timeout=120_000)
            page.wait_for_url("**/trace?run=*&trial=*", timeout=60_000)
            settled(page)
            page.go_back()
            page.wait_for_url("**/runs", timeout=60_000)
            page.get_by_text("Run detail").first.wait_for(timeout=60_000)
            assert page.get_by_role("heading", name="Runs", exact=True).count() >= 1
        finally:
            browser.close()


def test_synthesize_button_and_results_area_above_the_fold_at_1400x1000(server):  # noqa: F811
    """The primary button and where the live steps appear are on the first screen (settings folded)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(server, timeout=120_000)
            page.get_by_text("Problem statement").first.wait_for(timeout=120_000)
            settled(page)
            button = page.get_by_role("button", name="Synthesize").bounding_box()
            results = page.get_by_text("Results appear here step by step").first.bounding_box()
            assert button and button["y"] + button["height"] <= 1000, button
            assert results and results["y"] + results["height"] <= 1000, results  # live steps are drawn here
        finally:
            browser.close()
