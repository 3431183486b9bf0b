"""Fencing for trial attempts: a superseded attempt may no longer write into its trial.

A Ray worker that the driver gave up on (its actor was reported dead or
unreachable, or the driver lost its run lease) may in rare cases still be
running. Its trial has meanwhile been reset and handed to another worker, so
its late writes would mix two attempts in one trace. Each attempt therefore
carries a token, the trial's `started_at` as the driver set it when it handed
the attempt out; `FencedStore` checks the token before every write of the trial
and finishes the trial with one conditional UPDATE, so a stale attempt stops
with `SupersededError` and can never overwrite the result of a newer one.

What it does not close: a trace row (step, LLM call, execution) written in the
instant between a stale attempt's check and its insert. The driver only
supersedes attempts Ray reported lost, so that needs a worker that Ray calls
dead yet still reaches the database.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import select, update

from execugraph.store.engine import writer
from execugraph.store.models import Trial, utcnow

TRIAL = Trial.__table__  # type: ignore[attr-defined]

# Store methods that write into a trial's trace or result (record_step, add_llm_call, add_execution,
# update_trial, ...), matched by prefix so a write method added to Store later is fenced too.
# Shared, attempt-independent writes (upsert_problem, cache_put) are not fenced.
WRITE_PREFIXES = ("add_", "record_", "finish_", "update_", "create_", "delete_", "set_", "ensure_")


class SupersededError(RuntimeError):
    """This attempt's trial was reset or re-queued by the driver; the attempt must stop writing."""


class FencedStore:
    """A Store view for one attempt of one trial: trial writes go through only while the attempt is current.

    Everything else (reads, the LLM cache, problems) is passed through unchanged.
    """

    def __init__(self, store: Any, trial_id: int, token: datetime) -> None:
        self._store = store
        self.trial_id = trial_id
        self.token = token

    def __getattr__(self, name: str) -> Any:
        target = getattr(self._store, name)
        if name.startswith(WRITE_PREFIXES) and callable(target):

            def fenced(*args: Any, **kwargs: Any) -> Any:
                self.check()
                return target(*args, **kwargs)

            return fenced
        return target

    def is_current(self) -> bool:
        """True while the trial is running under this attempt's token."""
        with self._store.engine.connect() as conn:
            row = conn.execute(select(TRIAL.c.status, TRIAL.c.started_at).where(TRIAL.c.id == self.trial_id)).first()
        return row is not None and row.status == "running" and row.started_at == self.token

    def check(self) -> None:
        """Raise SupersededError unless this attempt still owns the trial."""
        if not self.is_current():
            raise SupersededError(f"trial {self.trial_id}: attempt started {self.token.isoformat()} was superseded")

    def finish_trial(self, trial_id: int, **fields: Any) -> None:
        """Store the result only if this attempt is still current (one conditional UPDATE)."""
        if trial_id != self.trial_id:
            raise ValueError(f"this attempt belongs to trial {self.trial_id}, not {trial_id}")
        unknown = sorted(set(fields) - set(TRIAL.c.keys()))
        if unknown:
            raise ValueError(f"unknown Trial field(s): {', '.join(unknown)}")
        fields.setdefault("status", "done")
        fields.setdefault("finished_at", utcnow())
        with writer(self._store.engine).begin() as conn:
            won = conn.execute(
                update(TRIAL)
                .where(TRIAL.c.id == trial_id, TRIAL.c.status == "running", TRIAL.c.started_at == self.token)
                .values(**fields)
            ).rowcount
        if not won:
            raise SupersededError(f"trial {trial_id}: result of a superseded attempt discarded")
