"""Issue 41 in chromium: at 800 px the Runs page's metrics show their labels and values whole (no "100.…"), and
the running batch's card shows its per-condition counts and a Trace link to the trial in flight."""

from __future__ import annotations

import pytest

from execugraph.store import Store, utcnow
from tests.support.dashboard import CHROMIUM, launch_chromium, settled
from tests.ui.test_browser import server  # noqa: F401 - the fixture

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian chromium: apt-get install -y chromium"),
]

# metric labels and values whose text is wider than their box (cut with an ellipsis)
CUT_METRICS = """() => {
  const out = [];
  for (const sel of ['[data-testid="stMetricLabel"]', '[data-testid="stMetricValue"]']) {
    for (const el of document.querySelectorAll(sel)) {
      if (!el.offsetParent) continue;
      for (const inner of [el, ...el.querySelectorAll('*')]) {
        if (inner.scrollWidth > inner.clientWidth + 1 && inner.clientWidth) {
          out.push(`${el.innerText.trim()} (${inner.scrollWidth} > ${inner.clientWidth})`); break;
        }
      }
    }
  }
  return out;
}"""


def test_runs_metrics_whole_at_800_and_the_batch_card_in_1400(server, seeded_db, tmp_path):  # noqa: F811
    from playwright.sync_api import sync_playwright

    with Store.open(str(tmp_path / "runs.db")) as store:
        trial = store.trials_for_run(seeded_db.running, status="queued")[0]
        store.update_trial(trial.id, status="running", started_at=utcnow())
    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        try:
            narrow = browser.new_page(viewport={"width": 800, "height": 900})
            narrow.goto(f"{server}/runs?run={seeded_db.batch}", timeout=120_000)
            narrow.get_by_text("Run detail").first.wait_for(timeout=120_000)
            narrow.locator('[data-testid="stMetricValue"]').first.wait_for(timeout=120_000)
            settled(narrow)
            assert narrow.locator('[data-testid="stMetricValue"]').count() >= 5
            assert narrow.evaluate(CUT_METRICS) == []

            wide = browser.new_page(viewport={"width": 1400, "height": 1000})
            wide.goto(f"{server}/batch", timeout=120_000)
            link = wide.get_by_text(f"trial #{trial.id} · {trial.problem_id} · {trial.condition}")
            link.first.wait_for(timeout=120_000)
            card = wide.locator(f".st-key-batch_card_{seeded_db.running}")
            assert card.count() == 1 and " finished, " in card.inner_text() and "elapsed " in card.inner_text()
            href = link.first.locator("xpath=ancestor-or-self::a").first.get_attribute("href") or ""
            assert "trace" in href and f"trial={trial.id}" in href, href
        finally:
            browser.close()
