"""Named, ordered schema migrations, recorded in the `schema_migration` table.

Opening a store applies every migration it has not recorded yet, in order, in
one transaction that holds the database's write lock (SQLite `BEGIN
IMMEDIATE`, a PostgreSQL advisory lock), so a worker and the dashboard opening
the same fresh database at once cannot both migrate it, and a failed upgrade
leaves the database as it was. Migrations use DDL both backends accept.

To change the schema: edit `models.py`, append a migration here with the next
number, and never edit a released one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    Connection,
    DateTime,
    Engine,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    false,
    select,
    text,
)
from sqlalchemy.schema import CreateColumn

from execugraph.store.engine import display, writer
from execugraph.store.schema_v1 import initial_metadata

# Any constant works; it only has to be the same for every ExecuGraph process.
_PG_MIGRATION_LOCK = 0x45584547


@dataclass(frozen=True)
class Migration:
    """One schema change: `name` sorts in apply order and is what the table records."""

    name: str
    apply: Callable[[Connection], None]


def _ledger() -> Table:
    return Table(
        "schema_migration",
        MetaData(),
        Column("name", String, primary_key=True),
        Column("applied_at", DateTime(timezone=True), nullable=False),
    )


def _add_column(conn: Connection, table: str, column: Column) -> None:
    """ALTER TABLE ... ADD COLUMN, rendered for the connection's dialect."""
    quote = conn.dialect.identifier_preparer.quote
    spec = CreateColumn(column).compile(dialect=conn.dialect)
    conn.exec_driver_sql(f"ALTER TABLE {quote(table)} ADD COLUMN {spec}")


def _m0001_initial(conn: Connection) -> None:
    initial_metadata().create_all(conn)


def _m0002_worker_control(conn: Connection) -> None:
    """Workers claim runs and heartbeat; the dashboard can request a cancel; feedback provenance; summary index."""
    _add_column(conn, "run", Column("worker_id", String, nullable=True))
    _add_column(conn, "run", Column("heartbeat_at", DateTime(timezone=True), nullable=True))
    _add_column(conn, "run", Column("cancel_requested", Boolean, nullable=False, server_default=false()))
    _add_column(conn, "trial", Column("feedback_source", String, nullable=True))
    # Leads with (run_id, condition) and covers what the run summary aggregates.
    columns = (
        "run_id",
        "condition",
        "category",
        "status",
        "passed",
        "wallclock_s",
        "retries_used",
        "tokens_in",
        "tokens_out",
        "llm_calls",
    )
    trial = Table("trial", MetaData(), *(Column(name) for name in columns))
    Index("ix_trial_run_condition", *(trial.c[name] for name in columns)).create(conn)


def _m0003_problem_difficulty(conn: Connection) -> None:
    """Keep a problem's difficulty and rationale so a stored Problem round-trips whole."""
    _add_column(conn, "problem", Column("difficulty", String, nullable=False, server_default=""))
    _add_column(conn, "problem", Column("rationale", Text, nullable=False, server_default=""))


def _m0004_endpoint_waits(conn: Connection) -> None:
    """Runs record the LLM endpoints their trials are waiting on, so other processes can show it."""
    metadata = MetaData()
    Table("run", metadata, Column("id", Integer, primary_key=True))  # only for the foreign key
    wait = Table(
        "endpoint_wait",
        metadata,
        Column("id", Integer, primary_key=True),
        Column("run_id", Integer, ForeignKey("run.id"), nullable=False),
        Column("endpoint", String, nullable=False),
        Column("since", DateTime(timezone=True), nullable=False),
        Column("last_error", Text, nullable=False),
        Column("updated_at", DateTime(timezone=True), nullable=False),
        UniqueConstraint("run_id", "endpoint", name="uq_endpoint_wait_run_endpoint"),
    )
    Index("ix_endpoint_wait_run_id", wait.c.run_id)
    wait.create(conn)


def _m0005_grading_protocol(conn: Connection) -> None:
    """Record each trial's grading protocol and suite digest; keep a problem's prompt preamble and own timeout."""
    _add_column(conn, "trial", Column("grading_protocol", String, nullable=True))
    _add_column(conn, "trial", Column("suite_digest", String, nullable=True))
    _add_column(conn, "problem", Column("preamble", Text, nullable=False, server_default=""))
    _add_column(conn, "problem", Column("timeout_s", Float, nullable=True))


