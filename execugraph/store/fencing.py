"""Fencing for trial attempts: a superseded attempt can never write into its trial.

An attempt of a trial carries a token, the trial's `started_at` as it was when
the attempt claimed the trial. Whenever the trial is handed out again (a dead
worker's trials re-queued by the run's next owner, a Ray attempt reset by the
driver), `started_at` changes, so the old attempt's token stops matching.

`Store.fenced(trial_id, token)` gives the attempt a Store whose every write
transaction first locks the trial row (SQLite: the write lock BEGIN IMMEDIATE
already holds; PostgreSQL: `FOR NO KEY UPDATE`) and checks the token inside
that same transaction, so the check and the write are atomic: between them
nobody can re-queue the trial, and a write that loses the race is refused with
`SupersededError` rather than landing after the trial was wiped. Re-queueing
locks the same rows before it deletes a trace (see `leases`), so a write
committed just before the reset is wiped with the rest.

An optional `guard` runs before each write, outside the transaction: the local
runner uses it to hold an attempt's writes while its run lease is in doubt and
to abandon the attempt once the lease is known to be lost.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, select

from execugraph.store.models import Trial

TRIAL = Trial.__table__  # type: ignore[attr-defined]
# Built once (a statement built per check cost a step more CPU than running it); the row lock as `check` takes it.
MINE = (select(TRIAL.c.status, TRIAL.c.started_at).where(TRIAL.c.id == bindparam("fenced_trial"))
        .with_for_update(key_share=True))
THEIRS = (select(TRIAL.c.id, TRIAL.c.status, TRIAL.c.started_at)
          .where(TRIAL.c.id.in_(bindparam("fenced_trials", expanding=True))).with_for_update(key_share=True))


class SupersededError(RuntimeError):
    """This attempt's trial was re-queued or handed to another attempt; the attempt must stop writing."""


@dataclass(frozen=True)
class Fence:
    """One attempt of one trial: which trial, the attempt's token and an optional pre-write guard."""

    trial_id: int
    token: datetime
    guard: Callable[[], None] | None = None

    def before_write(self) -> None:
        """Run the guard (it may wait, or raise SupersededError)."""
        if self.guard is not None:
            self.guard()

    def check(self, conn: Any) -> None:
        """Lock the trial row in `conn`'s transaction; raise SupersededError unless this attempt owns it."""
        row = conn.execute(MINE, {"fenced_trial": self.trial_id}).first()
        if not self.owns(row):
            raise SupersededError(self.describe(row))

    def owns(self, row: Any) -> bool:
        """Whether the trial's (status, started_at) row says this attempt still holds it."""
        return row is not None and row.status == "running" and row.started_at == self.token

    def describe(self, row: Any) -> str:
        attempt = f"trial {self.trial_id}: attempt started {self.token.isoformat()}"
        if row is None:
            return f"{attempt} was superseded (the trial no longer exists)"
        if row.status != "running":
            return f"{attempt} was superseded (the trial is {row.status} now)"
        return f"{attempt} was superseded (handed out again at {row.started_at.isoformat()})"


def check_all(conn: Any, fences: list[Fence]) -> list[SupersededError | None]:
    """`Fence.check` for several attempts in one statement (`conn`'s transaction locks every trial row); per
    fence, its SupersededError or None where the attempt still owns its trial."""
    if not fences:
        return []
    rows = {row.id: row for row in conn.execute(THEIRS, {"fenced_trials": sorted({f.trial_id for f in fences})})}
    return [None if fence.owns(rows.get(fence.trial_id)) else SupersededError(fence.describe(rows.get(fence.trial_id)))
            for fence in fences]
