"""A finished HumanEval batch whose conclusion depends on the grading protocol (for stats and UI tests)."""

from __future__ import annotations

import ast

from execugraph.benchmarks.humaneval import official_task
from execugraph.configuration.conditions import resolve_condition
from execugraph.store import Store, Trial, utcnow
from execugraph.store.bulk_insert import bulk_writes

TASKS = (0, 1, 3, 4, 5, 6, 7, 8, 9, 12)  # every one imports from typing in its prompt


def canonical(number: int) -> str:
    """The official program: prompt + canonical body."""
    task = official_task(f"HumanEval/{number}")
    return task["prompt"] + task["canonical_solution"]


def without_imports(number: int) -> str:
    """The canonical program minus the prompt's imports: correct only when the prompt runs first."""
    tree = ast.parse(canonical(number))
    tree.body = [n for n in tree.body if not isinstance(n, ast.Import | ast.ImportFrom)]
    return ast.unparse(tree) + "\n"


def seed_two_arms(store: Store) -> int:
    """Arm single-oneshot: canonical programs; arm single-retry: the same relying on the prompt's imports.

    Verdicts are recorded as a standalone grading gives them (the second arm fails everywhere).
    """
    config = {c: resolve_condition(c).model_dump() for c in ("single-oneshot", "single-retry")}
    run_id = store.create_run("batch", "two arms", {"conditions": config}, benchmark="humaneval", status="done")
    rows = []
    for condition, program, ok in (("single-oneshot", canonical, True), ("single-retry", without_imports, False)):
        for number in TASKS:
            rows.append({
                "run_id": run_id, "problem_id": f"humaneval_{number}", "benchmark": "humaneval",
                "category": "humaneval", "condition": condition, "seed": 0, "trial_index": 0, "status": "done",
                "passed": ok, "tests_passed": int(ok), "tests_total": 1, "test_source": "problem",
                "error_class": None if ok else "runtime_error", "final_code": program(number), "finished_at": utcnow(),
            })
    with bulk_writes(store) as bulk:
        bulk.insert(Trial, rows)
    return run_id
