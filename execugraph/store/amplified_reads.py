"""Reads of stored amplified benchmark versions (`<benchmark>+amplified:<digest>`), one query each.

Why: `rescore --suite amplified` must find the stronger versions of a run's benchmark in the
store the run lives in, not on the machine that made them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlalchemy import func, select

from execugraph.store.models import ProblemRecord
from execugraph.store.validation import table_of

if TYPE_CHECKING:
    from execugraph.store.store import Store

P = table_of(ProblemRecord).c


def benchmarks_with_prefix(store: Store, prefix: str) -> dict[str, int]:
    """Stored benchmark name -> problem count, for names starting with `prefix`."""
    escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    stmt = (select(P.benchmark, func.count()).where(P.benchmark.like(f"{escaped}%", escape="\\"))
            .group_by(P.benchmark).order_by(P.benchmark))
    with store.engine.connect() as conn:
        return {str(name): int(n) for name, n in conn.execute(stmt)}


def passing_programs(store: Store, benchmark: str, problem_id: str, limit: int = 20) -> list[str]:
    """Distinct final programs of passed trials of one problem (newest first), at most `limit`."""
    from execugraph.store.models import Trial

    T = table_of(Trial).c
    stmt = (select(T.final_code, func.max(T.id)).where(T.benchmark == benchmark, T.problem_id == problem_id,
                                                        T.passed.is_(True), T.final_code.is_not(None))
            .group_by(T.final_code).order_by(func.max(T.id).desc()).limit(limit))
    with store.engine.connect() as conn:
        return [str(code) for code, _ in conn.execute(stmt) if str(code or "").strip()]


def problem_ids(store: Store, benchmark: str) -> list[str]:
    """The ids of one stored benchmark version's problems, sorted."""
    stmt = select(P.problem_id).where(P.benchmark == benchmark).order_by(P.problem_id)
    with store.engine.connect() as conn:
        return [str(pid) for pid, in conn.execute(stmt)]
