"""Two finished trials of one problem that part at different agents (a reviewer on one side, an evaluator on the
other) and end with different programs, written through the Store API for the Trace Compare tests."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from execugraph.store import Store
from tests.support.trace_rows import add_step, finish_step

PLAN = "1. Handle the base cases.\n2. Iterate bottom-up."
FIRST = "def fib(n):\n    return n\n"
REVISED = "def fib(n):\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\n"
RETRIED = "def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n"
LAST = "def fib(n):\n    return [0, 1, 1, 2, 3, 5][n]\n"


@dataclass(frozen=True)
class Pair:
    """The run and the two trials: `reviewed` passed after 2 attempts, `retried` failed after 3."""

    run_id: int
    reviewed: int
    retried: int


def _steps(store: Store, trial_id: int, steps: list[tuple[str, int, dict[str, Any]]]) -> None:
    for node, attempt, output in steps:
        finish_step(store, add_step(store, trial_id, node, attempt=attempt), output=output)


def _evaluated(passed: bool, decision: str) -> dict[str, Any]:
    return {"verdict": "passed" if passed else "wrong_answer", "passed": passed, "decision": decision,
            "tests_passed": 4 if passed else 1, "tests_total": 4}


def seed_pair(store: Store, *, benchmark: str = "internal30", problem_id: str = "fib") -> Pair:
    """A batch run with the two trials of `problem_id` (both finished)."""
    run_id = store.create_run("batch", "compare demo", {}, benchmark=benchmark, status="done")
    reviewed = store.create_trial(run_id, problem_id, "multi-full", 0, 0, category="dp", benchmark=benchmark)
    _steps(store, reviewed, [
        ("planner", 0, {"plan": PLAN}),
        ("generator", 0, {"code": FIRST, "parsed_ok": True, "reason": "initial"}),
        ("reviewer", 0, {"review": {"severity": "high"}, "gated": True}),
        ("generator", 1, {"code": REVISED, "parsed_ok": True, "reason": "revise"}),
        ("evaluator", 1, _evaluated(True, "grade")),
        ("grade", 1, {"passed": True, "verdict": "passed", "tests_passed": 4, "tests_total": 4}),
    ])
    store.finish_trial(reviewed, status="done", passed=True, tests_passed=4, tests_total=4, final_code=REVISED)
    retried = store.create_trial(run_id, problem_id, "multi-no-reviewer", 0, 0, category="dp", benchmark=benchmark)
    _steps(store, retried, [
        ("planner", 0, {"plan": PLAN}),
        ("generator", 0, {"code": FIRST, "parsed_ok": True, "reason": "initial"}),
        ("evaluator", 0, _evaluated(False, "retry")),
        ("generator", 1, {"code": RETRIED, "parsed_ok": True, "reason": "retry"}),
        ("evaluator", 1, _evaluated(False, "retry")),
        ("generator", 2, {"code": LAST, "parsed_ok": True, "reason": "retry"}),
        ("evaluator", 2, _evaluated(False, "grade")),
        ("grade", 2, {"passed": False, "verdict": "wrong_answer", "tests_passed": 1, "tests_total": 4}),
    ])
    store.finish_trial(retried, status="done", passed=False, tests_passed=1, tests_total=4, retries_used=2,
                       error_class="AssertionError", final_code=LAST)
    return Pair(run_id, reviewed, retried)
