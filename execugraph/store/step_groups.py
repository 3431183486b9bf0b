"""Group commit for step rows: concurrent trials' finished steps share one SQLite write transaction.

Sixteen trial threads each committing their own step queue on SQLite's write lock, whose
busy handler sleeps between tries. Here a thread that finishes a step puts it in a queue
and waits for the process's step lock; whoever holds it writes every step queued so far in
one transaction (each in its own SAVEPOINT, fenced as `_transact` would fence it, all the group's fences
by one SELECT at its start), commits,
and hands each waiter its step id or its error. `record_step` still returns only after its
step is committed, so a crash loses at most the steps in flight, as before; only the number
of transactions falls. PostgreSQL, whose writers do not queue on one lock, keeps one
transaction per step.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy import Connection, Engine
from sqlmodel import Session

from execugraph.store.engine import writer
from execugraph.store.fencing import Fence, check_all
from execugraph.store.retry import RetryPolicy, is_transient, run_with_retry

MAX_GROUP = 64  # steps per transaction at most, so one commit never holds the write lock for long


@dataclass(eq=False)
class PendingStep:
    """One step waiting for its group's commit: how to write it, how a rerun finds it, its fence."""

    what: str
    work: Callable[[Connection], int]
    found: Callable[[Connection], int | None]
    fence: Fence | None
    counted: bool = True  # a step row (False: an attempt's trial update riding the same commit, `update_trial`)
    done: bool = False
    step_id: int | None = None
    error: BaseException | None = None


class StepGroups:
    """One engine's step queue and its lock; `transactions` and `steps` count what was committed."""

    def __init__(self, engine: Engine) -> None:
        self._writer = writer(engine)
        self._queue: list[PendingStep] = []
        self._queue_lock = threading.Lock()
        self._leader = threading.Lock()
        self.transactions = 0
        self.steps = 0
        self.batched_fences = True  # False: one fence SELECT per step, as before (benchmarks compare the two)

    def queued(self) -> int:
        """Steps waiting for a transaction now."""
        with self._queue_lock:
            return len(self._queue)

    def submit(self, step: PendingStep, policy: RetryPolicy) -> int:
        """Queue `step`, write it (with whatever else is queued) unless another thread already did; its id."""
        if step.fence is not None:
            step.fence.before_write()  # may wait for a lease in doubt, outside any transaction
        with self._queue_lock:
            self._queue.append(step)
        while not step.done:
            with self._leader:
                if step.done:
                    break
                with self._queue_lock:
                    group, self._queue = self._queue[:MAX_GROUP], self._queue[MAX_GROUP:]
                self._write(group, policy)
        if step.error is not None:
            raise step.error
        assert step.step_id is not None
        return step.step_id

    def _write(self, group: list[PendingStep], policy: RetryPolicy) -> None:
        """Commit `group` in one transaction (retried as a whole on transient errors); settle every step."""
        attempts = 0

        def attempt() -> dict[PendingStep, int | BaseException]:
            nonlocal attempts
            attempts += 1
            outcome: dict[PendingStep, int | BaseException] = {}
            # one Session per group (its commit hooks fire as `_transact`'s do); the steps write Core statements
            with Session(self._writer, expire_on_commit=False) as session, session.begin():
                conn = session.connection()
                if len(group) == 1:  # alone: no savepoint, its error rolls the transaction back (as `_transact`)
                    (step,) = group
                    if step.fence is not None:
                        step.fence.check(conn)
                    prior = step.found(conn) if attempts > 1 else None
                    outcome[step] = prior if prior is not None else step.work(conn)
                    return outcome
                # every fence checked by one SELECT in this transaction (the write lock held: nobody can re-queue a
                # trial between it and the writes); a superseded attempt's step is refused without a savepoint
                fenced = [step for step in group if step.fence is not None and self.batched_fences]
                refused = dict(zip(fenced, check_all(conn, [step.fence for step in fenced if step.fence is not None]), strict=True))
                for step in group:
                    if refused.get(step) is not None:
                        outcome[step] = refused[step]
                        continue
                    try:
                        with session.begin_nested():
                            if step.fence is not None and not self.batched_fences:
                                step.fence.check(conn)
                            prior = step.found(conn) if attempts > 1 else None
                            outcome[step] = prior if prior is not None else step.work(conn)
                    except Exception as exc:
                        if is_transient(exc):
                            raise  # the whole group is rerun
                        outcome[step] = exc  # this step alone fails; the others still commit
            return outcome

        what = group[0].what if len(group) == 1 else f"record {len(group)} steps ({group[0].what}, ...)"
        try:
            outcome = run_with_retry(attempt, what=what, policy=policy)
        except BaseException as exc:
            for step in group:
                step.error, step.done = exc, True
            raise
        self.transactions += 1
        for step in group:
            result = outcome[step]
            if isinstance(result, BaseException):
                step.error = result
            else:
                step.step_id = result
                self.steps += step.counted
            step.done = True
