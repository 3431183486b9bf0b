"""A hostile published study reproduced from the dashboard, then its result and its report read in a real browser.

The study of `tests/support/hostile_study.py`, with a fourth run and a families file whose names add an `onerror`
image, a beacon image to a loopback port, a javascript: link and a bidi isolate, is uploaded on the Export /
Import page and reproduced (figures on). Chromium (Playwright, against `streamlit run app.py`) then reads the
dashboard's result, the downloaded report.html, and report.md rendered by a permissive Markdown renderer (raw
HTML allowed, as many viewers do). Every page counts dialogs and every request that leaves its own origin: there
must be none, and the payloads must be on the page as text.
"""

from __future__ import annotations

import io
import json
import re
import unicodedata
import zipfile
from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt

from execugraph.safety.inert_text import BIDI_CONTROLS, WORD_JOINER
from tests.support import hostile_study as H
from tests.support.dashboard import CHROMIUM, launch_chromium, save_evidence, settled
from tests.ui.test_browser_reproduce import EVIDENCE, _uploader, _zip, server  # noqa: F401 - the fixture

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian chromium: apt-get install -y chromium"),
]
ONERROR = "<img src=x onerror=alert(1)>"
BEACON = "![t](http://127.0.0.1:9/beacon)"
JS_LINK = "[x](javascript:alert(1))"
ISOLATE = "\u2067"
FOURTH = f"{ONERROR} {JS_LINK} {ISOLATE}rtl"  # a folder name: no "/" in it
FAMILIES = (f"{BEACON} {H.SCRIPT}", f"{ONERROR} {JS_LINK} {ISOLATE}{H.RLO}")
VISIBLE = (H.SCRIPT, ONERROR, BEACON, JS_LINK, "<U+2067>")  # how each reads once shown as text


def _extra(arm: str) -> list[dict[str, Any]]:
    """More problems for every arm: ids, errors and code carrying the payloads the hostile study lacks."""
    base = H.records(arm)[0]
    return [{**base, "problem_id": pid, "passed": i % 2 == 0, "tests_passed": int(i % 2 == 0),
             "error_class": "none" if i % 2 == 0 else "runtime_error", "stderr": f"{ONERROR} {BEACON} {ISOLATE}",
             "code": f"# {H.SCRIPT} {ONERROR}\n# {BEACON}\ndef f():\n    return '{JS_LINK}'\n"}
            for i, pid in enumerate((ONERROR, f"q {BEACON}", f"r {JS_LINK} {ISOLATE}"))]


def _zip_name(name: str) -> str:
    """A folder name a zip upload accepts (one with a backslash is refused as an unsafe path there)."""
    return "".join(" " if ch == "\\" or unicodedata.category(ch) == "Cc" else ch for ch in name)


def _hostile(root: Path) -> tuple[Path, Path]:
    """The hostile study with a fourth run and the extra problems, zipped; and its families file."""
    folder, _ = H.write_study(root)
    names = [_zip_name(name) for name in H.FOLDERS.values()]
    for name, safe in zip(H.FOLDERS.values(), names, strict=True):
        (folder / name).rename(folder / safe)
    (folder / FOURTH).mkdir()
    fourth = [{**r, "model_generator": f"{ONERROR} {BEACON}"} for r in H.records("b")]  # not a copy of b
    (folder / FOURTH / "trials.jsonl").write_text("".join(json.dumps(r) + "\n" for r in fourth))
    for arm, name in [*zip(H.FOLDERS, names, strict=True), ("b", FOURTH)]:
        with (folder / name / "trials.jsonl").open("a") as out:
            out.write("".join(json.dumps(r) + "\n" for r in _extra(arm)))
    families = root / "families.json"
    names.append(FOURTH)
    families.write_text(json.dumps({"families": [
        {"name": FAMILIES[0], "runs": names, "baseline": names[0]},
        {"name": FAMILIES[1], "pairs": [[names[2], names[0]], [FOURTH, names[1]]]},
    ]}))
    return _zip(folder, root / "study.zip"), families


class Watch:
    """Dialogs opened and requests made by every page of a browser context, outside `origins`."""

    def __init__(self, context: Any, origins: tuple[str, ...]) -> None:
        self.origins = origins
        self.dialogs: list[str] = []
        self.outside: list[str] = []
        context.on("request", self._request)
        context.on("page", self._page)

    def _page(self, page: Any) -> None:
        page.on("dialog", lambda dialog: (self.dialogs.append(dialog.message), dialog.dismiss()))

    def _request(self, request: Any) -> None:
        if not request.url.startswith(self.origins):
            self.outside.append(request.url)

    def clean(self) -> None:
        assert self.dialogs == [], self.dialogs
        assert self.outside == [], self.outside


