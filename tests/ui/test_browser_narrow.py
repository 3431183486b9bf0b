"""Narrow screens (issue 30): at 1280x800 and 800x900, Batch, Runs, Statistics and Ablations show every label and
button text whole: no word broken across lines ("Concu rrency"), no text cut off ("C.."), no chart title wider than
its chart, no Streamlit exception."""

from __future__ import annotations

import pytest

from tests.support.dashboard import CHROMIUM, launch_chromium, settled
from tests.ui.module_server import module_server  # noqa: F401 - the fixture `server`, one per file
from tests.ui.test_browser import ARTIFACTS

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian chromium: apt-get install -y chromium"),
]
SIZES = ((1280, 800), (800, 900))
PAGES = {"batch": "Launch", "runs": "Run detail", "statistics": "Paired comparisons", "ablations": "Pass rate by arm"}

# Every chart title inside its chart: a title wider than the chart (two charts side by side at 800 px) is cut off.
CUT_TITLES = """() => {
  const out = [];
  for (const chart of document.querySelectorAll('[data-testid="stPlotlyChart"]')) {
    const svg = chart.querySelector('svg.main-svg');
    const title = chart.querySelector('.gtitle');
    if (!svg || !title) continue;
    const box = svg.getBoundingClientRect(), t = title.getBoundingClientRect();
    if (t.left < box.left - 1 || t.right > box.right + 1) out.push(`${title.textContent} (${Math.round(t.width)}px in ${Math.round(box.width)}px)`);
  }
  return out;
}"""

# Every widget label and button text: cut when its text is wider than its box, broken when one of its words is
# wider than the box it wraps in (the browser then breaks that word across lines).
CUT_TEXT = """() => {
  const out = [];
  const nodes = document.querySelectorAll(
    '[data-testid="stMain"] [data-testid="stWidgetLabel"] p, [data-testid="stMain"] button p');
  for (const el of nodes) {
    if (!el.offsetParent || !el.innerText.trim()) continue;  // hidden
    const holder = el.clientWidth ? el : el.parentElement;  // an inline <p> in a button: its block box
    const box = holder.clientWidth;
    let why = holder.scrollWidth > box + 1 ? 'cut' : '';
    if (!why) {
      const probe = document.createElement('span');
      probe.style.cssText = 'position:absolute;visibility:hidden;white-space:nowrap';
      probe.style.font = getComputedStyle(el).font;
      document.body.appendChild(probe);
      for (const word of el.innerText.split(/\\s+/)) {
        probe.textContent = word;
        if (probe.getBoundingClientRect().width > box + 1) { why = 'broken word ' + word; break; }
      }
      probe.remove();
    }
    if (why) out.push(`${el.innerText.trim()} (${why}; ${box}px)`);
  }
  return out;
}"""


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_labels_are_whole_on_narrow_screens(server, size):  # noqa: F811
    from playwright.sync_api import sync_playwright

    width, height = size
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        try:
            page = browser.new_page(viewport={"width": width, "height": height})
            problems = {}
            for path, must_show in PAGES.items():
                page.goto(f"{server}/{path}", timeout=120_000)
                page.get_by_text(must_show).first.wait_for(timeout=120_000)
                settled(page)
                page.screenshot(path=str(ARTIFACTS / f"narrow-{path}-{width}x{height}.png"), full_page=True)
                assert page.locator('[data-testid="stException"]').count() == 0, path
                if cut := page.evaluate(CUT_TEXT) + page.evaluate(CUT_TITLES):
                    problems[path] = cut
            assert not problems, problems
        finally:
            browser.close()
