"""Shared fixtures: store databases on SQLite and PostgreSQL, and a DB env var pointed at tmp_path.

- `db_url`: parametrised over a SQLite file in tmp_path and a fresh database on
  a real PostgreSQL server (EXECUGRAPH_TEST_PG_URL, or a throwaway cluster
  this session starts; skipped with the reason when neither is possible).
- `store`: a fresh migrated Store on `db_url`.
- `sqlite_store`: a fresh Store on SQLite only, for tests that need a store
  but are not about the database.
Every test also gets EXECUGRAPH_DB pointing into its tmp_path, so nothing a
test runs can write the developer's ./runs.db, and EXECUGRAPH_OPENAI_BASE_URL
pointing at a closed loopback port.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

PROJECT_ROOT = Path(__file__).resolve().parent.parent
if str(PROJECT_ROOT) not in sys.path:  # plain `pytest` (not `python -m pytest`) does not add it
    sys.path.insert(0, str(PROJECT_ROOT))

from streamlit import config as _streamlit_config  # noqa: E402

from execugraph.store import Store  # noqa: E402
from tests.support import postgres, schedule, tiers  # noqa: E402

# AppTest reads no .streamlit/config.toml: give it the loopback address a real server gets from there,
# which the dashboard's access gate (ui/access.py) requires when no token is set.
_streamlit_config.set_option("server.address", "127.0.0.1")

PG_URL_ENV = "EXECUGRAPH_TEST_PG_URL"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--tier", default="all", choices=tiers.TIERS,
                     help="default: what make test runs (no `long` test); long: only make test-long's; all (the default)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Keep the tier's tests (tests/support/tiers.py), then the slowest files first (tests/support/schedule.py), so
    parallel processes finish together."""
    kept, deselected = tiers.select(items, config.getoption("--tier"))
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = kept
    schedule.order_items(items)


@pytest.fixture(autouse=True)
def _isolated_db_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EXECUGRAPH_DB", str(tmp_path / "runs.db"))
    # no test reaches an OpenAI-compatible server someone runs on this machine, unless it starts its own
    monkeypatch.setenv("EXECUGRAPH_OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.delenv("EXECUGRAPH_OPENAI_API_KEY", raising=False)


@pytest.fixture(scope="session")
def pg_admin_url() -> Iterator[str]:
    """A URL with the right to create databases on a running PostgreSQL server."""
    configured = os.environ.get(PG_URL_ENV)
    if configured:
        yield configured
        return
    bin_dir = postgres.find_pg_bin()
    if bin_dir is None:
        pytest.skip(f"no PostgreSQL server binaries under /usr/lib/postgresql/*/bin; {postgres.INSTALL_HINT}")
    server = postgres.ThrowawayPostgres(bin_dir)
    try:
        url = server.start()
    except Exception:
        server.stop()
        raise
    try:
        yield url
    finally:
        server.stop()


@pytest.fixture
def pg_url(pg_admin_url: str) -> Iterator[str]:
    """A fresh, empty PostgreSQL database for one test, dropped afterwards."""
    url = postgres.create_database(pg_admin_url)
    try:
        yield url
    finally:
        postgres.drop_database(pg_admin_url, url)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty database URL: a SQLite file in tmp_path, then a fresh PostgreSQL database."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'store.db'}"
    return str(request.getfixturevalue("pg_url"))


@pytest.fixture
def store(db_url: str) -> Iterator[Store]:
    """A fresh, migrated Store on each backend."""
    with Store.open(db_url) as opened:
        yield opened


@pytest.fixture
def sqlite_store(tmp_path: Path) -> Iterator[Store]:
    """A fresh, migrated Store on a SQLite file in tmp_path."""
    with Store.open(str(tmp_path / "sqlite-store.db")) as opened:
        yield opened
