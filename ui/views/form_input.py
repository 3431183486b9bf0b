"""Turning what a user typed into core objects, with errors that name the row and field at fault.

The Synthesize and Batch forms collect free text (test rows, assert source,
aliases, a condition and its overrides); these functions validate it with the
same rules the benchmark loader applies to suite files. Whether the chosen
models can answer is `model_preflight`'s part; uploaded suites are `uploads`'s;
the size and power of a batch is `batch_plan`'s.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from typing import Any

from execugraph.benchmarks.suite_format import record_faults
from execugraph.configuration.settings import EMBEDDED_MODEL
from execugraph.configuration.validation_errors import readable_error

_TEST_PATH = re.compile(r"^tests\[(\d+)\]\.?(.*)$")


def parse_aliases(text: str) -> list[str]:
    """`a, b c` -> ['a', 'b', 'c'] (commas or spaces, duplicates dropped, order kept)."""
    return list(dict.fromkeys(part for part in re.split(r"[,\s]+", text or "") if part))


def _value(text: Any, row: int) -> Any:
    """An expected value typed as JSON (`[1, 2]`, `null`) or as a Python literal (`(1, 2)`, `None`)."""
    if not isinstance(text, str):
        return text
    try:
        return json.loads(text)
    except ValueError:
        pass
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        raise ValueError(
            f"test row {row}, field expected: {text!r} is neither JSON nor a Python literal "
            '(quote strings, e.g. "abc"; use null or None for None)'
        ) from None


def _check(tests: list[dict[str, Any]], entry_point: str | None, rows: list[int], label: str) -> None:
    record = {"id": "adhoc", "statement": "adhoc", "entry_point": entry_point or None, "tests": tests}
    issues = record_faults(record, None)
    if issues:
        messages = []
        for issue in issues:
            match = _TEST_PATH.match(issue.field)
            if match:
                field = {"expr": "call"}.get(match[2], match[2] or "test")
                messages.append(f"{label} {rows[int(match[1])]}, field {field}: {issue.message}")
            else:
                messages.append(f"{issue.field.replace('_', ' ')}: {issue.message}")
        raise ValueError("; ".join(messages))


def adhoc_tests_from_rows(rows: list[dict[str, Any]], entry_point: str | None = None) -> list[dict[str, Any]]:
    """Call tests from table rows {call, expected, visible}; blank rows are skipped. Rows count from 1."""
    tests: list[dict[str, Any]] = []
    numbers: list[int] = []
    for number, row in enumerate(rows, start=1):
        call = str(row.get("call") or "").strip()
        expected = row.get("expected")
        expected_text = "" if expected is None else str(expected).strip()
        if not call and not expected_text:
            continue
        if not call:
            raise ValueError(f"test row {number}, field call: empty; write an expression such as add(1, 2)")
        if not expected_text:
            raise ValueError(f"test row {number}, field expected: empty; write the expected value (null for None)")
        tests.append(
            {
                "kind": "call",
                "name": f"row {number}",
                "expr": call,
                "expected": _value(expected_text, number),
                "visible": bool(row.get("visible") or False),
            }
        )
        numbers.append(number)
    if tests:
        _check(tests, entry_point, numbers, "test row")
    return tests


def adhoc_tests_from_assert(source: str, call: str = "", entry_point: str | None = None) -> list[dict[str, Any]]:
    """One HumanEval-style assert test: `source` defines a checker, `call` runs it (default check(candidate))."""
    if not (source or "").strip():
        return []
    test = {"kind": "assert", "name": "assert", "source": source, "call": (call or "").strip() or "check(candidate)"}
    _check([test], entry_point, [1], "assert test")
    return [test]


TESTS_FROM_TABLE = "Call / expected table"
TESTS_FROM_ASSERT = "Assert source"
TESTS_GENERATED = "None (the evaluator writes tests)"
TEST_MODES = (TESTS_FROM_TABLE, TESTS_FROM_ASSERT, TESTS_GENERATED)
CONDITION_DEFAULT = "condition default"


@dataclass
class SynthesisRequest:
    """Everything the Synthesize form collects; `build()` validates it into a Problem and a RunConfig."""

    statement: str
    condition: str = "multi-full"
    entry_point: str = ""
    aliases: str = ""
    signature: str = ""
    tests_mode: str = TESTS_FROM_TABLE
    rows: list[dict[str, Any]] | None = None
    assert_source: str = ""
    assert_call: str = ""
    default_model: str = EMBEDDED_MODEL
    models: dict[str, str] | None = None
    retry_budget: str = CONDITION_DEFAULT
    retrieval: str = CONDITION_DEFAULT
    feedback_tests: str = "grading"
    test_timeout_s: float = 5.0
    picked: Any = None  # the benchmark Problem the picker filled the form from, if any

    def build(self) -> tuple[Any, Any]:
        """(Problem, RunConfig), or ValueError saying which input is wrong and how to fix it.

        The Problem is the picked benchmark problem while the form holds what the pick filled in, else ad hoc.
        """
        from execugraph.configuration.conditions import resolve_condition

        problem = self._problem()
        if self.picked is not None:
            from dataclasses import replace

            from ui.views.problem_pick import fields_of, form_fields

            as_filled = replace(self, picked=None, **fields_of(form_fields(self.picked)))._problem()
            if (problem.id, problem.signature) == (as_filled.id, as_filled.signature):
                problem = self.picked
        overrides: dict[str, Any] = {
            "models": dict(self.models or {}),
            "default_model": self.default_model,
            "feedback_tests": self.feedback_tests,
            "test_timeout_s": float(self.test_timeout_s),
        }
        if self.retry_budget != CONDITION_DEFAULT:
            overrides["retry_budget"] = int(self.retry_budget)
        if self.retrieval != CONDITION_DEFAULT:
            overrides["retrieval"] = self.retrieval == "on"
        try:
            config = resolve_condition(self.condition, **overrides)
        except ValueError as exc:
            message = readable_error(exc)
            if "retrieval" in message:
                message += (
                    " (retrieval feeds the planner: choose a multi-* condition with a planner, or turn retrieval off)"
                )
            raise ValueError(message) from None
        return problem, config

    def _problem(self) -> Any:
        """The ad-hoc Problem the form's problem fields describe, or ValueError naming the field at fault."""
        from execugraph.workflow.single import adhoc_problem

        if not self.statement.strip():
            raise ValueError("the problem statement is empty: describe what the program must do")
        entry = self.entry_point.strip() or None
        if self.tests_mode == TESTS_FROM_TABLE:
            tests = adhoc_tests_from_rows(list(self.rows or []), entry)
        elif self.tests_mode == TESTS_FROM_ASSERT:
            tests = adhoc_tests_from_assert(self.assert_source, self.assert_call, entry)
            if not tests:
                raise ValueError(
                    "assert source is empty: write a checker such as "
                    "`def check(candidate): assert candidate(1, 2) == 3`, or choose another test mode"
                )
        else:
            tests = []
        if tests and not entry:  # without an entry point the program is a stdin/stdout one: calls cannot test it
            raise ValueError(
                "the tests call a function, so name it in Entry point (e.g. the `add` of `add(1, 2)`); "
                "or clear the tests to have a stdin/stdout program written and tested on input/output text"
            )
        aliases = parse_aliases(self.aliases)
        if aliases and not entry:
            raise ValueError("aliases need an entry point: name the function the tests call")
        return adhoc_problem(self.statement, entry, aliases, tests, self.signature.strip())
