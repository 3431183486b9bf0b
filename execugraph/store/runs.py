"""Run records: create, read, list with filters, update, rename, tag and delete runs; their summaries and waits."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from sqlalchemy import delete, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from execugraph.domain.json_types import JsonObject
from execugraph.store import queries, waits
from execugraph.store.models import EndpointWait, Execution, LLMCall, RetrievalHit, Run, Step, Trial, utcnow
from execugraph.store.provenance import hostname, runtime_versions
from execugraph.store.run_filter import RunFilter
from execugraph.store.transactions import StoreCore
from execugraph.store.validation import check_fields, check_tags, table_of


class RunRecords(StoreCore):
    """The Store's run methods (see `Store`)."""

    def create_run(
        self,
        kind: str,
        title: str,
        config: JsonObject,
        benchmark: str | None = None,
        models: JsonObject | None = None,
        parent_run_id: int | None = None,
        status: str = "queued",
        versions: JsonObject | None = None,
        host: str | None = None,
        tags: list[str] | None = None,
    ) -> int:
        """Record a new run and return its id; versions and host default to this process's."""
        if not isinstance(config, dict):
            raise ValueError(f"Run.config must be a dict; got {type(config).__name__}")
        if models is not None and not isinstance(models, dict):
            raise ValueError(f"Run.models must be a dict of role -> model; got {type(models).__name__}")
        fields = {"kind": kind, "status": status}
        check_fields(Run, fields)
        values = dict(
            kind=kind,
            title=title,
            status=status,
            config=config,
            benchmark=benchmark,
            models=models or {},
            parent_run_id=parent_run_id,
            versions=runtime_versions() if versions is None else versions,
            host=hostname() if host is None else host,
            tags=check_tags(tags or []),
            created_at=utcnow(),  # also how a rerun of this write recognises the run it already created
        )
        runs = table_of(Run)

        def work(session: Session) -> int:
            run = Run(**values)
            session.add(run)
            session.flush()
            return int(run.id)  # type: ignore[arg-type]

        def found(session: Session) -> int | None:
            row = session.exec(select(runs.c.id).where(runs.c.kind == kind, runs.c.title == title,
                                                       runs.c.created_at == values["created_at"])).first()
            return None if row is None else int(row[0] if isinstance(row, tuple) else row)

        try:
            return self._transact("create a run", work, found=found)
        except IntegrityError as exc:
            if parent_run_id is not None and not self._exists(Run, parent_run_id):
                raise LookupError(f"parent run {parent_run_id} does not exist") from exc
            raise ValueError(f"cannot create run: {exc.orig}") from exc

    def get_run(self, run_id: int) -> Run | None:
        """The run, or None."""
        with self._read() as session:
            return session.get(Run, run_id)

    def update_run(self, run_id: int, **fields: Any) -> None:
        """Set the given Run columns (e.g. status, started_at, progress_done, heartbeat_at)."""
        check_fields(Run, fields)
        if "tags" in fields:
            fields["tags"] = check_tags(fields["tags"])
        if fields:
            self._update(Run, run_id, fields)

    def list_runs(
        self, where: RunFilter | None = None, *, limit: int = 200, offset: int = 0, **fields: Any
    ) -> list[Run]:
        """Runs newest first that meet `where`; `fields` set RunFilter's fields by keyword (`kind="batch"`)."""
        clauses = queries.run_filters(self._dialect, (where or RunFilter()).with_fields(**fields))
        stmt = select(Run).where(*clauses).order_by(table_of(Run).c.id.desc()).limit(limit).offset(offset)
        with self._read() as session:
            return list(session.exec(stmt))

    def delete_run(self, run_id: int) -> bool:
        """Delete a run with its trials, steps, LLM calls, executions and hits; False if it did not exist.

        Runs derived from it (rescores) are kept and lose their parent link.
        """
        trial_ids = select(table_of(Trial).c.id).where(table_of(Trial).c.run_id == run_id).scalar_subquery()

        def work(session: Session) -> bool:
            session.exec(delete(table_of(EndpointWait)).where(table_of(EndpointWait).c.run_id == run_id))
            for child in (LLMCall, Execution, RetrievalHit, Step):
                table = table_of(child)
                session.exec(delete(table).where(table.c.trial_id.in_(trial_ids)))
            session.exec(delete(table_of(Trial)).where(table_of(Trial).c.run_id == run_id))
            runs = table_of(Run)
            session.exec(update(runs).where(runs.c.parent_run_id == run_id).values(parent_run_id=None))
            result = session.exec(delete(runs).where(runs.c.id == run_id))
            return bool(result.rowcount)  # type: ignore[attr-defined]

        return self._transact(f"delete run {run_id}", work)

    def rename_run(self, run_id: int, title: str) -> None:
        """Change a run's title."""
        self.update_run(run_id, title=title)

    def set_tags(self, run_id: int, tags: list[str]) -> None:
        """Replace a run's tags (stripped, empty and duplicate tags dropped, order kept)."""
        self.update_run(run_id, tags=tags)


    # -- summaries ------------------------------------------------------------

    def run_progress(self, run_id: int) -> dict[str, int]:
        """Trial counts by status plus passed and finished, counted in SQL (see queries.run_progress)."""
        with self.engine.connect() as conn:
            return queries.run_progress(conn, run_id)

    def run_summary(self, run_id: int) -> queries.RunSummary:
        """Pass rates and costs overall, per condition, per category and per pair (see queries.run_summary)."""
        with self.engine.connect() as conn:
            return queries.run_summary(conn, run_id)

    # -- endpoint waits (see waits.py) ------------------------------------------

    def note_endpoint_down(self, run_id: int, endpoint: str, since: datetime, last_error: str) -> None:
        """Record that the run's trials wait on `endpoint`, unreachable since `since` (refreshes an existing wait)."""
        check_fields(EndpointWait, {"since": since})
        waits.note_down(self.engine, run_id, endpoint, since, last_error)

    def note_endpoint_up(self, run_id: int, endpoint: str) -> None:
        """`endpoint` answered again: the run no longer waits on it."""
        waits.note_up(self.engine, run_id, endpoint)

    def clear_endpoint_waits(self, run_id: int) -> None:
        """Forget every endpoint wait of the run."""
        waits.clear(self.engine, run_id)

    def endpoint_waits(self, run_ids: Iterable[int]) -> dict[int, list[waits.LiveWait]]:
        """Live waits per run (oldest outage first); waits whose writer stopped refreshing them are left out."""
        return waits.current(self.engine, list(run_ids))
