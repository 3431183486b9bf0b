"""The Import tab's problem file in a real browser: bigcode MBPP generations and evaluation_results.json uploaded
together with an MBPP problem file, imported, graded (the bar's last words) and their pass@k checked on the page.
Chromium via Playwright against `streamlit run app.py`; the AppTest twin is tests/ui/test_import_dataset.py.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support import harness_files as hf
from tests.support.dashboard import CHROMIUM, launch_chromium, settled
from tests.ui.test_browser import ARTIFACTS, server  # noqa: F401 - the fixture
from tests.ui.test_browser_reproduce import _uploader

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian chromium: apt-get install -y chromium"),
]


def test_bigcode_mbpp_generations_import_with_their_problem_file(server, tmp_path: Path) -> None:  # noqa: F811
    from playwright.sync_api import sync_playwright

    generations = hf.write_bigcode_mbpp(tmp_path / "bc")
    problems = hf.write_mbpp_problems(tmp_path / "mbpp.jsonl")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 1400})
            page.goto(f"{server}/export", timeout=120_000)
            page.get_by_role("tab", name="Import").click()
            _uploader(page, "Bundle, results folder").set_input_files(
                [str(generations), str(generations.parent / "evaluation_results.json")])
            button = page.locator('[data-testid="stButton"] button:visible').filter(has_text=re.compile(r"Import$"))
            button.wait_for(timeout=60_000)  # shown once the results are uploaded
            settled(page)
            _uploader(page, "Problem file").set_input_files(str(problems))
            page.get_by_text("mbpp.jsonl").first.wait_for(timeout=60_000)
            settled(page)
            button.click()
            page.get_by_text(re.compile(r"Imported: run #\d+ generations_mbpp \(40 trials\)")).wait_for(
                timeout=300_000)
            settled(page)
            page.screenshot(path=str(ARTIFACTS / "import-dataset.png"), full_page=True)
            assert page.locator('[data-testid="stException"]').count() == 0
            assert page.get_by_text(re.compile(r"graded 40 samples in \d+\.\d s")).count() == 1
            check = page.get_by_text(re.compile("pass@k check: evaluation_results.json agrees")).first.inner_text()
            assert f"pass@1 {hf.mbpp_pass_at_k(1):.4f} (ours {hf.mbpp_pass_at_k(1):.4f})" in check
        finally:
            browser.close()
