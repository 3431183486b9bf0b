"""Core INSERTs for a finished step and its child rows: the agent loop's hot write path without the ORM's unit of work.

At concurrency 16 the ORM path of `record_step` (model objects, identity map, attribute events, a flush that
sorts and fetches every child row's id) was about a fifth of a trial thread's CPU, all of it under the GIL the
other 15 threads want. Here the step is one INSERT whose `seq` is computed in the same statement, and its LLM
calls, executions and retrieval hits one executemany per table, with every column the ORM wrote: defaults are
filled in from the model's own field defaults, as its constructor would, so the stored rows are the same
(`tests/store/test_step_rows.py` compares them with the ORM path's, kept here as `StepRows.write_orm`). An
attempt's updates of its own trial join the same group commit (`update_in_group`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

from pydantic_core import PydanticUndefined
from sqlalchemy import Connection, bindparam, func, insert, select, update
from sqlmodel import Session, SQLModel

from execugraph.store.fencing import Fence
from execugraph.store.models import Execution, LLMCall, RetrievalHit, Step, Trial
from execugraph.store.retry import RetryPolicy
from execugraph.store.step_groups import PendingStep, StepGroups
from execugraph.store.validation import table_of

STEP, TRIAL = table_of(Step), table_of(Trial)
IDS = ("id", "trial_id", "step_id")

# The trial's row lock (PostgreSQL; SQLite's write lock is already held), and that it exists.
LOCK_TRIAL = select(TRIAL.c.id).where(TRIAL.c.id == bindparam("of_trial")).with_for_update(key_share=True)
NEXT_SEQ = (select(func.coalesce(func.max(STEP.c.seq), 0) + 1)
            .where(STEP.c.trial_id == bindparam("of_trial")).scalar_subquery())
INSERT_STEP = insert(STEP).values(seq=NEXT_SEQ).returning(STEP.c.id)
SAME_STEP = select(STEP.c.id).where(STEP.c.trial_id == bindparam("of_trial"), STEP.c.node == bindparam("of_node"),
                                    STEP.c.attempt == bindparam("of_attempt"),
                                    STEP.c.started_at == bindparam("of_start", type_=STEP.c.started_at.type))
CHILD_INSERTS = {model: insert(table_of(model)) for model in (LLMCall, Execution, RetrievalHit)}


def _defaults(model: type[SQLModel]) -> tuple[dict[str, Any], dict[str, Callable[[], Any]], tuple[str, ...]]:
    """(plain defaults, default factories, required columns) of `model`'s settable columns, as its constructor has them."""
    plain: dict[str, Any] = {}
    factories: dict[str, Callable[[], Any]] = {}
    required: list[str] = []
    for name in table_of(model).columns.keys():
        if name in IDS:
            continue
        field = model.model_fields[name]
        if field.default_factory is not None:
            factories[name] = field.default_factory  # type: ignore[assignment]
        elif field.default is not PydanticUndefined:
            plain[name] = field.default
        else:
            required.append(name)
    return plain, factories, tuple(required)


DEFAULTS = {model: _defaults(model) for model in (LLMCall, Execution, RetrievalHit)}


def complete_rows(model: type[SQLModel], rows: Sequence[Mapping[str, Any]], node: str) -> list[dict[str, Any]]:
    """Each row with every settable column (the model's defaults where it has none); ValueError naming the row and
    field when a column without a default is missing (the ORM path failed on its NOT NULL constraint instead)."""
    plain, factories, required = DEFAULTS[model]
    out = []
    for index, row in enumerate(rows):
        missing = [name for name in required if name not in row]
        if missing:
            raise ValueError(f"{model.__name__} #{index} of step {node!r}: {', '.join(missing)} is required")
        full = dict(plain)
        for name, make in factories.items():
            if name not in row:
                full[name] = make()
        full.update(row)
        out.append(full)
    return out


