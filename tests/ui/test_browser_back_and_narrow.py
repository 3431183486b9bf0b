"""Every page in a real browser at three viewports, on one dashboard for the file, each page loaded once per viewport
with every check made on that load.

At 1400x2000 (the desktop): each page's title and seeded content, no Streamlit exception, the Trace timeline drawn,
screenshots kept in test-artifacts/screenshots/ (docs/screenshot.png, the README's picture, is the 1280x800 Ablations
shot, written only when it does not exist yet: delete it and rerun this test to refresh it).
At 1280x800 and 800x900 (issue 30): every page (Export's tabs included) shows labels and button texts whole (no word
broken across lines, "Concu rrency", nor cut off, "C.."), no control past the main area's right edge, no sideways
scroll, the sidebar no wider than 240 px at 800 px, and on Batch, Runs, Statistics and Ablations no chart title wider
than its chart. Leaving Trace after following the Runs page's link takes one Back press, and Synthesize's button and
results area are above the fold at 1400x1000.
"""

from __future__ import annotations

import shutil

import pytest

from tests.support.dashboard import CHROMIUM, back_to_runs, settled
from tests.ui.module_server import module_browser, module_chromium, shared_server  # noqa: F401 - one of each per file
from tests.ui.test_browser import ARTIFACTS, PAGES, README_SHOT

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian chromium: apt-get install -y chromium"),
]
EXPORT_TABS = ("Import", "Rescore", "Reproduce")
DESKTOP = (1400, 2000)
NARROW = ((1280, 800), (800, 900))
# The pages whose chart titles are checked on narrow screens, and a text each must show there.
CHART_PAGES = {"batch": "Launch", "runs": "Run detail", "statistics": "Paired comparisons",
               "ablations": "Pass rate by arm"}

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


def _desktop_checks(page, path: str, title: str) -> None:
    """What test_browser.py's every-page sweep checked: the title, no exception, a screenshot, the timeline."""
    page.get_by_role("heading", name=title, exact=True).first.wait_for(timeout=120_000)
    exceptions = page.locator('[data-testid="stException"]')
    assert exceptions.count() == 0, f"/{path}: {exceptions.first.inner_text()}"
    page.screenshot(path=str(ARTIFACTS / f"{path or 'synthesize'}.png"))
    if path == "trace":
        assert page.locator(".js-plotly-plot").count() >= 1  # the timeline drew in the browser


def _narrow_checks(page, path: str, size: tuple[int, int]) -> list[str]:
    """Issue 30's checks on one loaded page (and Export's tabs), as a list of what is wrong."""
    width, height = size
    problems = _check(page, path or "synthesize", width)
    if size == (1280, 800) and path == "ablations":
        page.screenshot(path=str(ARTIFACTS / "readme.png"))  # the README's picture: the first screen at 1280x800
    if path in CHART_PAGES:
        page.get_by_text(CHART_PAGES[path]).first.wait_for(timeout=120_000)
        page.screenshot(path=str(ARTIFACTS / f"narrow-{path}-{width}x{height}.png"), full_page=True)
        problems += [f"{path}: chart title cut: {text}" for text in page.evaluate(CUT_TITLES)]
    if path == "runs":  # the run detail (metrics, tables per condition and category) is below the first screen
        page.get_by_text("Cost per trial by condition").first.scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / f"narrow-runs-detail-{width}x{height}.png"))
    for tab in EXPORT_TABS if path == "export" else ():
        page.get_by_role("tab", name=tab).click()
        settled(page)
        problems += _check(page, f"export/{tab}", width)
    return problems


@pytest.mark.parametrize("size", (DESKTOP, *NARROW), ids=lambda s: f"{s[0]}x{s[1]}")
def test_every_page_in_chromium_fits_without_an_exception(server, browser, size):  # noqa: F811
    width, height = size
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page = browser.new_page(viewport={"width": width, "height": height})
    problems: list[str] = []
    for path, (title, must_show) in PAGES.items():
        page.goto(f"{server}/{path}", timeout=120_000)
        page.get_by_text(must_show).first.wait_for(timeout=120_000)
        settled(page)
        if size == DESKTOP:
            _desktop_checks(page, path, title)
        else:
            problems += _narrow_checks(page, path, size)
    assert not problems, problems
    if size == DESKTOP:
        assert (ARTIFACTS / "trace.png").stat().st_size > 10_000
    if size == (1280, 800) and not README_SHOT.exists():
        shutil.copyfile(ARTIFACTS / "readme.png", README_SHOT)


def test_one_back_press_leaves_trace_for_runs(server, browser):  # noqa: F811
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(f"{server}/runs", timeout=120_000)
    page.get_by_text("Run detail").first.wait_for(timeout=120_000)
    settled(page)
    page.get_by_role("link", name="Step through its trials in Trace").click()
    page.get_by_text("Agent steps").first.wait_for(timeout=120_000)
    page.wait_for_url("**/trace?run=*&trial=*", timeout=60_000)
    settled(page)
    back_to_runs(page)


def test_synthesize_button_and_results_area_above_the_fold_at_1400x1000(server, browser):  # noqa: F811
    """The primary button and where the live steps appear are on the first screen (settings folded)."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(server, timeout=120_000)
    page.get_by_text("Problem statement").first.wait_for(timeout=120_000)
    settled(page)
    button = page.get_by_role("button", name="Synthesize").bounding_box()
    results = page.get_by_text("Results appear here step by step").first.bounding_box()
    assert button and button["y"] + button["height"] <= 1000, button
    assert results and results["y"] + results["height"] <= 1000, results  # live steps are drawn here
