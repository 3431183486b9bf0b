"""`rescore --suite plus`: a HumanEval or MBPP run's programs graded on the built-in HumanEval+/MBPP+ plus tests.

The plus problems of the run's problem ids are stored (benchmark `humaneval-plus` or `mbpp-plus`, their
expected outputs computed or read from the cache) and named as the rescore's `benchmark_file`; `rescore_run`
with `tests="plus"` then grades every covered program on its plus set, and the child run carries the verdict
set `plus` beside the protocols'. Problems the plus benchmark lacks are counted and named, never guessed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from execugraph.domain.json_types import JsonObject

if TYPE_CHECKING:
    from execugraph.store import Store

PLUS = "plus"


def resolve_plus_suite(store: Store, run_id: int, pool: object | None = None) -> tuple[JsonObject, str]:
    """(benchmark_file for `rescore_run`, its `tests` value "plus"); ValueError/LookupError saying why not."""
    from execugraph.benchmarks.evalplus import built_problems, plus_benchmark_for, with_expected

    run = store.get_run(run_id)
    if run is None:
        raise LookupError(f"run {run_id} does not exist")
    ids = sorted({t.problem_id for t in store.trials_for_run(run_id)})
    benchmark = plus_benchmark_for(ids)
    if benchmark is None:
        raise ValueError(f"run {run_id}: --suite plus grades HumanEval (humaneval_<n>) or MBPP (mbpp_<n>) runs; "
                         f"this one's problems are {', '.join(ids[:3])}{' ...' if len(ids) > 3 else ''}")
    known = {p.id: p for p in built_problems(benchmark)}
    covered = [known[i].model_copy(deep=True) for i in ids if i in known]
    missing = [i for i in ids if i not in known]
    for problem in with_expected(covered, pool):
        store.upsert_problem(problem)
    file: JsonObject = {"benchmark": benchmark, "file": "evalplus", "problems": len(covered)}
    if missing:
        file["not_covered"] = missing
    return file, PLUS
