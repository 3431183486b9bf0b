"""Issue 40 point 1 in a real browser: the Runs page's rename, tag and delete act on the run the page shows.

Opened from `/runs?run=<an older run>`, renaming the run and then saving its tags once wrote the tags onto the
newest finished run (the select box's label had changed with the rename, so the browser's stale choice no longer
matched and the page fell back to the newest run), and a Delete after that deleted a run nobody had opened. Each
step here is checked in the database: the run from the link is renamed, tagged and deleted; the others are not.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from execugraph.store import Store
from execugraph.store.models import utcnow
from tests.support.dashboard import CHROMIUM, launch_chromium, serve_dashboard, settled

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.integration,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian chromium: apt-get install -y chromium"),
]


def build_runs(store: Store, count: int = 4, trials: int = 3) -> list[int]:
    """`count` finished batches of `trials` finished trials each, oldest first (the newest is the default detail)."""
    ids = []
    for n in range(count):
        run_id = store.create_run("batch", f"batch number {n}", {"conditions": ["single-oneshot"]},
                                  benchmark="internal30", status="running", tags=[f"orig{n}"])
        for i in range(trials):
            trial = store.create_trial(run_id, f"p{i}", "single-oneshot", 0, 0, category="dp", benchmark="internal30")
            store.finish_trial(trial, passed=i % 2 == 0)
        store.update_run(run_id, status="done", progress_total=trials, progress_done=trials, finished_at=utcnow())
        ids.append(run_id)
    return ids


def snapshot(db: Path) -> dict[int, tuple[str, list[str], int]]:
    """{run id: (title, tags, trial count)} as the database holds them now."""
    with Store.open(str(db)) as store:
        return {r.id: (r.title, list(r.tags or []), len(store.trials_for_run(r.id))) for r in store.list_runs()}


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, Path, list[int]]]:
    db = tmp_path / "runs.db"
    with Store.open(str(db)) as store:
        ids = build_runs(store)
    with serve_dashboard(db, tmp_path / "cache", tmp_path / "streamlit.log") as url:
        yield url, db, ids


def _manage(page):  # noqa: ANN001, ANN202
    """The "Rename, tag or delete" section, opened."""
    section = page.locator('[data-testid="stExpander"]').filter(has_text="Rename, tag or delete")
    if not section.get_by_role("button", name="Rename").is_visible():
        section.get_by_text("Rename, tag or delete").click()
        section.get_by_role("button", name="Rename").wait_for(timeout=30_000)
    return section


def _type(page, section, label: str, text: str) -> None:  # noqa: ANN001
    box = section.get_by_label(label)
    box.fill(text)
    box.press("Enter")  # commits the value (a rerun), as a user's Tab or click away would
    settled(page)


def _detail(page) -> str:  # noqa: ANN001
    """The run the "Run detail" box shows."""
    box = page.locator('[data-testid="stSelectbox"]').filter(has_text="Run detail")
    return box.inner_text() + " = " + box.locator("input").input_value()


def test_rename_tags_and_delete_act_on_the_run_the_link_opened(served) -> None:
    from playwright.sync_api import sync_playwright

    url, db, ids = served
    target = ids[1]  # neither the newest run nor the first listed
    before = snapshot(db)
    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        try:
            page = browser.new_context(viewport={"width": 1400, "height": 1400}).new_page()
            page.goto(f"{url}/runs?run={target}", timeout=120_000)
            page.get_by_text("Run detail").first.wait_for(timeout=120_000)
            settled(page)
            assert f"#{target}" in _detail(page)

            section = _manage(page)
            _type(page, section, "Title", "renamed by the test")
            section.get_by_role("button", name="Rename").click()
            page.get_by_text(f"Renamed run #{target}.").wait_for(timeout=60_000)
            settled(page)
            after = snapshot(db)
            assert after[target][0] == "renamed by the test"
            assert {k: v for k, v in after.items() if k != target} == {k: v for k, v in before.items() if k != target}
            assert page.url.endswith(f"/runs?run={target}") and f"renamed by the test #{target}" in _detail(page)

            section = _manage(page)
            _type(page, section, "Tags (comma separated)", "alpha, beta")
            section.get_by_role("button", name="Save tags").click()
            page.get_by_text(re.compile(r"Saved the tags of run #\d+\.")).wait_for(timeout=60_000)
            settled(page)
            assert page.get_by_text(f"Saved the tags of run #{target}.").count() == 1
            after = snapshot(db)
            assert after[target] == ("renamed by the test", ["alpha", "beta"], 3)
            assert {k: v for k, v in after.items() if k != target} == {k: v for k, v in before.items() if k != target}
            assert page.url.endswith(f"/runs?run={target}") and f"#{target}" in _detail(page)

            with Store.open(str(db)) as store:  # another session renames it: this browser still shows the old label
                store.rename_run(target, "renamed elsewhere")
            section = _manage(page)
            _type(page, section, "Tags (comma separated)", "gamma")
            section.get_by_role("button", name="Save tags").click()
            page.get_by_text(f"Saved the tags of run #{target}.").wait_for(timeout=60_000)
            settled(page)
            after = snapshot(db)
            assert after[target] == ("renamed elsewhere", ["gamma"], 3)
            assert {k: v for k, v in after.items() if k != target} == {k: v for k, v in before.items() if k != target}
            assert page.url.endswith(f"/runs?run={target}") and f"renamed elsewhere #{target}" in _detail(page)

            section = _manage(page)
            section.get_by_role("button", name="Delete").click()
            dialog = page.get_by_role("dialog")
            dialog.get_by_text(f"Run #{target} ").wait_for(timeout=30_000)
            dialog.get_by_role("button", name="Delete permanently").click()
            page.get_by_text(f"Deleted run #{target}.").wait_for(timeout=60_000)
            settled(page)
            after = snapshot(db)
            assert target not in after
            assert after == {k: v for k, v in before.items() if k != target}  # every other run untouched
            assert f"run={target}" not in page.url  # the address no longer names a run that is gone
            assert f"#{target}" not in _detail(page)
        finally:
            browser.close()
