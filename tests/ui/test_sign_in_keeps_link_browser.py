"""Issue 41, sign-in keeps the link: with a token set, a shared or reloaded link to `/statistics` or `/retrieval`
asks for the token and then opens that page, not Synthesize (a real Streamlit server and Debian chromium)."""

from __future__ import annotations

import pytest

from tests.support.dashboard import CHROMIUM, launch_chromium, serve_dashboard, settled

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian chromium: apt-get install -y chromium"),
]
TOKEN = "op-token-41-link-5d2f"


def _sign_in(page, token: str) -> None:  # noqa: ANN001 - playwright's Page
    page.get_by_label("Access token").fill(token)
    page.get_by_role("button", name="Sign in").click()


def test_a_link_asks_for_the_token_and_then_opens_the_page_it_named(tmp_path):
    from playwright.sync_api import sync_playwright

    with serve_dashboard(tmp_path / "runs.db", tmp_path / "cache", tmp_path / "streamlit.log",
                         EXECUGRAPH_DASHBOARD_TOKEN=TOKEN, EXECUGRAPH_DASHBOARD_VIEWER_TOKEN="") as url:
        with sync_playwright() as playwright:
            browser = launch_chromium(playwright)
            try:
                page = browser.new_page(viewport={"width": 1400, "height": 1000})
                for path, title in (("statistics", "Statistics"), ("retrieval", "Retrieval")):
                    page.goto(f"{url}/{path}", timeout=120_000)  # a new session: a shared link, or a reload
                    page.get_by_label("Access token").wait_for(timeout=120_000)
                    assert page.get_by_role("heading", name=title, exact=True).count() == 0  # nothing before sign-in
                    _sign_in(page, "wrong-token")
                    page.get_by_text("That token is not valid").wait_for(timeout=120_000)
                    _sign_in(page, TOKEN)
                    page.get_by_role("heading", name=title, exact=True).first.wait_for(timeout=120_000)
                    settled(page)
                    assert page.get_by_role("heading", name="Synthesize", exact=True).count() == 0
                    assert page.url.rstrip("/").endswith(f"/{path}"), page.url
                    assert page.locator('[data-testid="stException"]').count() == 0
            finally:
                browser.close()
