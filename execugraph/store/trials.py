"""Trial records: create one, queue a whole grid idempotently, find, update, finish and list trials."""

from __future__ import annotations

from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from execugraph.store import trial_queue
from execugraph.store.models import FEEDBACK_SOURCES, TEST_SOURCES, Run, Trial, utcnow
from execugraph.store.step_rows import update_in_group
from execugraph.store.transactions import StoreCore
from execugraph.store.trial_queue import TrialKey
from execugraph.store.validation import KEY_TYPES, check_fields, table_of

_TRIAL_KEY = trial_queue.KEY_COLUMNS
_ENSURE_OPTIONAL = tuple(trial_queue.OPTIONAL_COLUMNS)


class DuplicateTrialError(ValueError):
    """A trial with the same (run, problem, condition, seed, trial index) already exists."""


class TrialRecords(StoreCore):
    """The Store's trial methods (see `Store`)."""

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
        check_fields(Trial, fields)

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

    def ensure_trials(self, run_id: int, keys: list[TrialKey]) -> int:
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
            for name, kind in KEY_TYPES.items():
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
            lambda session: trial_queue.insert_queued_trials(session.connection(), table_of(Trial), run_id, keys),
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
        check_fields(Trial, fields)
        if fields and self._step_groups is not None and self._fence is not None:  # SQLite: with the steps queued
            update_in_group(self._step_groups, self._fence, self.retry_policy, trial_id, fields)  # (step_rows)
        elif fields:
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
            return list(session.exec(stmt.order_by(table_of(Trial).c.id)))