def _reads_as_text(page: Any) -> str:
    text = page.locator("body").inner_text().replace(WORD_JOINER, "")
    for payload in VISIBLE:
        assert payload in text, payload
    assert not set(text) & BIDI_CONTROLS
    return text


def _every_page(page: Any, base: str, db: Path) -> None:
    """The imported hostile runs on every page that shows them: no exception, no payload turned into markup."""
    from execugraph.store import Store

    with Store.open(str(db)) as store:
        runs = [r.id for r in store.list_runs(kind="import")]
        trial = store.trials_for_run(runs[0])[0].id
    ids = ",".join(map(str, runs))
    for path in ("runs", f"trace?trial={trial}", f"statistics?runs={ids}", f"ablations?runs={ids}", "retrieval",
                 "batch", "export", "tests"):
        page.goto(f"{base}/{path}", timeout=120_000)
        page.locator('[data-testid="stHeading"]').first.wait_for(timeout=120_000)
        settled(page)
        assert page.locator('[data-testid="stException"]').count() == 0, path
        assert page.locator("img[src='x'], a[href^='javascript'], iframe, object, embed").count() == 0, path
        assert page.locator("script:not([src])").evaluate_all(
            "els => els.filter(e => e.textContent.includes('alert(')).length") == 0, path


def test_a_hostile_report_is_inert_in_the_dashboard_and_in_its_files(server, tmp_path):  # noqa: F811
    from playwright.sync_api import sync_playwright

    results, families = _hostile(tmp_path / "hostile")
    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        try:
            context = browser.new_context(viewport={"width": 1280, "height": 1400}, accept_downloads=True)
            app = Watch(context, (server + "/", server.replace("http", "ws", 1) + "/"))
            page = context.new_page()
            page.goto(f"{server}/export", timeout=120_000)
            page.get_by_role("tab", name="Reproduce").click()
            _uploader(page, "Results folder").set_input_files(str(results))
            page.get_by_text("study.zip").first.wait_for(timeout=60_000)
            settled(page)
            _uploader(page, "Families").set_input_files(str(families))
            page.get_by_text("families.json").first.wait_for(timeout=60_000)
            settled(page)
            page.locator('[data-testid="stButton"] button').filter(has_text="Reproduce").click()
            try:
                page.get_by_text("Reproduced study:").first.wait_for(timeout=600_000)
            except Exception:
                save_evidence(page, server, tmp_path / "streamlit.log", EVIDENCE.with_name("hostile-failure"))
                raise
            settled(page)
            assert page.locator('[data-testid="stException"]').count() == 0
            for label in ("Warnings (", "The whole report"):
                page.locator('[data-testid="stExpander"] summary').filter(has_text=label).first.click()
            settled(page)
            text = _reads_as_text(page)
            assert "nothing to compare" not in text.split("Warnings")[0]  # both families were compared
            with page.expect_download(timeout=120_000) as download:
                page.get_by_role("button", name=re.compile(r"Download everything")).click()
            with zipfile.ZipFile(io.BytesIO(Path(download.value.path()).read_bytes())) as archive:
                archive.extractall(tmp_path / "out")
            _every_page(page, server, tmp_path / "runs.db")
            app.clean()
        finally:
            browser.close()

        out = tmp_path / "out"
        rendered = MarkdownIt("commonmark", {"html": True}).enable("table").render((out / "report.md").read_text())
        (out / "report-md.html").write_text(f'<!DOCTYPE html><html><head><meta charset="utf-8"></head>'
                                            f"<body>{rendered}</body></html>")
        browser = launch_chromium(playwright)
        try:
            context = browser.new_context(viewport={"width": 1100, "height": 1250})
            files = Watch(context, (out.as_uri() + "/", "data:"))  # report.md links its figures beside it
            for name in ("report.html", "report-md.html"):
                reader = context.new_page()
                reader.goto((out / name).as_uri(), timeout=60_000)
                reader.get_by_role("heading", name="Runs").first.wait_for(timeout=60_000)
                reader.wait_for_load_state("load")
                _reads_as_text(reader)
                assert reader.locator("script, iframe, object, embed, a[href^='javascript']").count() == 0, name
                images = reader.locator("img").evaluate_all("els => els.map(e => e.getAttribute('src'))")
                inside = "data:image/svg+xml;base64," if name == "report.html" else "figures/"
                assert images and all(src.startswith(inside) for src in images), (name, images)  # the figures only
            files.clean()
        finally:
            browser.close()
