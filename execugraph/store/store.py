"""The Store: the one object through which runs, trials and their traces are written and read.

Every write is its own short transaction, committed before the method
returns, so a killed worker loses at most the step it was in, and retried as
a whole on transient database errors (a lock held elsewhere, a dropped
connection; see `retry`). `Store.fenced` gives one attempt of a trial a view
whose writes check the attempt's token inside the same transaction (see
`fencing`). Methods are
safe to call from many threads (each opens its own session from the engine's
pool) and from many processes (see `engine.py` for SQLite's locking). They
return plain values, dicts, or SQLModel objects detached from any session.

Bad input raises ValueError naming the field; an id that does not exist
raises LookupError; nothing already stored is changed by a failed call.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy import Engine, Table, delete, func, insert, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlmodel import Session, SQLModel, select

from execugraph.problem import Problem
from execugraph.settings import load_settings
from execugraph.store import migrations, queries, trial_queue, waits
from execugraph.store.engine import display_url, writer
from execugraph.store.errors import StoreReadOnlyError, StoreUnavailableError
from execugraph.store.fencing import Fence
from execugraph.store.models import (
    EXECUTION_PURPOSES,
    FEEDBACK_SOURCES,
    GRADING_PROTOCOLS,
    RUN_KINDS,
    RUN_STATUSES,
    TEST_SOURCES,
    TRIAL_STATUSES,
    EndpointWait,
    Execution,
    LLMCacheEntry,
    LLMCall,
    ProblemRecord,
    RetrievalHit,
    Run,
    Step,
    Trial,
    utcnow,
)
from execugraph.store.provenance import hostname, runtime_versions
from execugraph.store.retry import DEFAULT_POLICY, RetryPolicy, run_with_retry

# Allowed values of the enumerated columns, checked on every write.
_CHOICES: dict[tuple[str, str], tuple[str, ...]] = {
    ("run", "kind"): RUN_KINDS,
    ("run", "status"): RUN_STATUSES,
    ("trial", "status"): TRIAL_STATUSES,
    ("trial", "test_source"): TEST_SOURCES,
    ("trial", "feedback_source"): FEEDBACK_SOURCES,
    ("trial", "grading_protocol"): GRADING_PROTOCOLS,
    ("execution", "purpose"): EXECUTION_PURPOSES,
}
_TRIAL_KEY = trial_queue.KEY_COLUMNS
_ENSURE_OPTIONAL = tuple(trial_queue.OPTIONAL_COLUMNS)
T = TypeVar("T")
_KEY_TYPES = {"problem_id": str, "condition": str, "seed": int, "trial_index": int, "category": str, "benchmark": str}


__all__ = ["DuplicateTrialError", "Store", "StoreReadOnlyError", "StoreUnavailableError"]


class DuplicateTrialError(ValueError):
    """A trial with the same (run, problem, condition, seed, trial index) already exists."""


def _table(model: type[SQLModel]) -> Table:
    return model.__table__  # type: ignore[attr-defined,no-any-return]


def _check_fields(model: type[SQLModel], fields: dict[str, Any], *, frozen: Iterable[str] = ("id",)) -> None:
    """Reject field names the table does not have (or must not be set), and bad enum values."""
    table = _table(model)
    columns = set(table.columns.keys()) - set(frozen)
    unknown = sorted(set(fields) - columns)
    if unknown:
        raise ValueError(
            f"{model.__name__} has no settable field {', '.join(map(repr, unknown))}; "
            f"settable fields: {', '.join(sorted(columns))}"
        )
    for name, value in fields.items():
        allowed = _CHOICES.get((table.name, name))
        if allowed is not None and value is not None and value not in allowed:
            raise ValueError(f"{model.__name__}.{name} must be one of {', '.join(allowed)}; got {value!r}")
        if allowed is not None and value is None and not table.c[name].nullable:
            raise ValueError(f"{model.__name__}.{name} must be one of {', '.join(allowed)}; got None")
        if isinstance(value, datetime) and value.utcoffset() is None:
            raise ValueError(
                f"{model.__name__}.{name} must be a timezone-aware datetime (use store.utcnow()); got {value!r}"
            )


def _check_tags(tags: Any) -> list[str]:
    if not isinstance(tags, (list, tuple)) or not all(isinstance(t, str) for t in tags):
        raise ValueError(f"tags must be a list of strings; got {tags!r}")
    cleaned: list[str] = []
    for tag in (t.strip() for t in tags):
        if tag and tag not in cleaned:
            cleaned.append(tag)
    return cleaned


def _check_messages(messages: Any) -> None:
    if not isinstance(messages, list) or not all(
        isinstance(m, dict) and "role" in m and "content" in m for m in messages
    ):
        raise ValueError("LLMCall.messages must be a list of {'role': ..., 'content': ...} dicts")


def _lock_trial_for_steps(session: Session, trial_id: int) -> Any:
    """Lock the trial (row lock on PostgreSQL; SQLite's write lock is already held) and return the
    SELECT of its next step number, so concurrent writers never share a `seq`."""
    trials, steps = _table(Trial), _table(Step)
    locked = session.exec(select(trials.c.id).where(trials.c.id == trial_id).with_for_update(key_share=True)).first()
    if locked is None:
        raise LookupError(f"trial {trial_id} does not exist")
    return select(func.coalesce(func.max(steps.c.seq), 0) + 1).where(steps.c.trial_id == trial_id)


class Store:
    """The run store on one database; create with `Store.open()` or `Store(engine)`.

    Every write transaction is retried on transient database errors (a lock held
    by another process, a dropped connection) under `retry_policy`; see `retry`.
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
        if migrate and not read_only:
            try:
                migrations.migrate(engine)
            except OperationalError as exc:
                engine.dispose()
                from execugraph.store.opening import describe_failure

                raise StoreUnavailableError(describe_failure(exc, self.url, engine.url)) from exc
            except BaseException:
                engine.dispose()
                raise

    @classmethod
    def open(cls, db: str | None = None) -> Store:
        """Open (creating and migrating as needed) the store at `db`, EXECUGRAPH_DB or ./runs.db.

        A bad `db` raises StoreUnavailableError with one sentence to show the user;
        an existing SQLite file on read-only storage opens read-only (`read_only`).
        """
        from execugraph.store.opening import open_database, require_current_schema

        opened = open_database(load_settings(db).db_url)
        if opened.read_only:
            try:
                require_current_schema(opened)
            except BaseException:
                opened.engine.dispose()
                raise
        store = cls(opened.engine, read_only=opened.read_only, read_only_note=opened.note)
        store._where = opened.where
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

    def schema_version(self) -> str | None:
        """Name of the newest migration applied to this database."""
        return migrations.schema_version(self.engine)

    def close(self) -> None:
        """Close pooled connections; the Store must not be used afterwards."""
        self.engine.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- attempts ---------------------------------------------------------------

    def fenced(self, trial_id: int, token: datetime, guard: Callable[[], None] | None = None) -> Store:
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

    def _transact(self, what: str, work: Callable[[Session], T]) -> T:
        """Run `work(session)` as one write transaction, committed on return, retried as a whole on
        transient errors; under a fence the attempt's token is checked first, in the same transaction."""
        fence = self._fence

        def attempt() -> T:
            if fence is not None:
                fence.before_write()
            with Session(self._writer, expire_on_commit=False) as session, session.begin():
                if fence is not None:
                    fence.check(session.connection())
                return work(session)

        return run_with_retry(attempt, what=what, policy=self.retry_policy)

    def _exists(self, model: type[SQLModel], ident: Any) -> bool:
        with self._read() as session:
            return session.get(model, ident) is not None

    def _update(self, model: type[SQLModel], ident: int, fields: dict[str, Any]) -> None:
        table = _table(model)

        def work(session: Session) -> None:
            result = session.exec(update(table).where(table.c.id == ident).values(**fields))
            if result.rowcount == 0:  # type: ignore[attr-defined]
                raise LookupError(f"{model.__name__} {ident} does not exist")

        self._transact(f"update {model.__name__} {ident}", work)

    def _insert_child(self, make: Callable[[], SQLModel], *, trial_id: int, step_id: int | None) -> int:
        """Insert a row under a trial (and optionally a step), naming a missing parent clearly."""
        self._own(trial_id)

        def work(session: Session) -> int:
            row = make()
            session.add(row)
            session.flush()
            return int(row.id)  # type: ignore[attr-defined]

        try:
            return self._transact(f"store a trace row of trial {trial_id}", work)
        except IntegrityError as exc:
            if not self._exists(Trial, trial_id):
                raise LookupError(f"trial {trial_id} does not exist") from exc
            if step_id is not None and not self._exists(Step, step_id):
                raise LookupError(f"step {step_id} does not exist") from exc
            raise ValueError(f"cannot store a trace row for trial {trial_id}: {exc.orig}") from exc

    # -- runs -----------------------------------------------------------------

    def create_run(
        self,
        kind: str,
        title: str,
        config: dict[str, Any],
        benchmark: str | None = None,
        models: dict[str, Any] | None = None,
        parent_run_id: int | None = None,
        status: str = "queued",
        versions: dict[str, Any] | None = None,
        host: str | None = None,
        tags: list[str] | None = None,
    ) -> int:
        """Record a new run and return its id; versions and host default to this process's."""
        if not isinstance(config, dict):
            raise ValueError(f"Run.config must be a dict; got {type(config).__name__}")
        if models is not None and not isinstance(models, dict):
            raise ValueError(f"Run.models must be a dict of role -> model; got {type(models).__name__}")
        fields = {"kind": kind, "status": status}
        _check_fields(Run, fields)
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
            tags=_check_tags(tags or []),
        )

        def work(session: Session) -> int:
            run = Run(**values)
            session.add(run)
            session.flush()
            return int(run.id)  # type: ignore[arg-type]

        try:
            return self._transact("create a run", work)
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
        _check_fields(Run, fields)
        if "tags" in fields:
            fields["tags"] = _check_tags(fields["tags"])
        if fields:
            self._update(Run, run_id, fields)

    def list_runs(
        self,
        kind: str | None = None,
        status: str | None = None,
        benchmark: str | None = None,
        model: str | None = None,
        text: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        tag: str | None = None,
        limit: int = 200,
        offset: int = 0,
    ) -> list[Run]:
        """Runs newest first, filtered; `model` and `text` (title/benchmark) match substrings, any case."""
        clauses = queries.run_filters(
            self._dialect,
            kind=kind,
            status=status,
            benchmark=benchmark,
            model=model,
            text=text,
            since=since,
            until=until,
            tag=tag,
        )
        stmt = select(Run).where(*clauses).order_by(_table(Run).c.id.desc()).limit(limit).offset(offset)
        with self._read() as session:
            return list(session.exec(stmt))

    def delete_run(self, run_id: int) -> bool:
        """Delete a run with its trials, steps, LLM calls, executions and hits; False if it did not exist.

        Runs derived from it (rescores) are kept and lose their parent link.
        """
        trial_ids = select(_table(Trial).c.id).where(_table(Trial).c.run_id == run_id).scalar_subquery()

        def work(session: Session) -> bool:
            session.exec(delete(_table(EndpointWait)).where(_table(EndpointWait).c.run_id == run_id))
            for child in (LLMCall, Execution, RetrievalHit, Step):
                table = _table(child)
                session.exec(delete(table).where(table.c.trial_id.in_(trial_ids)))
            session.exec(delete(_table(Trial)).where(_table(Trial).c.run_id == run_id))
            runs = _table(Run)
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

    # -- trials ---------------------------------------------------------------

    def create_trial(
        self,
        run_id: int,
        problem_id: str,
        condition: str,
        seed: int,
        trial_index: int,
        category: str = "",
        benchmark: str = "",
        status: str = "running",
        feedback_source: str | None = None,
    ) -> int:
        """Record a trial (started now unless queued) and return its id; DuplicateTrialError if its key exists."""
        fields = {"status": status, "feedback_source": feedback_source}
        _check_fields(Trial, fields)

        def work(session: Session) -> int:
            trial = Trial(
                run_id=run_id,
                problem_id=problem_id,
                condition=condition,
                seed=seed,
                trial_index=trial_index,
                category=category,
                benchmark=benchmark,
                status=status,
                feedback_source=feedback_source,
                started_at=None if status == "queued" else utcnow(),
            )
            session.add(trial)
            session.flush()
            return int(trial.id)  # type: ignore[arg-type]

        try:
            return self._transact(f"create a trial of run {run_id}", work)
        except IntegrityError as exc:
            if not self._exists(Run, run_id):
                raise LookupError(f"run {run_id} does not exist") from exc
            existing = self.find_trial(run_id, problem_id, condition, seed, trial_index)
            if existing is not None:
                raise DuplicateTrialError(
                    f"trial {existing.id} already exists for run {run_id}, problem {problem_id!r}, "
                    f"condition {condition!r}, seed {seed}, trial index {trial_index}"
                ) from exc
            raise ValueError(f"cannot create trial: {exc.orig}") from exc

    def ensure_trials(self, run_id: int, keys: list[dict[str, Any]]) -> int:
        """Queue a trial for every key not already in the run; return how many were new.

        Each key needs problem_id, condition, seed and trial_index, and may carry
        category, benchmark, feedback_source and test_source. Idempotent: calling
        again with the same keys (a resumed batch) inserts nothing.
        """
        for index, key in enumerate(keys):
            missing = [k for k in _TRIAL_KEY if key.get(k) is None]
            extra = sorted(set(key) - set(_TRIAL_KEY) - set(_ENSURE_OPTIONAL))
            if missing or extra:
                problem = f"missing {', '.join(missing)}" if missing else f"unexpected {', '.join(extra)}"
                raise ValueError(f"trial key #{index} ({key!r}): {problem}")
            for name, kind in _KEY_TYPES.items():
                value = key.get(name, "")
                if not isinstance(value, kind) or isinstance(value, bool):
                    raise ValueError(f"trial key #{index}: {name} must be {kind.__name__}; got {value!r}")
            for name, allowed in (("feedback_source", FEEDBACK_SOURCES), ("test_source", TEST_SOURCES)):
                if key.get(name) is not None and key[name] not in allowed:
                    raise ValueError(
                        f"trial key #{index}: {name} must be one of {', '.join(allowed)}; got {key[name]!r}"
                    )
        if not keys:
            return 0
        if not self._exists(Run, run_id):
            raise LookupError(f"run {run_id} does not exist")
        return self._transact(
            f"queue the trials of run {run_id}",
            lambda session: trial_queue.insert_queued_trials(session.connection(), _table(Trial), run_id, keys),
        )

    def get_trial(self, trial_id: int) -> Trial | None:
        """The trial, or None."""
        with self._read() as session:
            return session.get(Trial, trial_id)

    def find_trial(self, run_id: int, problem_id: str, condition: str, seed: int, trial_index: int) -> Trial | None:
        """The trial with this unique key, or None."""
        stmt = select(Trial).where(
            Trial.run_id == run_id,
            Trial.problem_id == problem_id,
            Trial.condition == condition,
            Trial.seed == seed,
            Trial.trial_index == trial_index,
        )
        with self._read() as session:
            return session.exec(stmt).first()

    def update_trial(self, trial_id: int, **fields: Any) -> None:
        """Set the given Trial columns."""
        self._own(trial_id)
        _check_fields(Trial, fields)
        if fields:
            self._update(Trial, trial_id, fields)

    def finish_trial(self, trial_id: int, **fields: Any) -> None:
        """Set the given columns and finished_at (now unless given); status becomes done unless given."""
        fields.setdefault("status", "done")
        fields.setdefault("finished_at", utcnow())
        self.update_trial(trial_id, **fields)

    def trials_for_run(self, run_id: int, status: str | None = None) -> list[Trial]:
        """A run's trials in creation order, optionally only those with `status`."""
        stmt = select(Trial).where(Trial.run_id == run_id)
        if status is not None:
            stmt = stmt.where(Trial.status == status)
        with self._read() as session:
            return list(session.exec(stmt.order_by(_table(Trial).c.id)))

    # -- steps ----------------------------------------------------------------

    def add_step(self, trial_id: int, node: str, attempt: int = 0, output: dict[str, Any] | None = None) -> int:
        """Record that `node` started in the trial; return the step id. `seq` is the next number in the trial.

        The number is taken under the trial's row lock (PostgreSQL) or the
        database write lock (SQLite), so concurrent writers never collide.
        """
        self._own(trial_id)
        steps = _table(Step)

        def work(session: Session) -> int:
            next_seq = _lock_trial_for_steps(session, trial_id)
            result = session.exec(
                insert(steps).values(
                    trial_id=trial_id,
                    seq=next_seq.scalar_subquery(),
                    node=node,
                    attempt=attempt,
                    started_at=utcnow(),
                    output=output,
                )
            )
            return int(result.inserted_primary_key[0])  # type: ignore[index]

        return self._transact(f"add a {node} step to trial {trial_id}", work)

    def record_step(
        self,
        trial_id: int,
        node: str,
        attempt: int = 0,
        *,
        started_at: datetime,
        ended_at: datetime | None = None,
        output: dict[str, Any] | None = None,
        llm_calls: Iterable[dict[str, Any]] = (),
        executions: Iterable[dict[str, Any]] = (),
        hits: Iterable[dict[str, Any]] = (),
    ) -> int:
        """Write a finished step with its LLM calls, executions and retrieval hits in ONE transaction.

        The agent loop's hot path: one commit per node instead of one per row, and a
        crash still loses at most the step in flight. Returns the step id.
        """
        calls, runs, found = list(llm_calls), list(executions), list(hits)
        for model, rows, frozen in ((LLMCall, calls, ("id", "trial_id", "step_id")),
                                    (Execution, runs, ("id", "trial_id", "step_id")),
                                    (RetrievalHit, found, ("id", "trial_id"))):
            for index, row in enumerate(rows):
                try:
                    _check_fields(model, row, frozen=frozen)
                except ValueError as exc:
                    raise ValueError(f"{model.__name__} #{index} of step {node!r}: {exc}") from exc
        for call in calls:
            if "messages" in call:
                _check_messages(call["messages"])
        _check_fields(Step, {"started_at": started_at, "ended_at": ended_at})
        self._own(trial_id)

        def work(session: Session) -> int:
            seq = session.exec(_lock_trial_for_steps(session, trial_id)).one()
            step = Step(trial_id=trial_id, seq=int(seq[0] if isinstance(seq, tuple) else seq), node=node,
                        attempt=attempt, started_at=started_at, ended_at=ended_at, output=output)
            session.add(step)
            session.flush()
            step_id = int(step.id)  # type: ignore[arg-type]
            session.add_all([LLMCall(trial_id=trial_id, step_id=step_id, **c) for c in calls])
            session.add_all([Execution(trial_id=trial_id, step_id=step_id, **e) for e in runs])
            session.add_all([RetrievalHit(trial_id=trial_id, **h) for h in found])
            return step_id

        return self._transact(f"record the {node} step of trial {trial_id}", work)

    def finish_step(self, step_id: int, output: dict[str, Any] | None = None) -> None:
        """Mark the step ended now, replacing its output when one is given."""
        fields: dict[str, Any] = {"ended_at": utcnow()}
        if output is not None:
            fields["output"] = output
        self._update(Step, step_id, fields)

    def steps_for_trial(self, trial_id: int) -> list[Step]:
        """The trial's steps in `seq` order."""
        with self._read() as session:
            return list(session.exec(select(Step).where(Step.trial_id == trial_id).order_by(_table(Step).c.seq)))

    # -- LLM calls, executions, retrieval hits ---------------------------------

    def add_llm_call(self, trial_id: int, step_id: int | None = None, **fields: Any) -> int:
        """Record one chat completion (role, provider, model, messages, response, tokens, ...); return its id."""
        _check_fields(LLMCall, fields, frozen=("id", "trial_id", "step_id"))
        if "messages" in fields:
            _check_messages(fields["messages"])
        return self._insert_child(
            lambda: LLMCall(trial_id=trial_id, step_id=step_id, **fields), trial_id=trial_id, step_id=step_id
        )

    def llm_calls_for_trial(self, trial_id: int) -> list[LLMCall]:
        """The trial's LLM calls in the order they were made."""
        with self._read() as session:
            stmt = select(LLMCall).where(LLMCall.trial_id == trial_id).order_by(_table(LLMCall).c.id)
            return list(session.exec(stmt))

    def llm_calls_for_step(self, step_id: int) -> list[LLMCall]:
        """The step's LLM calls in the order they were made."""
        with self._read() as session:
            stmt = select(LLMCall).where(LLMCall.step_id == step_id).order_by(_table(LLMCall).c.id)
            return list(session.exec(stmt))

    def add_execution(self, trial_id: int, step_id: int | None = None, **fields: Any) -> int:
        """Record one sandbox execution (purpose, code, verdict, results, ...); return its id."""
        _check_fields(Execution, fields, frozen=("id", "trial_id", "step_id"))
        if "results" in fields and not isinstance(fields["results"], list):
            raise ValueError(
                f"Execution.results must be a list of per-test dicts; got {type(fields['results']).__name__}"
            )
        return self._insert_child(
            lambda: Execution(trial_id=trial_id, step_id=step_id, **fields), trial_id=trial_id, step_id=step_id
        )

    def executions_for_trial(self, trial_id: int) -> list[Execution]:
        """The trial's sandbox executions in the order they ran."""
        with self._read() as session:
            stmt = select(Execution).where(Execution.trial_id == trial_id).order_by(_table(Execution).c.id)
            return list(session.exec(stmt))

    def executions_for_step(self, step_id: int) -> list[Execution]:
        """The step's sandbox executions in the order they ran."""
        with self._read() as session:
            stmt = select(Execution).where(Execution.step_id == step_id).order_by(_table(Execution).c.id)
            return list(session.exec(stmt))

    def add_retrieval_hits(self, trial_id: int, hits: list[dict[str, Any]]) -> int:
        """Record the techniques retrieved for a trial (technique_id, technique_name, score, rank, query)."""
        for index, hit in enumerate(hits):
            try:
                _check_fields(RetrievalHit, hit, frozen=("id", "trial_id"))
            except ValueError as exc:
                raise ValueError(f"retrieval hit #{index}: {exc}") from exc
            if "technique_id" not in hit:
                raise ValueError(f"retrieval hit #{index} has no technique_id")
        if not hits:
            return 0
        self._own(trial_id)
        try:
            self._transact(
                f"store the retrieval hits of trial {trial_id}",
                lambda session: session.add_all([RetrievalHit(trial_id=trial_id, **hit) for hit in hits]),
            )
            return len(hits)
        except IntegrityError as exc:
            if not self._exists(Trial, trial_id):
                raise LookupError(f"trial {trial_id} does not exist") from exc
            raise ValueError(f"cannot store retrieval hits for trial {trial_id}: {exc.orig}") from exc

    def hits_for_trial(self, trial_id: int) -> list[RetrievalHit]:
        """The trial's retrieval hits, best rank first."""
        table = _table(RetrievalHit)
        with self._read() as session:
            stmt = select(RetrievalHit).where(RetrievalHit.trial_id == trial_id).order_by(table.c.rank, table.c.id)
            return list(session.exec(stmt))

    # -- problems and the LLM cache -------------------------------------------

    def _upsert(self, model: type[SQLModel], values: dict[str, Any], key: list[str]) -> None:
        table = _table(model)

        def work(session: Session) -> None:
            if self._dialect in ("sqlite", "postgresql"):
                dialect_insert = sqlite.insert if self._dialect == "sqlite" else postgresql.insert
                stmt = dialect_insert(table).values(**values)
                changes = {name: stmt.excluded[name] for name in values if name not in key}
                session.exec(stmt.on_conflict_do_update(index_elements=key, set_=changes))
            else:
                session.merge(model(**values))

        self._transact(f"store a {model.__name__}", work)

    def upsert_problem(self, problem: Problem) -> None:
        """Store `problem`, replacing an earlier copy with the same benchmark and id."""
        record = ProblemRecord.from_problem(problem)
        self._upsert(ProblemRecord, record.model_dump(), ["benchmark", "problem_id"])

    def get_problem(self, benchmark: str, problem_id: str) -> Problem | None:
        """The stored Problem, or None."""
        with self._read() as session:
            record = session.get(ProblemRecord, (benchmark, problem_id))
        return None if record is None else record.to_problem()

    def cache_get(self, key: str) -> LLMCacheEntry | None:
        """The cached completion for `key`, or None."""
        with self._read() as session:
            return session.get(LLMCacheEntry, key)

    def cache_put(self, key: str, provider: str, model: str, response: str, tokens_in: int, tokens_out: int) -> None:
        """Cache a completion under `key` (a later put with the same key replaces it)."""
        values = {
            "key": key,
            "provider": provider,
            "model": model,
            "response": response,
            "tokens_in": tokens_in,
            "tokens_out": tokens_out,
            "created_at": utcnow(),
        }
        self._upsert(LLMCacheEntry, values, ["key"])

    # -- summaries ------------------------------------------------------------

    def run_progress(self, run_id: int) -> dict[str, int]:
        """Trial counts by status plus passed and finished, counted in SQL (see queries.run_progress)."""
        with self.engine.connect() as conn:
            return queries.run_progress(conn, run_id)

    def run_summary(self, run_id: int) -> dict[str, Any]:
        """Pass rates and costs overall, per condition, per category and per pair (see queries.run_summary)."""
        with self.engine.connect() as conn:
            return queries.run_summary(conn, run_id)

    # -- endpoint waits (see waits.py) ------------------------------------------

    def note_endpoint_down(self, run_id: int, endpoint: str, since: datetime, last_error: str) -> None:
        """Record that the run's trials wait on `endpoint`, unreachable since `since` (refreshes an existing wait)."""
        _check_fields(EndpointWait, {"since": since})
        waits.note_down(self.engine, run_id, endpoint, since, last_error)

    def note_endpoint_up(self, run_id: int, endpoint: str) -> None:
        """`endpoint` answered again: the run no longer waits on it."""
        waits.note_up(self.engine, run_id, endpoint)

    def clear_endpoint_waits(self, run_id: int) -> None:
        """Forget every endpoint wait of the run."""
        waits.clear(self.engine, run_id)

    def endpoint_waits(self, run_ids: Iterable[int]) -> dict[int, list[dict[str, Any]]]:
        """Live waits per run (oldest outage first); waits whose writer stopped refreshing them are left out."""
        return waits.current(self.engine, list(run_ids))