def _m0006_lease_epoch(conn: Connection) -> None:
    """A run's lease ends at a stored instant, set by its holder, so a takeover honours the holder's lease length."""
    _add_column(conn, "run", Column("lease_expires_at", DateTime(timezone=True), nullable=True))


def _m0007_technique_library(conn: Connection) -> None:
    """Each database keeps its own technique edits, and the exact library every retrieving run searched."""
    metadata = MetaData()
    edit = Table(
        "technique_edit",
        metadata,
        Column("id", Integer, primary_key=True),
        Column("technique_id", String, nullable=False),
        Column("action", String, nullable=False),
        Column("technique", JSON, nullable=False),
        Column("created_at", DateTime(timezone=True), nullable=False),
    )
    Index("ix_technique_edit_technique_id", edit.c.technique_id)
    Table(
        "technique_library",
        metadata,
        Column("digest", String, primary_key=True),
        Column("techniques", JSON, nullable=False),
        Column("size", Integer, nullable=False),
        Column("created_at", DateTime(timezone=True), nullable=False),
    )
    metadata.create_all(conn)


def _m0008_problem_release_date(conn: Connection) -> None:
    """Keep a problem's release date (YYYY-MM-DD, "" unknown), so comparisons can be windowed by it."""
    _add_column(conn, "problem", Column("release_date", String, nullable=False, server_default=""))


def _m0009_model_cutoff(conn: Connection) -> None:
    """Keep each model's training cutoff, edited in the dashboard, as the default contamination window."""
    Table(
        "model_cutoff",
        MetaData(),
        Column("model", String, primary_key=True),
        Column("cutoff", String, nullable=False),
        Column("updated_at", DateTime(timezone=True), nullable=False),
    ).create(conn)


MIGRATIONS: tuple[Migration, ...] = (
    Migration("0001_initial", _m0001_initial),
    Migration("0002_worker_control", _m0002_worker_control),
    Migration("0003_problem_difficulty", _m0003_problem_difficulty),
    Migration("0004_endpoint_waits", _m0004_endpoint_waits),
    Migration("0005_grading_protocol", _m0005_grading_protocol),
    Migration("0006_lease_epoch", _m0006_lease_epoch),
    Migration("0007_technique_library", _m0007_technique_library),
    Migration("0008_problem_release_date", _m0008_problem_release_date),
    Migration("0009_model_cutoff", _m0009_model_cutoff),
)
LATEST = MIGRATIONS[-1].name


class SchemaTooNewError(RuntimeError):
    """The database was migrated by a newer ExecuGraph than this one."""


def applied_migrations(engine: Engine) -> list[str]:
    """Names recorded in the ledger, oldest first; empty for a database never migrated."""
    with engine.connect() as conn:
        if not conn.dialect.has_table(conn, "schema_migration"):
            return []
        ledger = _ledger()
        return list(conn.execute(select(ledger.c.name).order_by(ledger.c.name)).scalars())


def schema_version(engine: Engine) -> str | None:
    """The newest applied migration's name, or None for an empty database."""
    names = applied_migrations(engine)
    return names[-1] if names else None


def migrate(engine: Engine, target: str | None = None) -> list[str]:
    """Apply pending migrations up to and including `target` (default: all); return what was applied."""
    known = [m.name for m in MIGRATIONS]
    if target is not None and target not in known:
        raise ValueError(f"unknown migration {target!r}; known: {', '.join(known)}")
    wanted = MIGRATIONS if target is None else MIGRATIONS[: known.index(target) + 1]
    # Fast path without the write lock: opening an up-to-date database (every
    # dashboard rerun, every worker) must not queue behind a busy writer.
    recorded = set(applied_migrations(engine))
    if recorded <= set(known) and all(m.name in recorded for m in wanted):
        return []
    applied_now: list[str] = []
    with writer(engine).begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _PG_MIGRATION_LOCK})
        ledger = _ledger()
        ledger.create(conn, checkfirst=True)
        done = set(conn.execute(select(ledger.c.name)).scalars())
        unknown = sorted(done - set(known))
        if unknown:
            raise SchemaTooNewError(
                f"database {display(engine.url)} has migrations "
                f"{', '.join(unknown)} that this ExecuGraph does not know (it knows up to {LATEST}); "
                "upgrade ExecuGraph or open another database"
            )
        for migration in wanted:
            if migration.name in done:
                continue
            migration.apply(conn)
            conn.execute(ledger.insert().values(name=migration.name, applied_at=datetime.now(UTC)))  # models.utcnow, without the models
            applied_now.append(migration.name)
    return applied_now
