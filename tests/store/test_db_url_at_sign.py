"""A password holding a raw `@` in `--db` is refused in one line, never half-parsed (issue 40, item 2).

SQLAlchemy splits the URL at the first `@`, so `postgresql://u:p@ss@127.0.0.1:9/db` would connect
to the host `ss@127.0.0.1` and the driver's error would print part of the password. Such a URL is
refused before anything connects, with how to write it (`%40`), showing no part of its user part;
the escaped URL connects to a real PostgreSQL server as a role whose password holds `@`.
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import psycopg
import pytest
from psycopg import sql
from sqlalchemy.engine import make_url

from execugraph.configuration.settings import PROJECT_ROOT, load_settings
from execugraph.providers.health import check_database
from execugraph.store import Store
from tests.support.postgres import to_psycopg_dsn

RAW = "postgresql://alice:Zq9@Kx7@127.0.0.1:9/db"
PIECES = ("alice", "Zq9", "Kx7", "Kx7@127", "Zq9@Kx7")  # the user part and any split of it
ISSUE_URL = "postgresql://u:p@ss@127.0.0.1:9/db"  # the issue's own example


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "execugraph", *args], cwd=PROJECT_ROOT, env=os.environ | (env or {}),
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("given", ["--db", "EXECUGRAPH_DB"])
@pytest.mark.parametrize("command", ["status", "cancel"])
def test_a_raw_at_is_refused_in_one_line_showing_no_part_of_the_user_part(given: str, command: str) -> None:
    for url, pieces in ((RAW, PIECES), (ISSUE_URL, ("ss@", "p@ss", "u:p"))):
        args = [command] + (["1"] if command == "cancel" else [])
        done = cli("--db", url, *args) if given == "--db" else cli(*args, env={"EXECUGRAPH_DB": url})
        assert done.returncode == 2, done.stderr
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1, done.stderr
        assert "write @ in a password as %40" in lines[0] and "postgresql://***@127.0.0.1:9/db" in lines[0]
        shown = done.stdout + done.stderr
        assert "Traceback" not in shown
        for piece in pieces:
            assert piece not in shown


def test_doctor_and_the_dashboard_health_line_say_the_same() -> None:
    check = check_database(load_settings(RAW))
    assert check.level == "fail" and "write @ in a password as %40" in check.detail
    for piece in PIECES:
        assert piece not in check.detail + check.fix


def test_an_unparseable_url_is_not_quoted_with_its_password() -> None:
    done = cli("--db", "postgresql://alice:Zq9secretKx7@127.0.0.1:notaport/db", "status")
    assert done.returncode == 2, done.stderr
    assert "Zq9secretKx7" not in done.stdout + done.stderr and "Traceback" not in done.stderr


@pytest.mark.postgres
def test_a_password_with_a_percent_encoded_at_connects(pg_url: str, tmp_path: Path) -> None:
    role, password = f"eg_at_{uuid.uuid4().hex[:8]}", f"p@ss:{uuid.uuid4().hex[:6]}@w/rd"
    admin = psycopg.connect(to_psycopg_dsn(pg_url), autocommit=True)
    try:
        admin.execute(sql.SQL("CREATE ROLE {} LOGIN PASSWORD {}").format(sql.Identifier(role), sql.Literal(password)))
    except psycopg.errors.InsufficientPrivilege:
        admin.close()
        pytest.skip("the test server's role may not create roles (no CREATEROLE), so none with '@' in its password "
                    "can be made; unset EXECUGRAPH_TEST_PG_URL to run this on a throwaway cluster")
    try:
        admin.execute(sql.SQL("GRANT ALL ON SCHEMA public TO {}").format(sql.Identifier(role)))
        where = make_url(pg_url)
        escaped = password.replace("%", "%25").replace("@", "%40").replace(":", "%3A").replace("/", "%2F")
        url = f"postgresql://{role}:{escaped}@{where.host}:{where.port}/{where.database}"
        with Store.open(url) as store:  # connects and creates the schema as that role
            assert store.list_runs(kind="batch") == []
        done = cli("--db", url, "status")
        assert done.returncode == 0, done.stderr
        raw = f"postgresql://{role}:{password}@{where.host}:{where.port}/{where.database}"
        refused = cli("--db", raw, "status")
        assert refused.returncode == 2 and "write @ in a password as %40" in refused.stderr
        assert "p@ss" not in refused.stderr and "ss:" not in refused.stderr
    finally:
        admin.execute(sql.SQL("DROP OWNED BY {}").format(sql.Identifier(role)))
        admin.execute(sql.SQL("DROP ROLE IF EXISTS {}").format(sql.Identifier(role)))
        admin.close()
