"""Issue 41 in a real browser: the Runs table shows its compared columns (pass rate, LLM calls, tokens, wall clock)
without scrolling at 1400 and 800 px, and Trace at 800 px neither overflows sideways nor opens a band between its
wrapped metric rows.

The table is a glide data grid drawn on a canvas; the grid keeps an accessible table of the cells it draws (only the
columns in view, each with its `aria-colindex`), which is what these tests read. Debian chromium via Playwright.
"""

from __future__ import annotations

import pytest

from tests.support.dashboard import CHROMIUM, settled
from tests.ui.module_server import module_browser, module_chromium, shared_server  # noqa: F401 - fixtures
from tests.ui.seed import Seeded

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian chromium: apt-get install -y chromium"),
]

LEADING = ["name", "pass rate", "LLM calls", "tokens", "wall clock"]
LOAD_MS = 300_000  # a loaded 2-core machine: the first page of a fresh server imports for a while

# The grid's drawn column headers (text and aria-colindex) and whether the grid fits the window.
GRID_HEADERS = """() => {
    const grid = document.querySelector('[data-testid="stMain"] [data-testid="stDataFrame"]');
    if (!grid) return null;
    const box = grid.getBoundingClientRect();
    const headers = [...grid.querySelectorAll('[role="columnheader"]')]
        .map(h => [(h.textContent || '').trim(), Number(h.getAttribute('aria-colindex'))]);
    return {headers, fits: box.left >= 0 && box.right <= window.innerWidth};
}"""
# Every metric's box, and how wide the document is against the window.
METRICS = """() => ({
    boxes: [...document.querySelectorAll('[data-testid="stMain"] [data-testid="stMetric"]')]
        .map(m => { const r = m.getBoundingClientRect(); return [r.top, r.bottom]; }),
    scroll: document.documentElement.scrollWidth, inner: window.innerWidth,
})"""


@pytest.fixture(scope="module")
def served(server: str, seeded_template: tuple[object, Seeded]) -> tuple[str, Seeded]:
    """(url, seeded ids): the file's shared server (tests/ui/module_server.py) and the ids it serves."""
    return server, seeded_template[1]


def _grid_headers(page) -> dict:  # noqa: ANN001
    """The grid's drawn headers once it has drawn some (the accessible table fills after the canvas)."""
    page.wait_for_function(f"() => {{ const g = ({GRID_HEADERS})(); return g && g.headers.length >= 5; }}",
                           timeout=LOAD_MS)
    return page.evaluate(GRID_HEADERS)


@pytest.mark.parametrize("width", [1400, 800])
def test_the_runs_table_shows_its_compared_columns_without_scrolling(served, browser, width):
    url, _ = served
    page = browser.new_page(viewport={"width": width, "height": 1000})
    try:
        page.goto(f"{url}/runs", timeout=LOAD_MS)
        page.wait_for_selector('[data-testid="stMain"] [data-testid="stDataFrame"]', timeout=LOAD_MS)
        settled(page)
        grid = _grid_headers(page)
        assert grid["fits"], grid  # the grid itself is inside the window: its first columns are on screen
        drawn = dict(grid["headers"])
        assert [drawn.get(name) for name in LEADING] == [1, 2, 3, 4, 5], grid["headers"]
        # a sixth column is drawn too, so "wall clock" is shown whole rather than cut at the grid's edge
        assert max(drawn.values()) > len(LEADING), grid["headers"]
    finally:
        page.close()


def test_trace_at_800_px_has_no_sideways_scroll_and_no_band_between_metric_rows(served, browser):
    url, ids = served
    page = browser.new_page(viewport={"width": 800, "height": 900})
    try:
        page.goto(f"{url}/trace?trial={ids.passed_trial}", timeout=LOAD_MS)
        page.wait_for_selector(".js-plotly-plot", timeout=LOAD_MS)
        settled(page)
        shown = page.evaluate(METRICS)
        assert shown["scroll"] <= shown["inner"], shown  # nothing wider than the window
        assert len(shown["boxes"]) == 6, shown
        rows = sorted({round(top) for top, _ in shown["boxes"]})
        for upper, lower in zip(rows, rows[1:], strict=False):  # where the six metrics wrap at 800 px
            bottom = max(b for t, b in shown["boxes"] if round(t) == upper)
            assert 0 <= lower - bottom <= 40, f"{lower - bottom:.0f} px between metric rows: {shown}"  # not 4 rem
    finally:
        page.close()
