"""A read-only view of the store for `status`, in SQLAlchemy Core only, so the command starts without the ORM.

Why: `status` is run over and over while a batch works; loading the SQLModel tables (the ORM, pydantic)
cost more than its own reads. `StatusView` opens the database exactly as `Store.open` does (the same
`open_database`, the same migration of a database behind this code, the same read-only handling) and
answers what `status` asks of a store: `list_runs`, `get_run`, `run_progress` and `endpoint_waits`.
Runs come back as `RunView`s, whose attributes are the `run` table's columns as the `Run` model gives
them (JSON decoded, timestamps aware UTC); `tests/store/test_status_view.py` holds the columns to the
model's. What only a running batch needs (its ETA, its endpoint waits) uses the usual query modules.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Self

from sqlalchemy import JSON, Boolean, Column, Dialect, Float, Integer, MetaData, String, Table, Text, case, func, select
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.types import DateTime, TypeDecorator

from execugraph.configuration.settings import load_settings


class AwareUTC(TypeDecorator[datetime]):
    """A timestamp column read as the models read it: aware UTC (SQLite keeps UTC without an offset)."""

    impl = DateTime
    cache_ok = True

    def __init__(self) -> None:
        super().__init__(timezone=True)

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.utcoffset() is None:
            raise ValueError("a timestamp compared with the store must be aware (UTC)")
        return value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.utcoffset() is None else value.astimezone(UTC)


_META = MetaData()
RUN = Table(
    "run", _META,
    Column("id", Integer, primary_key=True), Column("kind", String), Column("title", String),
    Column("status", String), Column("config", JSON), Column("benchmark", String), Column("host", String),
    Column("versions", JSON), Column("models", JSON), Column("tags", JSON), Column("created_at", AwareUTC()),
    Column("started_at", AwareUTC()), Column("finished_at", AwareUTC()), Column("parent_run_id", Integer),
    Column("progress_total", Integer), Column("progress_done", Integer), Column("progress_passed", Integer),
    Column("error", Text), Column("worker_id", String), Column("heartbeat_at", AwareUTC()),
    Column("lease_expires_at", AwareUTC()), Column("cancel_requested", Boolean),
)
TRIAL = Table(
    "trial", _META,
    Column("id", Integer, primary_key=True), Column("run_id", Integer), Column("status", String),
    Column("passed", Boolean), Column("wallclock_s", Float),
)


class RunView:
    """One `run` row with the `Run` model's attribute names (read-only use: nothing is written back)."""

    def __init__(self, values: dict[str, Any]) -> None:
        self.__dict__.update(values)

    def __repr__(self) -> str:
        return f"RunView(id={self.__dict__.get('id')!r}, kind={self.__dict__.get('kind')!r})"


def run_progress(conn: Connection, run_id: int) -> dict[str, int]:
    """Trial counts of a run by status, plus `passed` and `finished` (done + error + cancelled).

    `done` counts trials that completed normally (passed or not); `error` those
    that crashed; `total` all trials, queued ones included.
    """
    t = TRIAL.c
    rows = conn.execute(
        select(t.status, func.count(), func.sum(case((t.passed.is_(True), 1), else_=0)))
        .where(t.run_id == run_id)
        .group_by(t.status)
    ).all()
    progress = {"total": 0, "queued": 0, "running": 0, "done": 0, "error": 0, "cancelled": 0, "passed": 0}
    for status, count, passed in rows:
        progress[status] = progress.get(status, 0) + int(count)
        progress["total"] += int(count)
        progress["passed"] += int(passed or 0)
    progress["finished"] = progress["done"] + progress["error"] + progress["cancelled"]
    return progress


class StatusView:
    """What `status` reads, opened like `Store.open` (same errors, same migration, same read-only note)."""

    def __init__(self, engine: Engine, *, read_only: bool = False, read_only_note: str = "", where: str = "") -> None:
        self.engine = engine
        self.read_only = read_only
        self.read_only_note = read_only_note
        self.url = where
        if not read_only:
            from execugraph.store.opening import migrate_or_explain

            migrate_or_explain(engine, where)

    @classmethod
    def open(cls, db: str | None = None) -> Self:
        """The view of the store at `db` (EXECUGRAPH_DB, ./runs.db), created and migrated as `Store.open` would."""
        from execugraph.store.opening import open_checked

        opened = open_checked(load_settings(db).db_url)
        return cls(opened.engine, read_only=opened.read_only, read_only_note=opened.note, where=opened.where)

    def list_runs(self, *, kind: str, limit: int = 200) -> list[RunView]:
        """Runs of `kind`, newest first (as `Store.list_runs(kind=...)`)."""
        stmt = select(RUN).where(RUN.c.kind == kind).order_by(RUN.c.id.desc()).limit(limit)
        with self.engine.connect() as conn:
            return [RunView(dict(row._mapping)) for row in conn.execute(stmt)]

    def get_run(self, run_id: int) -> RunView | None:
        """The run, or None."""
        with self.engine.connect() as conn:
            row = conn.execute(select(RUN).where(RUN.c.id == run_id)).first()
        return None if row is None else RunView(dict(row._mapping))

    def run_progress(self, run_id: int) -> dict[str, int]:
        """Trial counts by status plus passed and finished, counted in SQL."""
        with self.engine.connect() as conn:
            return run_progress(conn, run_id)

    def endpoint_waits(self, run_ids: list[int]) -> dict[int, list[Any]]:
        """Live waits per run (see `waits.current`); only queued and running runs are asked about."""
        from execugraph.store import waits

        return waits.current(self.engine, list(run_ids))

    def close(self) -> None:
        self.engine.dispose()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = ["RUN", "TRIAL", "AwareUTC", "RunView", "StatusView", "run_progress"]