class StepRows:
    """One step's rows, checked and completed before its transaction; `write` inserts them in a transaction."""

    def __init__(self, trial_id: int, node: str, attempt: int, started_at: datetime, ended_at: datetime | None,
                 output: Any, calls: Sequence[Mapping[str, Any]], runs: Sequence[Mapping[str, Any]],
                 hits: Sequence[Mapping[str, Any]]) -> None:
        self.trial_id, self.node, self.attempt, self.started_at = trial_id, node, attempt, started_at
        self.step = {"trial_id": trial_id, "of_trial": trial_id, "node": node, "attempt": attempt,
                     "started_at": started_at, "ended_at": ended_at, "output": output}
        self.calls = complete_rows(LLMCall, calls, node)
        self.runs = complete_rows(Execution, runs, node)
        self.hits = complete_rows(RetrievalHit, hits, node)

    def write(self, conn: Connection, *, trial_locked: bool) -> int:
        """Insert the step and its children in `conn`'s transaction; the step id. `trial_locked`: a fence check in
        this transaction already locked the trial row and found it (else it is locked here, LookupError if gone)."""
        if not trial_locked and conn.execute(LOCK_TRIAL, {"of_trial": self.trial_id}).first() is None:
            raise LookupError(f"trial {self.trial_id} does not exist")
        step_id = int(conn.execute(INSERT_STEP, self.step).scalar_one())
        for model, rows, linked in ((LLMCall, self.calls, True), (Execution, self.runs, True),
                                    (RetrievalHit, self.hits, False)):
            if rows:
                ids = {"trial_id": self.trial_id, "step_id": step_id} if linked else {"trial_id": self.trial_id}
                conn.execute(CHILD_INSERTS[model], [{**row, **ids} for row in rows])
        return step_id

    def stored(self, conn: Connection) -> int | None:
        """The id of this very step if it is already stored (a rerun after a commit whose answer was lost)."""
        found = conn.execute(SAME_STEP, {"of_trial": self.trial_id, "of_node": self.node,
                                         "of_attempt": self.attempt, "of_start": self.started_at}).first()
        return None if found is None else int(found[0])

    def write_orm(self, conn: Connection, *, trial_locked: bool) -> int:
        """The same rows through the ORM (model objects flushed by a Session on `conn`), as `record_step` wrote them
        before; kept to compare the two paths' rows and speeds (`bench/batch.py --modes warm-orm`)."""
        del trial_locked  # the ORM path always locked the trial
        with Session(bind=conn, expire_on_commit=False) as session:
            locked = session.execute(LOCK_TRIAL, {"of_trial": self.trial_id}).first()
            if locked is None:
                raise LookupError(f"trial {self.trial_id} does not exist")
            seq = session.execute(select(func.coalesce(func.max(STEP.c.seq), 0) + 1)
                                  .where(STEP.c.trial_id == self.trial_id)).scalar_one()
            fields = {k: v for k, v in self.step.items() if k != "of_trial"}
            step = Step(seq=int(seq), **fields)
            session.add(step)
            session.flush()
            step_id = int(step.id)  # type: ignore[arg-type]
            session.add_all([LLMCall(step_id=step_id, trial_id=self.trial_id, **c) for c in self.calls])
            session.add_all([Execution(step_id=step_id, trial_id=self.trial_id, **e) for e in self.runs])
            session.add_all([RetrievalHit(trial_id=self.trial_id, **h) for h in self.hits])
            session.flush()
            return step_id


def update_in_group(groups: StepGroups, fence: Fence, policy: RetryPolicy, trial_id: int,
                    fields: Mapping[str, Any]) -> None:
    """An attempt's update of its own trial (`update_trial`: running, finished), committed with the steps other
    trials queued meanwhile instead of in a transaction of its own: fenced and committed before it returns, as
    `_transact` would, with one Core UPDATE and no Session."""
    stmt = update(TRIAL).where(TRIAL.c.id == trial_id).values(**fields)

    def work(conn: Connection) -> int:
        if conn.execute(stmt).rowcount == 0:
            raise LookupError(f"Trial {trial_id} does not exist")
        return trial_id

    groups.submit(PendingStep(f"update Trial {trial_id}", work, lambda conn: None, fence, counted=False), policy)
