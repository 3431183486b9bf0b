"""The one retry policy for transient database errors: every write transaction goes through it.

A backup job holding SQLite's write lock for a minute, a PostgreSQL deadlock or
serialization failure, or a server restart that drops pooled connections are
not reasons to lose a trial. `write_transaction` reruns the whole transaction
(it either committed or left nothing behind) with exponential backoff and
jitter until it goes through or `budget_s` has passed; then it raises
`StoreBusyError`, which names the operation, how long it was tried and the
last error. Errors retrying cannot fix (a constraint, a read-only file, a
wrong password) are raised at once.
"""

from __future__ import annotations

import logging
import random
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from sqlalchemy import Connection, Engine
from sqlalchemy.exc import DBAPIError

from execugraph.store.engine import writer

log = logging.getLogger("execugraph.store")
T = TypeVar("T")
C = TypeVar("C")  # what a write works through: a Connection or a Session

# SQLSTATE classes and codes (PostgreSQL) a later attempt can get past: transaction rollback
# (serialization failure, deadlock), connection exceptions, insufficient resources, lock not
# available, and the server shutting down or starting up.
_TRANSIENT_CLASSES = ("40", "08", "53")
_TRANSIENT_CODES = ("55P03", "57P01", "57P02", "57P03")
SQLITE_TRANSIENT = ("database is locked", "database table is locked", "database is busy")


class StoreBusyError(RuntimeError):
    """A write could not go through within the retry budget: the database stayed locked or unreachable."""


@dataclass(frozen=True)
class RetryPolicy:
    """Backoff for transient errors: `first_delay_s` doubling up to `max_delay_s`, for at most `budget_s`."""

    budget_s: float = 600.0
    first_delay_s: float = 0.05
    max_delay_s: float = 2.0
    log_every_s: float = 30.0

    def delay(self, attempt: int) -> float:
        """Sleep before retry number `attempt` (1-based): exponential, capped, with +-50% jitter."""
        base = min(self.max_delay_s, self.first_delay_s * 2 ** (attempt - 1))
        return base * random.uniform(0.5, 1.5)


DEFAULT_POLICY = RetryPolicy()


def is_transient(exc: BaseException) -> bool:
    """True for errors a later attempt of the same transaction can get past."""
    if isinstance(exc, DBAPIError) and exc.connection_invalidated:
        return True
    orig = getattr(exc, "orig", None) or exc
    if isinstance(orig, sqlite3.OperationalError):
        message = str(orig).lower()
        return any(text in message for text in SQLITE_TRANSIENT)
    sqlstate = getattr(orig, "sqlstate", None)
    if isinstance(sqlstate, str) and sqlstate:
        return sqlstate[:2] in _TRANSIENT_CLASSES or sqlstate in _TRANSIENT_CODES
    # psycopg raises OperationalError without a SQLSTATE when the server went away mid-call
    # or refuses connections while it restarts.
    return type(orig).__name__ == "OperationalError" and type(orig).__module__.startswith("psycopg")


def describe(exc: BaseException) -> str:
    """One line naming the database's complaint (not SQLAlchemy's wrapper text)."""
    orig = getattr(exc, "orig", None) or exc
    first = (str(orig).strip().splitlines() or [type(orig).__name__])[0]
    return f"{type(orig).__name__}: {first}"


def run_with_retry(
    work: Callable[[], T],
    *,
    what: str,
    policy: RetryPolicy | None = None,
    sleep: Callable[[float], Any] = time.sleep,
) -> T:
    """Call `work` until it returns, retrying transient database errors within the policy's budget."""
    policy = policy or DEFAULT_POLICY
    started = time.monotonic()
    attempt = 0
    last_log = started
    while True:
        try:
            return work()
        except Exception as exc:
            if not is_transient(exc):
                raise
            attempt += 1
            elapsed = time.monotonic() - started
            if elapsed >= policy.budget_s:
                raise StoreBusyError(
                    f"{what}: the database stayed unavailable for {elapsed:.0f} s "
                    f"({attempt} attempts; last error {describe(exc)}); nothing of this write was stored"
                ) from exc
            now = time.monotonic()
            if attempt == 1 or now - last_log >= policy.log_every_s:
                last_log = now
                log.warning("%s: %s; retrying (%.0f s so far)", what, describe(exc), elapsed)
            sleep(min(policy.delay(attempt), max(0.0, policy.budget_s - elapsed)))


def write_transaction(
    engine: Engine,
    work: Callable[[Connection], T],
    *,
    what: str,
    policy: RetryPolicy | None = None,
    found: Callable[[Connection], T | None] | None = None,
) -> T:
    """Run `work(conn)` in one write transaction (SQLite: BEGIN IMMEDIATE), retried as a whole.

    `found(conn)`, asked on reruns only, returns what an earlier attempt already stored (or None): a
    commit whose answer was lost (the connection dropped after the server committed) is not rerun.
    """
    reruns = Reruns(found)

    def attempt() -> T:
        with writer(engine).begin() as conn:
            return reruns.run(conn, work)

    return run_with_retry(attempt, what=what, policy=policy)



class Reruns(Generic[C, T]):
    """Counts the attempts of one write and, from the second on, first asks `found` for its result."""

    def __init__(self, found: Callable[[C], T | None] | None) -> None:
        self.found, self.attempts = found, 0

    def run(self, handle: C, work: Callable[[C], T]) -> T:
        self.attempts += 1
        if self.found is not None and self.attempts > 1:
            prior = self.found(handle)
            if prior is not None:
                return prior
        return work(handle)
