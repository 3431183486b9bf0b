"""Suite sensitivity: does each comparison say the same under the original and under stronger (amplified) tests?

Why: a condition that "wins" only because the benchmark's tests let its wrong programs
through is not a win. `rescore --run R --suite amplified` grades a run's programs on the
stored amplified benchmark into a child run (its config records `rescore.tests =
"amplified:<digest>"`); here the family is compared as run and under the "amplified"
verdict set, side by side, through the one engine (`verdicts.compare`). A trial the child
could not regrade keeps its verdict. When a run has no such child it says what to run.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from execugraph.stats.bootstrap import DEFAULT_BOOTSTRAP, DEFAULT_SEED
from execugraph.stats.family import Family
from execugraph.stats.sensitivity_sections import RescoreNeeded, SuiteSensitivity
from execugraph.store import run_reads
from execugraph.verdicts.rescore import AMPLIFIED_TESTS
from execugraph.verdicts.sensitivity import side_by_side
from execugraph.verdicts.verdict_sets import AS_RUN, changed_programs, merge_verdicts, trial_records

if TYPE_CHECKING:
    from execugraph.store import Store

AMPLIFIED = "amplified"


def amplified_child(store: Store, run_id: int) -> tuple[int, str] | None:
    """(child run, its `amplified:<digest>`) of the newest rescore of `run_id` on amplified tests, if any."""
    for child_id, config in run_reads.finished_rescores(store, run_id):
        tests = (config.get("rescore") or {}).get("tests")
        if isinstance(tests, str) and tests.startswith(AMPLIFIED_TESTS):
            return child_id, tests
    return None


def suite_sensitivity(
    store: Store,
    run_ids: Sequence[str | int],
    conditions: Sequence[str] | None = None,
    *,
    family: Family | None = None,
    n_boot: int = DEFAULT_BOOTSTRAP,
    seed: int = DEFAULT_SEED,
) -> SuiteSensitivity:
    """Each comparison of `family` as run and under the amplified tests (`available` False, with commands, if not)."""
    ids = [int(str(r).strip()) for r in run_ids]
    children = {r: amplified_child(store, r) for r in ids}
    missing = [RescoreNeeded(run=r, command=f"python -m execugraph rescore --run {r} --suite amplified")
               for r, child in children.items() if child is None]
    out = SuiteSensitivity(available=not missing, missing=missing,
                           runs={AMPLIFIED: [c[0] if c else None for c in children.values()]},
                           suites=sorted({c[1] for c in children.values() if c}))
    if missing:
        return out
    own = {r: trial_records(store, r) for r in ids}
    records = {AS_RUN: [rec for r in ids for rec in own[r]],
               AMPLIFIED: [rec for r in ids for rec in merge_verdicts(store, own[r], children[r][0])[0]]}  # type: ignore[index]
    changes = {r: changed_programs(store, r, children[r][0], AS_RUN, AMPLIFIED) for r in ids}  # type: ignore[index]
    both = side_by_side(store, ids, records, changes, conditions, family=family, n_boot=n_boot, seed=seed)
    return out.model_copy(update={"pairs": both.pairs, "sets": both.sets, "holm_family_size": both.holm_family_size,
                                  "changed_programs": both.changed_programs})
