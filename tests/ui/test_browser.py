"""The real app in a real browser: `streamlit run app.py` on a free loopback port against a seeded database,
Debian chromium driven by Playwright: Synthesize runs a trial live and shows its result.

Also the shared parts of the browser tests: the per-test `server` fixture, the pages and what each must show,
and where screenshots go (test-artifacts/screenshots/, gitignored). The every-page sweep (no exception on any
page, screenshots, docs/screenshot.png) runs in test_browser_back_and_narrow.py, on one dashboard for that file.
"""

from __future__ import annotations

import pytest

from tests.support.dashboard import CHROMIUM, launch_chromium, serve_dashboard, settled
from tests.ui.conftest import PROJECT_ROOT

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


@pytest.fixture
def server(seeded_db, tmp_path):
    """The dashboard serving this test's seeded database; stopped (with its worker) afterwards."""
    with serve_dashboard(tmp_path / "runs.db", tmp_path / "cache", tmp_path / "streamlit.log") as url:
        yield url


def test_synthesize_shows_steps_live_then_the_result_with_the_embedded_model(server, tmp_path):
    """Type a problem, press Synthesize, see the live 'working' view, then the verdict and the trace link."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1600})
            page.goto(server, timeout=120_000)
            # the first page can take over 30 s (playwright's default) to draw at load 15 on 2 cores
            page.get_by_label("Problem statement").wait_for(timeout=180_000)
            page.get_by_label("Problem statement").fill("Return the sum of the two integers a and b.")
            page.get_by_label("Condition").click()
            page.get_by_role("option", name="single-oneshot").click()
            page.get_by_role("button", name="Synthesize").click()
            page.get_by_text("is working...").first.wait_for(timeout=120_000)  # the fragment's live view
            page.get_by_text("Open run #").first.wait_for(timeout=600_000)  # the full rerun once the trial ended
            settled(page)
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
