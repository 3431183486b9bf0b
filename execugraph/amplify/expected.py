"""Expected outputs from a reference solution run in the sandbox; inputs it cannot answer are dropped, with why.

Why: a new input is only a test once a trusted program has answered it. The reference
runs in the same sandbox, under the same protocol, as candidates. Two runs: the first
reads each answer back (the sandbox reports a returned value's repr, so answers longer
than that repr's cap cannot be recorded and are dropped), the second grades the
reference against the suite with those answers filled in; a test it then fails differs
between two runs of the reference (nondeterministic, or not read back faithfully) and
is dropped too. An input on which the reference raises, or needs more than the CPU
budget, is outside the problem's contract or too heavy for a test: dropped.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass
from typing import Any

from execugraph.domain.json_types import JsonObject
from execugraph.domain.problem import Problem
from execugraph.grading.rules import GradingSettings, build_suite
from execugraph.parsing import parse_python

REFERENCE_CPU_S = 0.5  # CPU seconds the reference may use on one new input
TRUNCATED = "more chars]"


@dataclass(frozen=True)
class Answer:
    """The reference's answer to one expression: a test dict, or the reason the input was dropped."""

    expr: str
    test: JsonObject | None = None  # a sandbox `call` test
    dropped: str = ""


def _has_float(value: Any) -> bool:
    if isinstance(value, float):
        return True
    if isinstance(value, list | tuple):
        return any(_has_float(v) for v in value)
    if isinstance(value, dict):
        return any(_has_float(v) for v in value.values())
    return False


def _with_infinity(text: str) -> ast.Expression:
    """The repr parsed, with the names `inf` (float('inf') shown by repr) read as the float."""
    tree = parse_python(text, mode="eval")

    class _Inf(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.AST:
            return ast.copy_location(ast.Constant(float("inf")), node) if node.id == "inf" else node

    return ast.fix_missing_locations(_Inf().visit(tree))


def _has_nan(value: Any) -> bool:
    if isinstance(value, float):
        return value != value
    if isinstance(value, list | tuple | set | frozenset):
        return any(_has_nan(v) for v in value)
    if isinstance(value, dict):
        return any(_has_nan(v) for v in value.values())
    return False


def _read_back(got: str) -> tuple[Any, str] | str:
    """(JSON expected value, compare mode) from a reported repr, or why it cannot be."""
    if got.endswith(TRUNCATED):
        return "output too long to record"
    try:
        value = ast.literal_eval(_with_infinity(got))
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return "output is not plain data"
    if _has_nan(value):
        return "output holds NaN"
    compare = "exact"
    if isinstance(value, set | frozenset):
        value, compare = list(value), "set"
    try:
        expected = json.loads(json.dumps(value))
    except (TypeError, ValueError):
        return "output is not JSON data"
    if compare == "exact" and _has_float(value):
        compare = "float"
    return expected, compare


def _why_failed(test: Any) -> str:
    if test.verdict == "timeout":
        return "reference exceeds its CPU limit"
    if test.verdict in ("runtime_error", "wrong_answer") and test.error_class and test.error_class != "WrongAnswer":
        return f"reference raises {test.error_class}"
    return f"reference run ended {test.verdict}"


Item = tuple[Problem, str, list[str]]  # (problem, reference program, expressions to answer)


def _answer(expr: str, result: Any) -> Answer:
    if result.verdict not in ("passed", "wrong_answer") or result.error_class not in (None, "WrongAnswer"):
        return Answer(expr, dropped=_why_failed(result))
    read = _read_back(result.got)
    if isinstance(read, str):
        return Answer(expr, dropped=read)
    expected, compare = read
    test: JsonObject = {"kind": "call", "expr": expr, "expected": expected}
    if compare != "exact":
        test["compare"] = compare
    return Answer(expr, test=test)


def reference_answers_many(pool: Any, items: list[Item], settings: GradingSettings | None = None,
                           cpu_s: float = REFERENCE_CPU_S) -> list[list[Answer]]:
    """The reference's answer to every expression of every item, in order: two batches of sandbox jobs in all."""
    from sandbox import Limits

    settings = settings or GradingSettings()
    limits = Limits(timeout_s=cpu_s, memory_mb=settings.memory_mb, stop_after_timeout=False)
    todo = [i for i, (_, _, exprs) in enumerate(items) if exprs]
    jobs = []
    for i in todo:
        problem, reference, exprs = items[i]
        probes = [{"name": f"probe {n}", "kind": "call", "expr": e, "expected": None} for n, e in enumerate(exprs)]
        jobs.append((reference, build_suite(problem, probes, settings.protocol), limits))
    out: list[list[Answer]] = [[] for _ in items]
    for i, result in zip(todo, pool.run_many(jobs) if jobs else [], strict=True):
        exprs = items[i][2]
        answers = [_answer(e, r) for e, r in zip(exprs, result.tests, strict=False)]
        out[i] = answers + [Answer(e, dropped="no result from the reference run") for e in exprs[len(answers):]]
    return _confirm_many(pool, items, out, settings, limits)


def _confirm_many(pool: Any, items: list[Item], answers: list[list[Answer]], settings: GradingSettings,
                  limits: Any) -> list[list[Answer]]:
    """Grade each reference on its own answers once more; a test it fails is dropped as nondeterministic."""
    plans, jobs = [], []
    for i, (problem, reference, _) in enumerate(items):
        kept = [n for n, a in enumerate(answers[i]) if a.test is not None]
        if kept:
            tests = [{**answers[i][n].test, "name": f"confirm {n}"} for n in kept]  # type: ignore[dict-item]
            plans.append((i, kept))
            jobs.append((reference, build_suite(problem, tests, settings.protocol), limits))
    for (i, kept), result in zip(plans, pool.run_many(jobs) if jobs else [], strict=True):
        for n, test in zip(kept, result.tests, strict=False):
            if not test.passed:
                why = "reference exceeds its CPU limit" if test.verdict == "timeout" else (
                    "nondeterministic: a second run of the reference differs")
                answers[i][n] = Answer(answers[i][n].expr, dropped=why)
    return answers


def reference_answers(pool: Any, problem: Problem, reference: str, exprs: list[str],
                      settings: GradingSettings | None = None, cpu_s: float = REFERENCE_CPU_S) -> list[Answer]:
    """The reference's answer to every expression of one problem, in order."""
    return reference_answers_many(pool, [(problem, reference, exprs)], settings, cpu_s)[0]
