"""The Reproduce flow in a real browser: upload the published study of `tests/support/published_study.py` (zip) and
its benchmark file on the Export / Import page, follow the progress bar, read what holds up, download the report
and open it. Chromium via Playwright against `streamlit run app.py`.

docs/reproduce.png, the README's picture of a reproduction report, is written only when it does not exist yet:
delete it and rerun this test to refresh it.
"""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path

import pytest

from tests.support.dashboard import CHROMIUM, launch_chromium, save_evidence, serve_dashboard, settled
from tests.support.published_study import write_study
from tests.ui.conftest import PROJECT_ROOT
from tests.ui.test_browser import ARTIFACTS

README_SHOT = PROJECT_ROOT / "docs" / "reproduce.png"
# On a failure: a screenshot, the page's text twice (the live progress shows its elapsed seconds), every server
# thread's stack and the server log's end, to tell a hung reproduction from a live view that stopped redrawing.
EVIDENCE = ARTIFACTS.parent / "reproduce-failure"
pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian chromium: apt-get install -y chromium"),
]


@pytest.fixture
def server(seeded_db, tmp_path):
    """test_browser.py's server, with Python's fault handler on (so `save_evidence` can dump its threads)."""
    with serve_dashboard(tmp_path / "runs.db", tmp_path / "cache", tmp_path / "streamlit.log",
                         PYTHONFAULTHANDLER="1") as url:
        yield url


def _zip(folder: Path, target: Path) -> Path:
    with zipfile.ZipFile(target, "w") as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                archive.write(path, f"{folder.name}/{path.relative_to(folder).as_posix()}")
    return target


def _uploader(page, label: str):
    """The file input of the visible uploader whose label starts with `label` (the Import tab has one too)."""
    boxes = page.locator('[data-testid="stFileUploader"]:visible').filter(has_text=re.compile("^" + re.escape(label)))
    return boxes.locator('input[type="file"]')


def test_reproduce_a_published_study_from_the_export_page_and_download_its_report(server, tmp_path):  # noqa: F811
    from playwright.sync_api import sync_playwright

    folder, dataset = write_study(tmp_path)
    results = _zip(folder, tmp_path / "study.zip")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 1400}, accept_downloads=True)
            page.goto(f"{server}/export", timeout=120_000)
            page.get_by_role("tab", name="Reproduce").click()
            _uploader(page, "Results folder").set_input_files(str(results))
            page.get_by_text("study.zip").first.wait_for(timeout=60_000)
            settled(page)
            _uploader(page, "Benchmark file").set_input_files(str(dataset))
            page.get_by_text("benchmark.jsonl").first.wait_for(timeout=60_000)
            settled(page)
            page.locator('[data-testid="stButton"] button').filter(has_text="Reproduce").click()
            try:
                page.get_by_role("progressbar").first.wait_for(timeout=120_000)  # the bar while it works
                page.get_by_text("Reproduced study:").first.wait_for(timeout=600_000)
            except Exception:
                save_evidence(page, server, tmp_path / "streamlit.log", EVIDENCE)
                raise
            settled(page)
            assert page.locator('[data-testid="stException"]').count() == 0
            assert page.get_by_text(re.compile(r"Reproduced \d+ run\(s\), 88 trials")).count() >= 1  # the bar's end
            broken = page.get_by_text(re.compile(r"h2_mf vs h1_so .*Rescored under standalone: \+50\.0 pp"))
            assert "the conclusion does not survive" in broken.first.inner_text()
            page.screenshot(path=str(ARTIFACTS / "reproduce-page.png"), full_page=True)

            with page.expect_download(timeout=120_000) as download:
                page.get_by_role("button", name=re.compile(r"Download the report")).click()
            report = tmp_path / download.value.suggested_filename
            download.value.save_as(report)
            html = report.read_text()
            assert report.name == "study-report.html" and "<h2>Warnings</h2>" in html
            assert html.index("test_source &#x27;none&#x27;") < html.index("<h2>Runs</h2>")
            assert html.count('src="data:image/svg+xml;base64,') >= 10  # the figures travel inside the file

            with page.expect_download(timeout=120_000) as download:
                page.get_by_role("button", name=re.compile(r"Download everything")).click()
            saved = tmp_path / "all.zip"
            download.value.save_as(saved)
            with zipfile.ZipFile(saved) as archive:
                names = set(archive.namelist())
            assert {"report.md", "report.html", "reproduce.json", "tables/tables.tex",
                    "tables/internal30-10-problems-sampling.tex"} <= names
            assert any(n.startswith("figures/") and n.endswith(".svg") for n in names)

            reader = browser.new_page(viewport={"width": 1100, "height": 1250})
            reader.goto(report.as_uri(), timeout=60_000)
            reader.get_by_role("heading", name="Runs").wait_for(timeout=60_000)
            reader.screenshot(path=str(ARTIFACTS / "reproduce-report.png"))
        finally:
            browser.close()
    if not README_SHOT.exists():  # 64 colours are plenty for text and tables, and keep the PNG small
        from PIL import Image

        Image.open(ARTIFACTS / "reproduce-report.png").convert("RGB").quantize(colors=64).save(README_SHOT,
                                                                                                optimize=True)
    assert io.BytesIO(README_SHOT.read_bytes()).getbuffer().nbytes < 150_000
