"""Synthesize's benchmark-problem picker and the words it shows about a problem's tests (no streamlit here).

A picked problem fills the form's fields (`form_fields`); the user may edit them. The run records the benchmark
problem itself while the form still holds exactly what the pick filled in (as `execugraph run --problem` would),
and an ad-hoc problem with the form's content otherwise: `SynthesisRequest.build` decides with `fields_of`.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from execugraph.benchmarks import load_benchmark
from execugraph.domain.problem import Problem
from execugraph.parsing import parse_python
from ui.views.form_input import TESTS_FROM_ASSERT, TESTS_FROM_TABLE, TESTS_GENERATED

PICK_NONE = "none: write your own"
_ROW_KEYS = {"name", "kind", "expr", "expected", "visible"}


def pickable() -> tuple[str, ...]:
    """The benchmarks `run --problem` loads without a file: the built-ins and those installed plugins add."""
    from execugraph.benchmarks import benchmark_names, file_benchmark_names

    files = set(file_benchmark_names())
    return tuple(name for name in benchmark_names() if name not in files)


@lru_cache(maxsize=16)
def _suite(benchmark: str) -> tuple[Problem, ...]:
    """A built-in suite, loaded once per process (callers get copies)."""
    return tuple(load_benchmark(benchmark))


def problem_ids(benchmark: str) -> list[str]:
    """The problem ids of a built-in benchmark, in suite order (BenchmarkError when it cannot load)."""
    return [p.id for p in _suite(benchmark)]


def picked_problem(benchmark: str, problem_id: str) -> Problem:
    """The benchmark's problem, as `run --problem BENCHMARK/ID` resolves it; KeyError for an unknown id."""
    for problem in _suite(benchmark):
        if problem.id == problem_id:
            from execugraph.benchmarks import ready_to_grade  # e.g. HumanEval+/MBPP+: its expected outputs

            return ready_to_grade([problem.model_copy(deep=True)])[0]
    raise KeyError(f"no problem {problem_id!r} in benchmark {benchmark!r}")


@dataclass
class FormFields:
    """What the Synthesize form holds for a problem; `left_out` names the tests the form cannot hold."""

    statement: str
    entry_point: str = ""
    aliases: str = ""
    signature: str = ""
    tests_mode: str = TESTS_FROM_TABLE
    rows: list[dict[str, Any]] = field(default_factory=list)
    assert_source: str = ""
    assert_call: str = "check(candidate)"
    left_out: list[str] = field(default_factory=list)


def _row(test: dict[str, Any]) -> dict[str, Any]:
    """A call test as a table row: the expected value as JSON text (what the Expected column takes)."""
    return {"call": test["expr"], "expected": json.dumps(test["expected"]), "visible": bool(test.get("visible"))}


def form_fields(problem: Problem) -> FormFields:
    """The form's fields for a problem: its call tests in the table or, when it has one, its assert check."""
    fields = FormFields(problem.statement, problem.entry_point or "", ", ".join(problem.aliases), problem.signature)
    checks = [t for t in problem.tests if t.get("kind") == "assert"]
    calls = [t for t in problem.tests if t.get("kind") == "call" and set(t) <= _ROW_KEYS]
    if checks:
        fields.tests_mode = TESTS_FROM_ASSERT
        fields.assert_source, fields.assert_call = checks[0]["source"], checks[0].get("call") or "check(candidate)"
        kept = [checks[0]]
    elif calls:
        fields.rows, kept = [_row(t) for t in calls], calls
    else:
        fields.tests_mode, kept = (TESTS_GENERATED if not problem.tests else TESTS_FROM_TABLE), []
    fields.left_out = [str(t.get("name") or t.get("kind")) for t in problem.tests if not any(t is k for k in kept)]
    return fields


def fields_of(fields: FormFields) -> dict[str, Any]:
    """FormFields as `SynthesisRequest` keyword arguments (the problem half of the form)."""
    return {"statement": fields.statement, "entry_point": fields.entry_point, "aliases": fields.aliases,
            "signature": fields.signature, "tests_mode": fields.tests_mode, "rows": fields.rows,
            "assert_source": fields.assert_source, "assert_call": fields.assert_call}


def count_asserts(source: str) -> int:
    """How many `assert` statements a checker's source holds (0 when it does not parse)."""
    try:
        return sum(isinstance(node, ast.Assert) for node in ast.walk(parse_python(source)))
    except (SyntaxError, ValueError):
        return 0


def checks_note(tests: list[dict[str, Any]]) -> str:
    """What an assert check counts for: `1 check with 7 asserts`; '' when no grading test is an assert check.

    An assert check passes or fails as one test, however many asserts it holds, so "0/1 tests" alone undersells it.
    """
    checks = [t for t in tests if t.get("kind") == "assert" and t.get("grading", True)]
    if not checks:
        return ""
    asserts = sum(count_asserts(str(t.get("source") or "")) for t in checks)
    return (f"{len(checks)} {'check' if len(checks) == 1 else 'checks'} with "
            f"{asserts} {'assert' if asserts == 1 else 'asserts'}, each check passing only if all its asserts hold")


def problem_name(problem: Problem) -> str:
    """A problem as people name it: `internal30/climb_stairs`, or an ad-hoc one's entry point, else its id."""
    if problem.benchmark != "adhoc":
        return f"{problem.benchmark}/{problem.id}"
    return problem.entry_point or problem.id


def attempt_line(attempts_seen: list[int], retry_budget: int) -> str:
    """`attempt 2 of 4`: the newest attempt reached (attempts count from 0) of the 1 + retry budget allowed."""
    current = max(attempts_seen, default=0) + 1
    total = retry_budget + 1
    return f"attempt {current} of {total}" + (f" (retry budget {retry_budget})" if retry_budget else "")
