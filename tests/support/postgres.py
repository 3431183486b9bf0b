"""A throwaway PostgreSQL server for the store tests, and fresh databases on any server.

When `.ci/run` has started a server it exports EXECUGRAPH_TEST_PG_URL and the
tests use that. Otherwise `ThrowawayPostgres` runs Debian's server binaries
(`apt-get install postgresql`) on a free loopback port with its data in a
temporary directory, as user `postgres` when we are root (initdb refuses
root), and deletes everything when stopped. Durability is switched off: the
data dies with the test session anyway, and it makes creating databases fast.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

import psycopg
from psycopg import sql
from sqlalchemy.engine import make_url

INSTALL_HINT = "install the server with `apt-get install postgresql` or set EXECUGRAPH_TEST_PG_URL"


def find_pg_bin() -> Path | None:
    """The newest /usr/lib/postgresql/<version>/bin holding initdb and pg_ctl, or None."""
    root = Path("/usr/lib/postgresql")
    candidates = []
    for child in root.glob("*/bin") if root.is_dir() else []:
        version = child.parent.name
        if version.isdigit() and (child / "initdb").exists() and (child / "pg_ctl").exists():
            candidates.append((int(version), child))
    return max(candidates)[1] if candidates else None


def free_port() -> int:
    """A loopback TCP port nobody listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def to_psycopg_dsn(url: str) -> str:
    """A libpq connection string for a SQLAlchemy-style URL (driver suffix dropped)."""
    parsed = make_url(url)
    return parsed.set(drivername="postgresql").render_as_string(hide_password=False)


class ThrowawayPostgres:
    """A private PostgreSQL cluster in a temporary directory on 127.0.0.1."""

    def __init__(self, bin_dir: Path) -> None:
        self.bin_dir = bin_dir
        self.port = free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="execugraph-pg-"))
        self.data = self.dir / "data"
        self.log = self.dir / "server.log"
        self._as_postgres = os.geteuid() == 0
        self.user = "postgres" if self._as_postgres else pwd.getpwuid(os.geteuid()).pw_name
        self.password = uuid.uuid4().hex

    def _run(self, *args: str) -> subprocess.CompletedProcess[str]:
        command = [str(self.bin_dir / args[0]), *args[1:]]
        if self._as_postgres:
            command = ["runuser", "-u", "postgres", "--", *command]
        result = subprocess.run(command, capture_output=True, text=True, timeout=120)
        if result.returncode != 0:
            log = self.log.read_text(errors="replace")[-4000:] if self.log.exists() else ""
            raise RuntimeError(
                f"{' '.join(command)} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}\n{log}"
            )
        return result

    def start(self) -> str:
        """Initialise and start the cluster; return a superuser URL for its `postgres` database."""
        if self._as_postgres:
            try:
                pwd.getpwnam("postgres")
            except KeyError as exc:
                raise RuntimeError(f"running as root but there is no `postgres` user; {INSTALL_HINT}") from exc
            shutil.chown(self.dir, user="postgres", group=None)
        # Password logins over TCP, as on a real server (and as .ci/start-postgres.sh sets it up), so a wrong
        # password is refused; the socket in self.dir stays trusted.
        password_file = self.dir / "pwfile"
        password_file.write_text(self.password + "\n")
        password_file.chmod(0o644)
        self._run("initdb", "-D", str(self.data), "-U", self.user, "--auth-local=trust", "--auth-host=scram-sha-256",
                  f"--pwfile={password_file}", "--no-sync", "-E", "UTF8")
        options = (
            f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 "
            "-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
        )
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-w", "-t", "60", "-o", options, "start")
        return f"postgresql+psycopg://{self.user}:{self.password}@127.0.0.1:{self.port}/postgres"

    def stop(self) -> None:
        """Stop the server and delete its files."""
        try:
            if (self.data / "postmaster.pid").exists():
                self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)


def create_database(admin_url: str, prefix: str = "eg_test") -> str:
    """Create an empty database on the server of `admin_url`; return a URL for it."""
    name = f"{prefix}_{os.getpid()}_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(to_psycopg_dsn(admin_url), autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {} TEMPLATE template0 ENCODING 'UTF8'").format(sql.Identifier(name)))
    return make_url(admin_url).set(drivername="postgresql+psycopg", database=name).render_as_string(hide_password=False)


def drop_database(admin_url: str, url: str, attempts: int = 20) -> None:
    """Drop the database of `url`, disconnecting anyone still on it.

    An autovacuum worker that happens to be on the database cannot be terminated by a role without
    pg_signal_backend (PostgreSQL refuses the whole DROP then): wait for it to finish and try again.
    """
    name = make_url(url).database
    for attempt in range(attempts):
        try:
            with psycopg.connect(to_psycopg_dsn(admin_url), autocommit=True) as conn:
                conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
            return
        except psycopg.errors.InsufficientPrivilege:
            if attempt == attempts - 1:
                raise
            time.sleep(0.5)
