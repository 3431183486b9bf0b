"""The analysis flows in a real browser: imported runs of two benchmarks compared against a baseline on
Statistics (the other benchmark listed apart, with the reason), the tables for a paper downloaded and read,
a chart downloaded as SVG. Chromium via Playwright against `streamlit run app.py`.

docs/statistics.png, the README's picture of named arms, is written only when it does not exist yet:
delete it and rerun this test to refresh it.
"""

from __future__ import annotations

import io
import re
import shutil
import zipfile

import pytest

from execugraph.configuration.settings import DATA_DIR
from execugraph.publication import import_path
from execugraph.stats import build_report
from execugraph.stats.family import Family
from execugraph.store import Store
from tests.support.dashboard import CHROMIUM, launch_chromium, settled
from tests.ui.conftest import PROJECT_ROOT
from tests.ui.test_browser import ARTIFACTS, server  # noqa: F401 - the fixture

FIXTURE = DATA_DIR / "fixtures" / "reference_layout" / "grid-demo"
README_SHOT = PROJECT_ROOT / "docs" / "statistics.png"
pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian chromium: apt-get install -y chromium"),
]


@pytest.fixture
def imported(seeded_db, tmp_path) -> dict[str, int]:
    """The published results folder imported into the test's database before the server starts: name -> run id."""
    with Store.open(str(tmp_path / "runs.db")) as store:
        return {run.name: run.id for run in import_path(store, FIXTURE).runs}


def _pick(page, label: str, option: str) -> None:
    page.get_by_role("combobox", name=label, exact=True).click()
    page.get_by_role("option", name=option).click()


def test_a_baseline_family_over_imported_runs_with_report_and_svg_downloads(imported, server, tmp_path):  # noqa: F811
    from playwright.sync_api import sync_playwright

    ids = [imported["e1_so"], imported["e1_sr"], imported["e2_he_mf"]]
    baseline = f"e1_so #{imported['e1_so']}"
    with Store.open(str(tmp_path / "runs.db")) as store:
        report = build_report(store, [str(i) for i in ids], family=Family(baseline=str(imported["e1_so"])))
    (pair,) = report.pairs
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900}, accept_downloads=True)
            page.goto(f"{server}/statistics?runs={','.join(map(str, ids))}", timeout=120_000)
            page.get_by_role("heading", name="Paired comparisons").wait_for(timeout=120_000)
            settled(page)
            _pick(page, "Comparisons", f"each arm against {baseline}")
            page.get_by_text("Not compared").first.wait_for(timeout=120_000)
            settled(page)
            assert page.locator('[data-testid="stException"]').count() == 0

            # the family: e1_sr against the baseline; the humaneval run listed apart with the reason
            tables = page.locator('[data-testid="stTable"]')
            paired = tables.first.inner_text()
            assert f"e1_sr #{imported['e1_sr']}" in paired and baseline in paired
            assert f"{pair.delta_pp:+.1f}" in paired and f"{pair.p_holm:.4f}" in paired
            excluded = page.get_by_text("different benchmarks (internal30 vs humaneval)")
            assert excluded.count() >= 1
            ticks = page.locator(".js-plotly-plot .ytick text").evaluate_all("nodes => nodes.map(n => n.textContent)")
            assert f"e1_sr #{imported['e1_sr']}" in ticks  # the forest plot names its arm
            page.screenshot(path=str(ARTIFACTS / "statistics-family.png"))

            # the tables for a paper, as the page offers them (LaTeX by default)
            with page.expect_download(timeout=120_000) as download:
                page.get_by_role("button", name=re.compile("Download the tables for a paper")).click()
            saved = tmp_path / "tables.zip"
            download.value.save_as(saved)
            with zipfile.ZipFile(saved) as archive:
                names = set(archive.namelist())
                tex = archive.read("paired.tex").decode()
            assert {"tables.tex", "paired.tex", "category_rates.tex", "ablation.tex"} <= names
            assert f"{pair.delta_pp:+.1f}" in tex and "e1\\_sr \\#" in tex and "Not compared: e2\\_he\\_mf" in tex

            # the forest plot as SVG, rendered by chromium on the server
            with page.expect_download(timeout=180_000) as download:
                page.get_by_role("button", name=re.compile(r"\bSVG$")).first.click()
            svg = tmp_path / download.value.suggested_filename
            download.value.save_as(svg)
            assert svg.name == "comparisons.svg"
            data = svg.read_bytes()
            assert data.startswith(b"<svg") and f"e1_sr #{imported['e1_sr']}".encode() in data

            readme = browser.new_page(viewport={"width": 1200, "height": 1350})
            readme.goto(f"{server}/statistics?runs={','.join(map(str, ids))}", timeout=120_000)
            readme.get_by_role("heading", name="Paired comparisons").wait_for(timeout=120_000)
            settled(readme)
            _pick(readme, "Comparisons", f"each arm against {baseline}")
            readme.get_by_text("Not compared").first.wait_for(timeout=120_000)
            settled(readme)
            readme.locator(".js-plotly-plot").first.wait_for(timeout=120_000)
            readme.screenshot(path=str(ARTIFACTS / "statistics-readme.png"))
        finally:
            browser.close()
    if not README_SHOT.exists():
        shutil.copyfile(ARTIFACTS / "statistics-readme.png", README_SHOT)
    assert io.BytesIO(README_SHOT.read_bytes()).getbuffer().nbytes < 400_000
