"""Issue 41's ETA in chromium: a running batch's card says "estimating" until three trials finished, then gives an
estimate whose range holds the real time left, and the estimate falls as trials finish.

The batch is simulated in the database (no model): trials take known wall-clock times, so the real time left is
known at each look. A trial takes minutes here, so the seconds the page itself needs to load do not matter.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from execugraph.batch.control import enqueue_batch
from execugraph.batch.spec import BatchSpec
from execugraph.benchmarks import load_benchmark
from execugraph.store import Store, utcnow
from tests.support.dashboard import CHROMIUM, launch_chromium, serve_dashboard

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian chromium: apt-get install -y chromium"),
]

TRIAL_S = 300.0  # what every trial still to run takes in this simulated batch
DONE_S = (240.0, 300.0, 360.0, 300.0)  # what the finished ones took, in order (mean 300 s)
ETA = re.compile(r"ETA about ([^(]+?) \((.+?) to (.+?)\) from this run")


def seconds(text: str) -> float:
    """`format_duration`'s words back to seconds: `45 s`, `4 min 05 s`, `1 h 02 min`."""
    total = 0.0
    for value, unit in re.findall(r"(\d+) (h|min|s)\b", text):
        total += int(value) * {"h": 3600, "min": 60, "s": 1}[unit]
    assert total or text.strip() == "0 s", f"not a duration: {text!r}"
    return total


@pytest.fixture(scope="module")
def batch(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path, int]]:
    """A served dashboard over a database holding one running batch of 8 trials (concurrency 1), none started."""
    root = tmp_path_factory.mktemp("eta")
    db = root / "runs.db"
    problems = load_benchmark("internal30")[:8]
    with Store.open(str(db)) as store:
        spec = BatchSpec(benchmark="internal30", problem_ids=[p.id for p in problems], conditions=["single-oneshot"],
                         seeds=[0], title="eta batch", order="condition-major")
        run_id = enqueue_batch(store, spec, problems)
        # held by a worker that is not there, with a lease far ahead: the dashboard's own worker leaves it alone
        store.update_run(run_id, status="running", worker_id="eta-sim", started_at=utcnow() - timedelta(hours=1),
                         heartbeat_at=utcnow() + timedelta(days=365))
    with serve_dashboard(db, root / "cache", root / "server.log") as url:
        yield url, db, run_id


def advance(db: Path, run_id: int, finished: int, running_for_s: float) -> float:
    """Finish the first `finished` trials (times from DONE_S), start the next one `running_for_s` ago; the real
    time left from now (the one in flight and every queued trial take TRIAL_S)."""
    now = utcnow()
    with Store.open(str(db)) as store:
        trials = sorted(store.trials_for_run(run_id), key=lambda t: t.id)
        for i, trial in enumerate(trials[:finished]):
            took = DONE_S[i]
            store.update_trial(trial.id, status="done", passed=i % 2 == 0, wallclock_s=took,
                               started_at=now - timedelta(seconds=3600 - i * 400),
                               finished_at=now - timedelta(seconds=3600 - i * 400 - took))
        store.update_trial(trials[finished].id, status="running", started_at=now - timedelta(seconds=running_for_s))
    queued = len(trials) - finished - 1
    return (TRIAL_S - running_for_s) + queued * TRIAL_S


def card_text(page, run_id: int, pattern: str, timeout_s: float = 120) -> str:  # noqa: ANN001
    """The batch card's text once it matches `pattern` (the card polls the database every 2 s). The text is the one
    that matched, read in the same check: read again afterwards, it could be a card in the middle of its redraw."""
    matched = page.wait_for_function(
        """([sel, pat]) => { const el = document.querySelector(sel); const text = el ? el.innerText : '';
                             return new RegExp(pat).test(text) ? text : false; }""",
        arg=[f".st-key-batch_card_{run_id}", pattern], timeout=timeout_s * 1000)
    return str(matched.json_value())


def test_the_eta_says_estimating_then_falls_as_trials_finish_and_its_range_holds_the_real_time_left(batch):
    from playwright.sync_api import sync_playwright

    url, db, run_id = batch
    advance(db, run_id, finished=2, running_for_s=10)
    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(f"{url}/batch", timeout=120_000)
            text = card_text(page, run_id, r"2/8 trials finished")
            assert "ETA estimating" in text, text

            estimates = []
            for finished, running_for in ((3, 60.0), (4, 30.0)):
                started = time.monotonic()
                truth = advance(db, run_id, finished, running_for)
                text = card_text(page, run_id, rf"{finished}/8 trials finished[^\n]*ETA about")
                lag = time.monotonic() - started  # the card was drawn in this window: the time left then lies in
                about, low, high = (seconds(g) for g in ETA.search(text).groups())  # [truth - lag, truth]
                assert low <= truth + 1 and truth - lag - 1 <= high, (text, truth, lag)
                assert low <= about <= high, text
                estimates.append((about, truth))
            (first, first_truth), (second, second_truth) = estimates
            assert second < first, estimates  # one more trial finished: less time left, and the estimate says so
            assert abs(second - second_truth) < abs(first - first_truth) + TRIAL_S / 2, estimates
        finally:
            browser.close()
