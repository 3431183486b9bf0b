"""The Store's foundation: one engine, its sessions and write transactions, and an attempt's fenced view.

Every write goes through `StoreCore._transact`: one short transaction,
committed before the method returns and retried as a whole on transient
database errors (see `retry`); under a fence (`fenced`) the attempt's token is
checked inside that same transaction first (see `fencing`). The record mixins
(`runs`, `trials`, `trace_rows`, `problems_cache`) build the Store's methods on
these helpers.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any, Self, TypeVar

from sqlalchemy import Engine, update
from sqlmodel import Session, SQLModel

from execugraph.configuration.settings import load_settings
from execugraph.store import migrations
from execugraph.store.engine import display_url, writer
from execugraph.store.fencing import Fence
from execugraph.store.retry import DEFAULT_POLICY, Reruns, RetryPolicy, run_with_retry
from execugraph.store.step_groups import StepGroups
from execugraph.store.validation import table_of

T = TypeVar("T")


class StoreCore:
    """What every part of the Store shares: the engine, opening, fencing and the transaction helpers.

    Use `Store` (which adds the record methods); every write transaction is
    retried on transient database errors under `retry_policy` (see `retry`).
    """

    def __init__(
        self,
        engine: Engine,
        *,
        migrate: bool = True,
        read_only: bool = False,
        read_only_note: str = "",
        retry_policy: RetryPolicy | None = None,
    ) -> None:
        """Wrap `engine`; unless `migrate` is False (or the store is read-only), bring its schema up to date first.

        `read_only` marks a database opened read-only (see `opening.py`): nothing
        is migrated, every write raises StoreReadOnlyError, and `read_only_note`
        says why in one sentence.
        """
        self.engine = engine
        self._writer = writer(engine)
        self._dialect = engine.dialect.name
        self.read_only = read_only
        self.read_only_note = read_only_note
        self._where: str | None = None
        self.retry_policy = retry_policy or DEFAULT_POLICY
        self._fence: Fence | None = None
        # SQLite: concurrent trials' steps share write transactions (fenced views share this queue)
        self._step_groups = StepGroups(engine) if self._dialect == "sqlite" else None
        if migrate and not read_only:
            from execugraph.store.opening import migrate_or_explain

            migrate_or_explain(engine, self.url)

    @classmethod
    def open(cls, db: str | None = None) -> Self:
        """Open (creating and migrating as needed) the store at `db`, EXECUGRAPH_DB or ./runs.db.

        A bad `db` raises StoreUnavailableError with one sentence to show the user;
        an existing SQLite file on read-only storage opens read-only (`read_only`).
        """
        from execugraph.store.opening import open_checked

        opened = open_checked(load_settings(db).db_url)
        store = cls(opened.engine, read_only=opened.read_only, read_only_note=opened.note)
        store._where = opened.where
        return store

    @classmethod
    def open_for_reading(cls, db: str | None, note: str) -> Self:
        """The store at `db` for someone who may only read it (a dashboard viewer): every write refused with `note`.

        The database is opened (and migrated) normally first, so a viewer who comes first still finds a store.
        """
        from execugraph.store.engine import make_engine

        cls.open(db).close()
        url = load_settings(db).db_url
        store = cls(make_engine(url, read_only="session", read_only_note=note), read_only=True, read_only_note=note)
        return store

    def require_writable(self) -> None:
        """Raise StoreReadOnlyError (saying why and what to do) when this store cannot be written."""
        if self.read_only:
            with self._writer.connect() as conn:
                conn.begin()  # the read-only engine refuses here with its sentence

    @property
    def url(self) -> str:
        """Where the store lives (the file's path when opened by `open`), password hidden."""
        return self._where or display_url(self.engine)

    def check_connection(self) -> None:
        """Open (and give back) one pooled connection; the driver's error when the database cannot be reached."""
        with self.engine.connect():
            pass

    def schema_version(self) -> str | None:
        """Name of the newest migration applied to this database."""
        return migrations.schema_version(self.engine)

    def close(self) -> None:
        """Close pooled connections; the Store must not be used afterwards."""
        self.engine.dispose()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


    # -- attempts ---------------------------------------------------------------

    def fenced(self, trial_id: int, token: datetime, guard: Callable[[], None] | None = None) -> Self:
        """This store as seen by one attempt of a trial: every write checks, in its own transaction,
        that the trial is still running under `token` (its started_at), else raises SupersededError.

        `guard` runs before each write (see `fencing`). Reads are unchanged.
        """
        view = copy.copy(self)
        view._fence = Fence(trial_id, token, guard)
        return view

    @property
    def fence(self) -> Fence | None:
        """The attempt this store view writes for, or None for the plain store."""
        return self._fence

    def check_attempt(self) -> None:
        """Raise SupersededError unless this view's attempt still owns its trial (no-op without a fence)."""
        if self._fence is not None:
            with self.engine.connect() as conn:
                self._fence.check(conn)

    def _own(self, trial_id: int) -> None:
        if self._fence is not None and trial_id != self._fence.trial_id:
            raise ValueError(f"this attempt belongs to trial {self._fence.trial_id}, not {trial_id}")

    # -- sessions -------------------------------------------------------------

    def _read(self) -> Session:
        return Session(self.engine, expire_on_commit=False)

    def _transact(
        self, what: str, work: Callable[[Session], T], found: Callable[[Session], T | None] | None = None
    ) -> T:
        """Run `work(session)` as one write transaction, committed on return, retried as a whole on
        transient errors; under a fence the attempt's token is checked first, in the same transaction.
        `found`: how a rerun finds what a commit whose answer was lost stored (see `write_transaction`)."""
        fence = self._fence
        reruns: Reruns[Session, T] = Reruns(found)

        def attempt() -> T:
            if fence is not None:
                fence.before_write()
            with Session(self._writer, expire_on_commit=False) as session, session.begin():
                if fence is not None:
                    fence.check(session.connection())
                return reruns.run(session, work)

        return run_with_retry(attempt, what=what, policy=self.retry_policy)

    def _exists(self, model: type[SQLModel], ident: Any) -> bool:
        with self._read() as session:
            return session.get(model, ident) is not None

    def _update(self, model: type[SQLModel], ident: int, fields: Mapping[str, object]) -> None:
        table = table_of(model)

        def work(session: Session) -> None:
            result = session.exec(update(table).where(table.c.id == ident).values(**fields))
            if result.rowcount == 0:  # type: ignore[attr-defined]
                raise LookupError(f"{model.__name__} {ident} does not exist")

        self._transact(f"update {model.__name__} {ident}", work)

