"""A trial's trace rows: steps (numbered under the trial's lock), LLM calls, sandbox executions, retrieval hits."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, func
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, SQLModel, select

from execugraph.domain.json_types import JsonObject
from execugraph.store.models import Execution, LLMCall, RetrievalHit, Step, Trial
from execugraph.store.row_fields import ExecutionFields, HitFields, LLMCallFields
from execugraph.store.step_groups import PendingStep
from execugraph.store.step_rows import StepRows
from execugraph.store.transactions import StoreCore
from execugraph.store.validation import check_fields, check_messages, table_of


def _lock_trial_for_steps(session: Session, trial_id: int) -> Any:
    """Lock the trial (row lock on PostgreSQL; SQLite's write lock is already held) and return the
    SELECT of its next step number, so concurrent writers never share a `seq`."""
    trials, steps = table_of(Trial), table_of(Step)
    locked = session.exec(select(trials.c.id).where(trials.c.id == trial_id).with_for_update(key_share=True)).first()
    if locked is None:
        raise LookupError(f"trial {trial_id} does not exist")
    return select(func.coalesce(func.max(steps.c.seq), 0) + 1).where(steps.c.trial_id == trial_id)


class TraceRecords(StoreCore):
    """The Store's trace methods (see `Store`)."""

    _step_writes = "core"  # how record_step inserts: "core" (step_rows), or "orm" as before (to compare; see bench)

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


    def record_step(
        self,
        trial_id: int,
        node: str,
        attempt: int = 0,
        *,
        started_at: datetime,
        ended_at: datetime | None = None,
        output: JsonObject | None = None,
        llm_calls: Iterable[LLMCallFields] = (),
        executions: Iterable[ExecutionFields] = (),
        hits: Iterable[HitFields] = (),
    ) -> int:
        """Write a finished step with its LLM calls, executions and retrieval hits in one transaction.

        `output` is the node's step output (`execugraph.domain.steps`) as its JSON column stores it.

        The agent loop's hot path: one commit per node instead of one per row (on SQLite, one for
        all the steps other trials have queued meanwhile: `step_groups`), committed before this
        returns, so a crash still loses at most the step in flight. The rows are Core INSERTs
        (`step_rows`), not ORM objects. Returns the step id.
        """
        calls, runs, found = list(llm_calls), list(executions), list(hits)
        for model, rows, frozen in ((LLMCall, calls, ("id", "trial_id", "step_id")),
                                    (Execution, runs, ("id", "trial_id", "step_id")),
                                    (RetrievalHit, found, ("id", "trial_id"))):
            for index, row in enumerate(rows):
                try:
                    check_fields(model, row, frozen=frozen)
                except ValueError as exc:
                    raise ValueError(f"{model.__name__} #{index} of step {node!r}: {exc}") from exc
        for call in calls:
            if "messages" in call:
                check_messages(call["messages"])
        check_fields(Step, {"started_at": started_at, "ended_at": ended_at})
        self._own(trial_id)
        step = StepRows(trial_id, node, attempt, started_at, ended_at, output, calls, runs, found)
        write = step.write_orm if self._step_writes == "orm" else step.write
        fenced = self._fence is not None  # its check, in the same transaction, locked and found the trial row

        def work(conn: Connection) -> int:  # Core INSERTs (step_rows): no ORM unit of work on the hot path
            return write(conn, trial_locked=fenced)

        what = f"record the {node} step of trial {trial_id}"
        if self._step_groups is not None:  # SQLite: committed with whatever other steps are queued (step_groups)
            return self._step_groups.submit(PendingStep(what, work, step.stored, self._fence), self.retry_policy)
        return self._transact(what, lambda session: work(session.connection()),
                              found=lambda session: step.stored(session.connection()))

    def steps_for_trial(self, trial_id: int) -> list[Step]:
        """The trial's steps in `seq` order."""
        with self._read() as session:
            return list(session.exec(select(Step).where(Step.trial_id == trial_id).order_by(table_of(Step).c.seq)))

    # -- LLM calls, executions, retrieval hits ---------------------------------

    def add_llm_call(self, trial_id: int, step_id: int | None = None, **fields: Any) -> int:
        """Record one chat completion (role, provider, model, messages, response, tokens, ...); return its id."""
        check_fields(LLMCall, fields, frozen=("id", "trial_id", "step_id"))
        if "messages" in fields:
            check_messages(fields["messages"])
        return self._insert_child(
            lambda: LLMCall(trial_id=trial_id, step_id=step_id, **fields), trial_id=trial_id, step_id=step_id
        )

    def llm_calls_for_trial(self, trial_id: int) -> list[LLMCall]:
        """The trial's LLM calls in the order they were made."""
        with self._read() as session:
            stmt = select(LLMCall).where(LLMCall.trial_id == trial_id).order_by(table_of(LLMCall).c.id)
            return list(session.exec(stmt))

    def llm_calls_for_step(self, step_id: int) -> list[LLMCall]:
        """The step's LLM calls in the order they were made."""
        with self._read() as session:
            stmt = select(LLMCall).where(LLMCall.step_id == step_id).order_by(table_of(LLMCall).c.id)
            return list(session.exec(stmt))

    def add_execution(self, trial_id: int, step_id: int | None = None, **fields: Any) -> int:
        """Record one sandbox execution (purpose, code, verdict, results, ...); return its id."""
        check_fields(Execution, fields, frozen=("id", "trial_id", "step_id"))
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
            stmt = select(Execution).where(Execution.trial_id == trial_id).order_by(table_of(Execution).c.id)
            return list(session.exec(stmt))

    def executions_for_step(self, step_id: int) -> list[Execution]:
        """The step's sandbox executions in the order they ran."""
        with self._read() as session:
            stmt = select(Execution).where(Execution.step_id == step_id).order_by(table_of(Execution).c.id)
            return list(session.exec(stmt))

    def hits_for_trial(self, trial_id: int) -> list[RetrievalHit]:
        """The trial's retrieval hits, best rank first."""
        table = table_of(RetrievalHit)
        with self._read() as session:
            stmt = select(RetrievalHit).where(RetrievalHit.trial_id == trial_id).order_by(table.c.rank, table.c.id)
            return list(session.exec(stmt))

