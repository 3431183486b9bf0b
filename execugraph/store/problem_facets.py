"""Each problem's difficulty and platform, as far as the store knows: the difficulty and platform breakdowns read it.

A stored problem keeps its `difficulty` (problem table); a LiveCodeBench problem's
platform is its category there (`benchmarks.livecodebench`). An imported LiveCodeBench
output keeps `platform` and `difficulty` in its `reference_record` step's `extra`.
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
PLATFORM_IS_CATEGORY = ("livecodebench",)  # benchmarks whose problems' category is their platform


def problem_facets(store: Store, run_ids: Sequence[int]) -> dict[str, dict[str, str]]:
    """problem id -> {"difficulty": ..., "platform": ...} (only the facets known) for these runs' problems."""
    keys = [int(r) for r in run_ids]
    stored = (
        select(T.problem_id, P.benchmark, P.category, P.difficulty)
        .select_from(TRIAL.join(PROBLEM, (P.benchmark == T.benchmark) & (P.problem_id == T.problem_id)))
        .where(T.run_id.in_(keys))
        .distinct()
    )
    steps = (
        select(T.problem_id, S.output)
        .select_from(STEP.join(TRIAL, S.trial_id == T.id))
        .where(T.run_id.in_(keys), S.node == RECORD_NODE)
    )
    found: dict[str, dict[str, str]] = {}
    with store.engine.connect() as conn:
        for problem_id, benchmark, category, difficulty in conn.execute(stored):
            known = found.setdefault(str(problem_id), {})
            if difficulty:
                known.setdefault("difficulty", str(difficulty))
            if benchmark in PLATFORM_IS_CATEGORY and category:
                known.setdefault("platform", str(category))
        for problem_id, output in conn.execute(steps):
            extra = output.get("extra") if isinstance(output, dict) else None
            if not isinstance(extra, dict):
                continue
            known = found.setdefault(str(problem_id), {})
            for facet in ("difficulty", "platform"):
                if isinstance(extra.get(facet), str) and extra[facet]:
                    known.setdefault(facet, extra[facet])
    return {p: v for p, v in found.items() if v}
