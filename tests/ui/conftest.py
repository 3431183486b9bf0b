"""Fixtures for the dashboard tests: a seeded database (seeded once, copied per test) and AppTest drivers.

Every test runs against its own SQLite file (the shared conftest points
EXECUGRAPH_DB into tmp_path). The dashboard's one seam for background work,
`ui.resources.start_worker`, is replaced by a recorder so no test leaves a
detached worker process behind; tests that need batches to run install a real
in-process `Worker` through `worker_thread`.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from execugraph.store import Store
from tests.support import db_files
from tests.support.built_once import built_once
from tests.ui.seed import Seeded, seed_store

PROJECT_ROOT = Path(__file__).resolve().parents[2]
APP = str(PROJECT_ROOT / "app.py")
PAGES = ("synthesize", "batch", "runs", "trace", "retrieval", "ablations", "statistics", "export", "tests")
APP_TIMEOUT_S = 120  # the first run of a process imports LangGraph, SciPy and friends on a busy 2-core box


@pytest.fixture(scope="session")
def seeded_template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Seeded]:
    """The seeded history written once per test run through the Store API (about 15 s), shared by the xdist
    processes (tests/support/built_once.py); tests copy it (`seeded_db`), never write it."""

    def build(folder: Path) -> dict:
        with Store.open(str(folder / "runs.db")) as store:
            return dataclasses.asdict(seed_store(store))

    folder, ids = built_once(tmp_path_factory, "ui-seed", build)
    return folder / "runs.db", Seeded(**ids)


@pytest.fixture(scope="session")
def looking_dashboard(seeded_template: tuple[Path, Seeded], tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One dashboard per test process over one copy of the seeded history, for browser files whose tests only look
    (tests/ui/module_server.py's `shared_server`): a server start and its first page's imports paid once, not per file."""
    from tests.support.dashboard import serve_dashboard

    source, _ = seeded_template
    folder = tmp_path_factory.mktemp("looking-dashboard")
    db_files.copy_database(source, folder / "runs.db")
    closed = {"EXECUGRAPH_OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}  # what the per-test conftest gives the tests
    with serve_dashboard(folder / "runs.db", folder / "cache", folder / "streamlit.log", **closed) as url:
        yield url


@pytest.fixture
def seeded_db(seeded_template: tuple[Path, Seeded], tmp_path: Path) -> Seeded:
    """This test's EXECUGRAPH_DB holds a fresh copy of the seeded history."""
    source, ids = seeded_template
    db_files.copy_database(source, tmp_path / "runs.db")
    return ids


@pytest.fixture
def db_store(tmp_path: Path) -> Iterator[Store]:
    """The Store on this test's database (the same file the dashboard opens)."""
    with Store.open(str(tmp_path / "runs.db")) as opened:
        yield opened


@pytest.fixture(autouse=True)
def worker_starts(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[str]:
    """Record the database URLs the dashboard asked to start a worker for, instead of spawning one.

    Also keeps the test's caches (uploads, worker locks) in tmp_path.
    """
    calls: list[str] = []
    monkeypatch.setenv("EXECUGRAPH_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr("ui.resources.start_worker", lambda url: calls.append(url) or True)
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")  # nothing listens: model lists are deterministic
    return calls


@pytest.fixture(autouse=True)
def error_details_restored() -> Iterator[None]:
    """A shared dashboard sets `client.showErrorDetails` to "none" for the whole process (ui/access.py): put back
    what the next test runs with."""
    from streamlit import config as streamlit_config

    before = streamlit_config.get_option("client.showErrorDetails")
    yield
    streamlit_config.set_option("client.showErrorDetails", before)


@pytest.fixture
def app() -> Callable[[str], AppTest]:
    """`app("runs", state={...}, trial="3")` -> an AppTest of the whole app (router, sidebar) on that page, run."""

    def open_page(page: str = "synthesize", state: dict | None = None, **query: str) -> AppTest:
        at = AppTest.from_file(APP, default_timeout=APP_TIMEOUT_S)
        for name, value in query.items():
            at.query_params[name] = value
        for key, value in (state or {}).items():  # preset before the first run, as a returning user would have it
            at.session_state[key] = value
        at.run()
        if page != "synthesize":
            at.switch_page(f"pages/{page}.py").run()
        return at

    return open_page


@pytest.fixture
def worker_thread(monkeypatch: pytest.MonkeyPatch) -> Callable[[Callable[[], object]], list[threading.Thread]]:
    """Install a start_worker that runs a real in-process Worker (with the given deps) until the queue is empty."""
    from execugraph.batch.runner import Worker

    threads: list[threading.Thread] = []

    def install(deps_factory: Callable[[], object]) -> list[threading.Thread]:
        def start(url: str) -> bool:
            worker = Worker(Store.open(url), deps_factory=deps_factory, heartbeat_s=0.5)
            thread = threading.Thread(
                target=worker.run_forever, kwargs={"poll_s": 0.2, "exit_when_idle": True}, daemon=True
            )
            thread.start()
            threads.append(thread)
            return True

        monkeypatch.setattr("ui.resources.start_worker", start)
        return threads

    yield install
    for thread in threads:
        thread.join(timeout=60)


def texts(at: AppTest, kind: str) -> list[str]:
    """The text of every element of one kind (markdown, caption, error, ...), as strings."""
    return [str(getattr(e, "value", "")) for e in getattr(at, kind)]


def no_exception(at: AppTest) -> None:
    """Fail with the exception text when a page raised."""
    assert not at.exception, [e.value for e in at.exception]
