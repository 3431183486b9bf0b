"""When each problem of some runs was released, as far as the store knows: contamination windows read it.

A stored problem keeps its `release_date` (the problem table, from the loader:
LiveCodeBench's `contest_date`, a user suite's `release_date`). An imported trial
keeps the fields its source gave that have no Trial column in its
`reference_record` step (`extra`); LiveCodeBench output imports keep the
problem's `release_date` there. A problem neither dates is absent from the
answer (the caller counts and names it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from sqlalchemy import select

from execugraph.domain.steps import RECORD_NODE
from execugraph.store.models import ProblemRecord, Step, Trial
from execugraph.store.validation import table_of

if TYPE_CHECKING:
    from execugraph.store.store import Store

TRIAL, STEP, PROBLEM = table_of(Trial), table_of(Step), table_of(ProblemRecord)
T, S, P = TRIAL.c, STEP.c, PROBLEM.c


def release_dates(store: Store, run_ids: Sequence[int]) -> dict[str, str]:
    """problem id -> release date (as stored) for the problems of these runs that carry one."""
    stmt = (
        select(T.problem_id, S.output)
        .select_from(STEP.join(TRIAL, S.trial_id == T.id))
        .where(T.run_id.in_([int(r) for r in run_ids]), S.node == RECORD_NODE)
    )
    stored = (
        select(T.problem_id, P.release_date)
        .select_from(TRIAL.join(PROBLEM, (P.benchmark == T.benchmark) & (P.problem_id == T.problem_id)))
        .where(T.run_id.in_([int(r) for r in run_ids]), P.release_date != "")
        .distinct()
    )
    found: dict[str, str] = {}
    with store.engine.connect() as conn:
        for problem_id, date in conn.execute(stored):
            found.setdefault(str(problem_id), str(date))
        for problem_id, output in conn.execute(stmt):
            extra = output.get("extra") if isinstance(output, dict) else None
            date = extra.get("release_date") if isinstance(extra, dict) else None
            if isinstance(date, str) and date:
                found.setdefault(str(problem_id), date)
    return found
