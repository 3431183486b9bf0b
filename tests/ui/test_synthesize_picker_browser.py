"""Issue 41 in a real browser: on Synthesize, pick internal30, then climb_stairs in the searchable problem box, and
see the statement, entry point, aliases and signature filled in, editable. Nothing is run: no model, no trial."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.dashboard import CHROMIUM, launch_chromium, serve_dashboard, settled

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian chromium: apt-get install -y chromium"),
]


@pytest.fixture
def dashboard(tmp_path: Path) -> Iterator[str]:
    """The dashboard on an empty database (Ollama unreachable)."""
    with serve_dashboard(tmp_path / "runs.db", tmp_path / "cache", tmp_path / "streamlit.log") as url:
        yield url


def test_picking_climb_stairs_fills_the_form_in_chromium(dashboard, tmp_path):
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1400})
            page.goto(dashboard, timeout=120_000)
            page.get_by_label("Problem statement").wait_for(timeout=120_000)
            settled(page)
            page.get_by_role("combobox", name="Benchmark problem").click()
            page.get_by_role("option", name="internal30", exact=True).click()
            problem = page.get_by_role("combobox", name="Problem id (type to search)")
            problem.wait_for(timeout=60_000)
            settled(page)
            problem.click()
            page.keyboard.type("climb")  # searchable: typing narrows the list
            page.get_by_role("option", name="climb_stairs", exact=True).click()
            expect(page.get_by_label("Problem statement")).to_have_value(
                re.compile(r"^A staircase has n steps\."), timeout=60_000)
            settled(page)
            page.get_by_text("Entry point, aliases and tests (optional)").click()
            expect(page.get_by_label("Entry point")).to_have_value("climbStairs", timeout=30_000)
            expect(page.get_by_label("Aliases")).to_have_value("climb_stairs, climbingStairs, climbing_stairs")
            expect(page.get_by_label("Signature")).to_have_value("def climbStairs(n: int) -> int")
            expect(page.get_by_text("Filled from internal30/climb_stairs")).to_be_visible()
            page.get_by_label("Entry point").fill("climb")  # still editable
            page.get_by_label("Entry point").press("Enter")
            settled(page)
            expect(page.get_by_label("Entry point")).to_have_value("climb")
            assert page.locator('[data-testid="stException"]').count() == 0
        finally:
            browser.close()
    from execugraph.store import Store

    with Store.open(str(tmp_path / "runs.db")) as store:
        assert store.list_runs() == []  # nothing was launched
