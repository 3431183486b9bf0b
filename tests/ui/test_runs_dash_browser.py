"""Issue 41 in chromium: the Runs table draws an em dash for a cancelled batch's pass rate (no graded trial), where
it drew a blank cell (a number column's missing value draws "None" whatever the page formats), and the rates, sent
as text, sort in numeric order under the browser's own collation.

The grid keeps an accessible table of the cells it draws (headers and cells with `aria-colindex`), which is what is
read here. Debian chromium via Playwright, on a copy of the seeded history.
"""

from __future__ import annotations

import pytest

from tests.support.dashboard import CHROMIUM, settled
from tests.ui.module_server import module_browser, module_chromium, shared_server  # noqa: F401 - fixtures
from ui.views.runs_cells import FIGURE_SPACE, aligned

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian chromium: apt-get install -y chromium"),
]
LOAD_MS = 300_000  # a loaded 2-core machine: the first page of a fresh server imports for a while

# Each drawn row of the first grid as {header text: cell text}, once the grid has drawn its rows.
ROWS = """() => {
    const grid = document.querySelector('[data-testid="stMain"] [data-testid="stDataFrame"]');
    if (!grid) return null;
    const names = {};
    for (const h of grid.querySelectorAll('[role="columnheader"]'))
        names[h.getAttribute('aria-colindex')] = (h.textContent || '').trim();
    const rows = [];
    for (const row of grid.querySelectorAll('[role="row"]')) {
        const cells = {};
        for (const c of row.querySelectorAll('[role="gridcell"]'))
            cells[names[c.getAttribute('aria-colindex')]] = (c.textContent || '').trim();
        if (Object.keys(cells).length) rows.push(cells);
    }
    return rows;
}"""


def test_a_cancelled_batch_reads_a_dash_for_its_pass_rate_in_chromium(server, browser):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(f"{server}/runs", timeout=LOAD_MS)
    page.wait_for_function(f"() => {{ const r = ({ROWS})(); return r && r.length >= 4; }}", timeout=LOAD_MS)
    settled(page)
    rows = {r.get("name", ""): r for r in page.evaluate(ROWS)}
    cancelled = next(r for name, r in rows.items() if name.startswith("cancelled batch (seeded)"))
    assert cancelled["pass rate"] == "—", cancelled
    ablation = next(r for name, r in rows.items() if name.startswith("internal30 ablation (seeded)"))
    assert ablation["pass rate"] == "59.4%", ablation
    for row in rows.values():
        for column in ("pass rate", "LLM calls", "tokens", "wall clock"):
            assert row.get(column, "").strip() not in ("", "None", "nan", "NaN"), (column, row)
    # The grid sorts a text column with localeCompare: this browser's collation puts the padded rates in
    # numeric order and the dash after them.
    texts = aligned([1.0, None, 0.333, 0.05, 0.594], "{:.1%}")
    order = page.evaluate("(t) => [...t].sort((a, b) => a.localeCompare(b))", texts)
    assert [t.lstrip(FIGURE_SPACE) for t in order] == ["5.0%", "33.3%", "59.4%", "100.0%", "—"], order


# The run detail's metrics: each one's top and bottom, to find the space between wrapped rows.
METRIC_BOXES = """() => [...document.querySelectorAll('[data-testid="stMain"] [data-testid="stMetric"]')]
    .map(m => { const r = m.getBoundingClientRect(); return [r.top, r.bottom]; })"""


def test_the_run_details_metrics_wrap_without_a_wide_band_at_800_px(server, browser):
    page = browser.new_page(viewport={"width": 800, "height": 900})
    page.goto(f"{server}/runs", timeout=LOAD_MS)
    page.wait_for_function(f"() => ({METRIC_BOXES})().length >= 5", timeout=LOAD_MS)
    settled(page)
    boxes = sorted(page.evaluate(METRIC_BOXES))
    rows: list[list[float]] = []
    for top, bottom in boxes:
        if rows and abs(top - rows[-1][0]) < 4:
            rows[-1][1] = max(rows[-1][1], bottom)
        else:
            rows.append([top, bottom])
    # With gap "large" the fifth metric wrapped to a second row about 64 px below the first; "medium" keeps
    # the five on one row here, and any row that still wraps (a longer value) sits close under the first.
    bands = [lower[0] - upper[1] for upper, lower in zip(rows, rows[1:], strict=False)]
    assert all(band <= 40 for band in bands), (bands, rows)
