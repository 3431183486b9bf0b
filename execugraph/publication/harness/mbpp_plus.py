"""MBPP samples without verdicts (bigcode generations, EvalPlus samples) graded on the built-in MBPP+ without `--dataset`.

MBPP+ (v0.2.0) holds 378 of MBPP's tasks; the others (broken or ambiguous tasks EvalPlus removed) are not
guessed at: their samples are left out of the import, counted and named in its warnings.
With a `--dataset` file the file's tests grade as before, and nothing here applies.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from execugraph.domain.problem import Problem
from execugraph.publication.harness.common import HarnessRun

SHOWN = 20  # uncovered task ids named in a warning at most


def builtin_mbpp_problems(runs: Sequence[HarnessRun], problems: dict[str, Problem], pool: Any = None) -> None:
    """Add MBPP+ problems for the ungraded runs' MBPP tasks to `problems` (expected outputs computed or cached for
    these only); drop each run's samples of tasks MBPP+ lacks, with a warning naming them."""
    wanted = {rec["problem_id"] for run in runs if not run.graded for _, rec in run.records
              if str(rec["problem_id"]).startswith("mbpp_") and rec["problem_id"] not in problems}
    if not wanted:
        return
    from execugraph.benchmarks.evalplus import MBPP_PLUS, built_problems, with_expected

    known = {p.id: p for p in built_problems(MBPP_PLUS)}
    covered = [known[i].model_copy(deep=True) for i in sorted(wanted) if i in known]
    problems.update({p.id: p for p in with_expected(covered, pool)})
    for run in runs:
        if run.graded:
            continue
        left = [(n, rec) for n, rec in run.records if str(rec["problem_id"]).startswith("mbpp_")
                and rec["problem_id"] not in problems]
        if not left:
            continue
        tasks = sorted({str(rec["task_id"]) for _, rec in left}, key=_number)
        run.records = [(n, rec) for n, rec in run.records if rec["problem_id"] in problems
                       or not str(rec["problem_id"]).startswith("mbpp_")]
        shown = ", ".join(tasks[:SHOWN]) + (f" and {len(tasks) - SHOWN} more" if len(tasks) > SHOWN else "")
        run.warnings.append(f"{run.records_file}: {len(left)} sample(s) of {len(tasks)} MBPP task(s) that MBPP+ "
                            f"does not cover were left out (graded on MBPP+'s tests, no --dataset): {shown}")


def _number(task_id: str) -> int:
    tail = task_id.rpartition("/")[2]
    return int(tail) if tail.isdigit() else 0
