"""One dashboard (and one chromium) per browser test file, not per test: for files whose tests only look.

Starting `streamlit run app.py` and waiting for its first page costs 10-60 s on a busy 2-core machine; a file of
four looking tests paid it four times. Import the fixture (it is named `server`, like test_browser.py's) into a
test file whose tests neither add nor change runs: they share one server over one copy of the seeded database.
`shared_server` goes further: one server per test process for every such file (tests/ui/conftest.py's
`looking_dashboard`), for files that need no fresh server (no "the server's first request" checks).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support import db_files
from tests.support.dashboard import serve_dashboard
from tests.ui.seed import Seeded


@pytest.fixture(scope="module", name="server")
def module_server(seeded_template: tuple[Path, Seeded], tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The dashboard over this file's copy of the seeded history; stopped (with its worker) after the file."""
    source, _ = seeded_template
    folder = tmp_path_factory.mktemp("module-dashboard")
    db_files.copy_database(source, folder / "runs.db")
    # the per-test conftest settings this process lacks at module scope, given to the server itself
    closed = {"EXECUGRAPH_OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}
    with serve_dashboard(folder / "runs.db", folder / "cache", folder / "streamlit.log", **closed) as url:
        yield url


@pytest.fixture(scope="module", name="server")
def shared_server(looking_dashboard: str) -> str:
    """The test process's looking dashboard (one for every file that imports this instead of `module_server`)."""
    return looking_dashboard


@pytest.fixture(scope="module")
def module_chromium() -> Iterator[object]:
    """One Playwright driver and one chromium per file (each start costs seconds of CPU); use `module_browser`."""
    from playwright.sync_api import sync_playwright

    from tests.support.dashboard import launch_chromium

    with sync_playwright() as playwright:
        opened = launch_chromium(playwright)
        yield opened
        opened.close()


@pytest.fixture(name="browser")
def module_browser(module_chromium) -> Iterator[object]:  # noqa: ANN001
    """The file's chromium; the contexts (and pages) a test opened are closed after it, so no session outlives it."""
    yield module_chromium
    for context in list(module_chromium.contexts):
        context.close()

