"""The Synthesize and Batch forms in a real browser with an `openai:` model served by a real server.

`python -m llama_cpp.server` serves the embedded SmolLM2 as `smollm2` on loopback; the dashboard
(`streamlit run app.py`) and the background worker it starts get EXECUGRAPH_OPENAI_BASE_URL, so the
model pickers list `openai:smollm2` and the trials' LLM calls are stored with provider `openai`.
Reuses the launcher of tests/ui/test_browser.py.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from execugraph.store import Store
from tests.support.dashboard import (
    CHROMIUM,
    serve_dashboard,
    settled,
)
from tests.support.openai_server import ALIAS, LlamaCppServer
from tests.ui.module_server import module_browser, module_chromium  # noqa: F401 - `browser`: one chromium per file
from tests.ui.test_browser import ARTIFACTS

SPEC = f"openai:{ALIAS}"
pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian chromium: apt-get install -y chromium"),
]


@pytest.fixture(scope="module")
def llm(tmp_path_factory: pytest.TempPathFactory):
    with LlamaCppServer(log=tmp_path_factory.mktemp("llama") / "server.log") as running:
        yield running


@pytest.fixture(scope="module")
def dashboard(llm: LlamaCppServer, tmp_path_factory: pytest.TempPathFactory):
    """The dashboard on an empty database, pointed at the OpenAI-compatible server (Ollama unreachable); one for
    the file: each test reads back the newest run of its own kind (single, batch)."""
    folder = tmp_path_factory.mktemp("openai-dashboard")
    db, cache = folder / "runs.db", folder / "cache"
    with serve_dashboard(db, cache, folder / "streamlit.log", EXECUGRAPH_OPENAI_BASE_URL=llm.base_url) as url:
        yield url, db


def _pick_model(page) -> None:
    page.get_by_label("Model", exact=True).click()
    page.get_by_role("option", name=SPEC).click()


def _openai_calls(db: Path, kind: str) -> list:
    with Store.open(str(db)) as store:
        (run,) = store.list_runs(kind=kind, limit=1)
        calls = [c for t in store.trials_for_run(run.id) for c in store.llm_calls_for_trial(t.id)]
        return [run, calls]


def test_synthesize_with_the_openai_model(dashboard, browser):
    url, db = dashboard
    page = browser.new_page(viewport={"width": 1400, "height": 1600})
    page.goto(url, timeout=120_000)
    page.get_by_text("openai server").first.wait_for(timeout=120_000)  # the sidebar's health line
    page.get_by_label("Problem statement").wait_for(timeout=180_000)  # the form draws after it: >30 s at load 15
    page.get_by_label("Problem statement").fill("Return the square of x.")
    page.get_by_label("Condition").click()
    page.get_by_role("option", name="single-oneshot").click()
    _pick_model(page)
    page.get_by_role("button", name="Synthesize").click()
    page.get_by_text("Open run #").first.wait_for(timeout=600_000)
    settled(page)
    assert page.locator('[data-testid="stException"]').count() == 0
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "synthesize-openai.png"))
    run, calls = _openai_calls(db, "single")
    assert run.status == "done" and run.models["generator"] == SPEC
    assert calls and {c.provider for c in calls} == {"openai"} and all(c.tokens_out > 0 for c in calls)


def test_batch_form_with_the_openai_model(dashboard, browser):
    url, db = dashboard
    page = browser.new_page(viewport={"width": 1400, "height": 2200})
    page.goto(f"{url}/batch", timeout=120_000)
    page.get_by_role("heading", name="New batch").wait_for(timeout=120_000)
    settled(page)
    subset = page.get_by_role("spinbutton", name="Random subset of N problems (0 = all)")
    subset.fill("1")
    subset.press("Enter")
    for condition in ("single-retry", "multi-full"):
        page.get_by_label(f"Remove {condition}").click()
    settled(page)
    _pick_model(page)
    budget = page.get_by_role("spinbutton", name="Outage budget per endpoint (minutes)")
    budget.fill("3")
    budget.press("Enter")
    settled(page)
    page.get_by_text("1 problem x 1 condition").first.wait_for(timeout=60_000)
    page.get_by_role("button", name="Launch batch").click()
    page.get_by_text("is queued").first.wait_for(timeout=120_000)
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        with Store.open(str(db)) as store:
            runs = store.list_runs(kind="batch", limit=1)
            if runs and runs[0].status not in ("queued", "running"):
                break
        time.sleep(1)
    page.reload()
    page.get_by_text("1/1 trials").first.wait_for(timeout=120_000)
    settled(page)
    assert page.locator('[data-testid="stException"]').count() == 0
    page.screenshot(path=str(ARTIFACTS / "batch-openai.png"))
    run, calls = _openai_calls(db, "batch")
    assert run.status == "done" and run.config["batch"]["default_model"] == SPEC
    assert run.config["batch"]["outage_budget_s"] == 180.0
    assert calls and {c.provider for c in calls} == {"openai"}
