"""Issue 30 point 2 in a real browser: a link copied from Statistics, Ablations and Trace, opened in a new browser
context (a fresh session, as a colleague would), shows the same view; a link's unknown run is named and stays
in the address; arriving on Statistics from Runs (sidebar or "Compare in Statistics") takes one Back press.

One `streamlit run app.py` serves the whole module: the seeded history plus a HumanEval family whose runs have
with-prompt rescores (so Statistics offers verdict sets). Chromium via Playwright, Debian's package.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator

import pytest

from execugraph.store import Store
from tests.support import db_files
from tests.support.dashboard import CHROMIUM, back_to_runs, serve_dashboard, settled
from tests.ui.module_server import module_browser, module_chromium  # noqa: F401 - `browser`: one chromium per file
from tests.ui.seed import Seeded
from tests.ui.test_one_comparison_engine import build_family

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian chromium: apt-get install -y chromium"),
]

# Every selection the main area shows: each widget's text (label, multiselect tags), then its inputs: a select
# box's shown value, a toggle's or radio's checked states.
VIEW = """() => Array.from(document.querySelectorAll(['stSelectbox', 'stMultiSelect', 'stCheckbox', 'stRadio']
    .map(t => `[data-testid="stMain"] [data-testid="${t}"]`).join(', ')))
  .map(e => e.textContent.replace(/\\s+/g, ' ').trim() + ' = ' + Array.from(e.querySelectorAll('input'))
    .map(i => ['checkbox', 'radio'].includes(i.type) ? String(i.checked) : i.value).join(','))"""


@pytest.fixture(scope="module")
def served(seeded_template, tmp_path_factory) -> Iterator[tuple[str, Seeded, list[int]]]:
    """(url, the seeded ids, the HumanEval family's run ids): one server for every test of this module."""
    source, ids = seeded_template
    folder = tmp_path_factory.mktemp("links")
    db, cache = folder / "runs.db", folder / "cache"
    db_files.copy_database(source, db)
    with Store.open(str(db)) as store:
        family = build_family(store, random.Random(5))  # three runs, three comparable arms per condition
    with serve_dashboard(db, cache, folder / "streamlit.log") as url:
        yield url, ids, family


def _pick(page, label: str | re.Pattern, option: str | re.Pattern) -> None:
    """Choose `option` in a select box. A script run still under way can redraw the list while it is open (on a
    loaded machine the option was detached mid-click), so the page settles first and a failed pick is tried again."""
    box = page.get_by_role("combobox", name=label, exact=isinstance(label, str))
    wanted = page.get_by_role("option", name=option).first
    for attempt in range(4):
        settled(page)
        box.scroll_into_view_if_needed()
        box.click()
        try:
            wanted.wait_for(timeout=5_000)
            wanted.click(timeout=10_000)
            break
        except Exception:  # noqa: BLE001 - Playwright's TimeoutError: the list did not open or was redrawn
            page.keyboard.press("Escape")
            if attempt == 3:
                raise
    settled(page)


def _add(page, label: str, option: re.Pattern) -> None:  # noqa: ANN001
    """Add `option` to a multiselect and see its tag drawn. On a loaded machine a script run still under way can
    redraw the open list, and the click lands on nothing; such a pick is made again (a tag that is drawn is kept)."""
    box = page.get_by_role("combobox", name=label)
    widget = page.locator('[data-testid="stMultiSelect"]').filter(has=box)
    for _ in range(4):
        settled(page)
        box.click()
        try:
            page.get_by_role("option", name=option).first.click(timeout=10_000)
        except Exception:  # noqa: BLE001 - Playwright's TimeoutError: the list did not open or was redrawn
            pass
        page.keyboard.press("Escape")
        settled(page)
        if option.search(widget.inner_text()):
            return
    raise AssertionError(f"{option.pattern!r} was not added to {label!r}: {widget.inner_text()!r}")


def _address_has(page, param: str, timeout_s: float = 60) -> None:  # noqa: ANN001
    """Wait until the address bar holds `param`: the page writes a choice into the URL after its script run, which
    on a loaded machine lands after the run that drew the widget has settled."""
    try:
        page.wait_for_function("p => window.location.href.includes(p)", arg=param, timeout=timeout_s * 1000)
    except Exception:  # noqa: BLE001 - Playwright's TimeoutError; the assertion below names what is missing
        pass
    assert param in page.url, (param, page.url)


def _open(browser, url: str, wait_text: str):
    """`url` in a new browser context (no cookies, no session: a colleague's browser), settled."""
    page = browser.new_context(viewport={"width": 1400, "height": 1400}).new_page()
    page.goto(url, timeout=120_000)
    page.get_by_text(wait_text).first.wait_for(timeout=120_000)
    settled(page)
    return page


def _same_view(browser, page, wait_text: str) -> list[str]:
    """Open `page`'s address in a fresh context: same selections, same address, no exception or link warning."""
    copied = page.url
    view = page.evaluate(VIEW)
    fresh = _open(browser, copied, wait_text)
    assert fresh.locator('[data-testid="stException"]').count() == 0
    assert fresh.get_by_text("from the link not found").count() == 0
    assert fresh.evaluate(VIEW) == view
    assert fresh.url == copied  # arriving from the link rewrote nothing
    fresh.context.close()
    return view


def test_a_copied_link_opens_the_same_view_in_a_new_context(served, browser):  # noqa: F811
    server, ids, family = served
    a, b, c = family
    page = _open(browser, f"{server}/statistics?runs={a},{b},{c}", "Paired comparisons")
    page.get_by_role("combobox", name="Conditions (none = each run's own)").click()
    page.get_by_role("option", name="single-oneshot").click()
    page.keyboard.press("Escape")
    settled(page)
    _pick(page, "Comparisons", re.compile(rf"each arm against arm set 1 #{b}"))
    _pick(page, "Verdict set", "with-prompt (beside as run)")
    page.get_by_text("What a sequential batch would have saved (replay)").click()
    _pick(page, "Compared arm", re.compile(rf"arm set 2 #{c}"))
    for param in ("conditions=single-oneshot", f"baseline={b}%3Asingle-oneshot", "verdicts=with-prompt",
                  f"replay_vs={c}%3Asingle-oneshot"):
        _address_has(page, param)
    view = _same_view(browser, page, "Verdict-set sensitivity")
    assert any(f"arm set 1 #{b} · single-oneshot" in w for w in view), view
    assert any(w.startswith("Verdict set") and "with-prompt" in w for w in view)

    page = _open(browser, f"{server}/ablations?runs={ids.batch}", "Pass rate by arm")
    _pick(page, "Reference arm for the deltas", "single-retry")
    page.locator('[data-testid="stRadio"] label').filter(has_text="tokens").click()
    settled(page)
    _address_has(page, "reference=single-retry")
    _address_has(page, "cost=tokens")
    view = _same_view(browser, page, "Pass rate by arm")
    assert any(w.startswith("Cost measure") and "false,true,false" in w for w in view)

    page = _open(browser, f"{server}/trace?run={ids.batch}&trial={ids.passed_trial}", "Agent steps")
    _pick(page, re.compile(r"^Trial \("), re.compile(rf"^#{ids.failed_trial} "))
    page.wait_for_url(f"**trial={ids.failed_trial}", timeout=60_000)
    view = _same_view(browser, page, "Agent steps")
    assert any(w.startswith("Trial") and f"#{ids.failed_trial} " in w for w in view)


def test_an_unknown_run_in_a_link_is_named_and_stays_in_the_address(served, browser):  # noqa: F811
    server, ids, _ = served
    page = _open(browser, f"{server}/statistics?runs={ids.batch},999", "Paired comparisons")
    page.get_by_text(re.compile(r"from the link not found, kept in the link: #999")).wait_for(timeout=60_000)
    assert page.url.endswith(f"/statistics?runs={ids.batch}%2C999") or page.url.endswith(
        f"/statistics?runs={ids.batch},999"), page.url


def test_one_back_press_returns_from_statistics_to_runs(served, browser):  # noqa: F811
    from playwright.sync_api import expect

    server, ids, _ = served
    page = _open(browser, f"{server}/runs", "Run detail")
    page.locator('[data-testid="stSidebar"]').get_by_role("link", name="Statistics").click()
    page.get_by_text("Paired comparisons").first.wait_for(timeout=120_000)
    settled(page)
    assert page.url.endswith("/statistics")  # arriving wrote nothing (the runs shown are deferred)
    page.go_back()
    page.wait_for_url("**/runs", timeout=180_000)
    page.get_by_text("Run detail").first.wait_for(timeout=180_000)
    settled(page)

    _add(page, "Select runs to compare", re.compile(rf"#{ids.batch}\b"))
    # the link takes the selection on the rerun the pick starts: clicked before that, it opens plain /statistics
    compare = page.get_by_role("link", name="Compare in Statistics")
    expect(compare).to_have_attribute("href", re.compile(rf"statistics\?runs={ids.batch}$"), timeout=120_000)
    compare.click()
    page.wait_for_url(f"**/statistics?runs={ids.batch}", timeout=180_000)
    page.get_by_text("Paired comparisons").first.wait_for(timeout=120_000)
    settled(page)
    back_to_runs(page)


def test_one_change_that_rewrites_two_selections_takes_one_back_press(served, browser):  # noqa: F811
    """Removing a run also drops the condition only it had: runs and conditions change in one history entry."""
    server, ids, _ = served
    linked = f"{server}/statistics?runs={ids.single},{ids.batch}&conditions=multi-full,multi-rag"
    page = _open(browser, linked, "Paired comparisons")
    before = page.evaluate("history.length")
    runs = page.get_by_role("combobox", name="Runs", exact=True)
    runs.click()
    page.keyboard.press("Backspace")  # removes the last run chosen: the batch, the one with multi-rag
    page.keyboard.press("Escape")
    page.wait_for_url(f"**/statistics?runs={ids.single}&conditions=multi-full", timeout=60_000)
    settled(page)
    assert page.evaluate("history.length") == before + 1  # one change, one entry (two writes before)
    page.go_back()
    page.wait_for_url(linked, timeout=60_000)
    page.get_by_text("multi-rag").first.wait_for(timeout=60_000)  # the view the link named, restored
    settled(page)
    assert page.url == linked
