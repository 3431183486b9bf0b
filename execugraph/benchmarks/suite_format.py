"""Validation of problem records and sandbox test dicts against our documented schema.

Every loader that reads data it did not build itself (user JSONL, our internal-30 files,
APPS rows once converted) passes records through `problem_from_record`, so a bad test is
caught here, with the field at fault, instead of surfacing later as a puzzling sandbox
verdict. The schema is documented in docs/benchmark-format.md; keep the two in step.
"""

from __future__ import annotations

import difflib
import json
import keyword
import math
import re
from typing import Any

from execugraph.benchmarks.errors import FormatIssue
from execugraph.domain.json_types import JsonObject
from execugraph.domain.problem import Problem
from execugraph.parsing import parse_python

ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:/-]{0,199}$")
COMPARE_MODES = ("exact", "float", "unordered", "set")
STDIO_COMPARE_MODES = ("lines", "lcb")  # sandbox.stdio_compare's: the default, or LiveCodeBench's rule
TEST_KINDS = ("call", "assert", "stdio")

OPTIONAL_TEXT_FIELDS = ("signature", "category", "difficulty", "rationale", "source", "benchmark", "reference")
PROBLEM_FIELDS = ("id", "statement", "tests", "entry_point", "aliases", *OPTIONAL_TEXT_FIELDS, "release_date")
RELEASE_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")  # YYYY-MM-DD: contamination windows compare it as text
COMMON_TEST_FIELDS = ("kind", "name", "visible", "grading")
TEST_FIELDS: dict[str, tuple[str, ...]] = {
    "call": (*COMMON_TEST_FIELDS, "expr", "args", "kwargs", "expected", "compare", "tol"),
    "assert": (*COMMON_TEST_FIELDS, "source", "call"),
    "stdio": (*COMMON_TEST_FIELDS, "stdin", "expected_stdout", "compare"),
}


class _Faults:
    """Collects faults for one record; `line` is attached to each."""

    def __init__(self, line: int | None):
        self.line = line
        self.items: list[FormatIssue] = []

    def add(self, field: str, message: str) -> None:
        self.items.append(FormatIssue(self.line, field, message))


def _type_name(value: Any) -> str:
    return {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}.get(
        type(value), "number" if isinstance(value, int | float) else type(value).__name__
    )


def _unknown_field(faults: _Faults, path: str, key: str, known: tuple[str, ...]) -> None:
    close = difflib.get_close_matches(key, known, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else f"; known fields: {', '.join(known)}"
    faults.add(f"{path}{key}", f"unknown field{hint}")


def _is_date(value: Any) -> bool:
    """A real calendar date written YYYY-MM-DD."""
    from datetime import date

    if not isinstance(value, str) or not RELEASE_DATE.fullmatch(value):
        return False
    try:
        date.fromisoformat(value)
    except ValueError:
        return False
    return True


def _is_identifier(name: str) -> bool:
    return name.isidentifier() and not keyword.iskeyword(name)


def _has_nan(value: Any) -> bool:
    if isinstance(value, float):
        return math.isnan(value)
    if isinstance(value, list):
        return any(_has_nan(v) for v in value)
    if isinstance(value, dict):
        return any(_has_nan(v) for v in value.values())
    return False


def _syntax_message(exc: SyntaxError) -> str:
    where = f" (line {exc.lineno}, column {exc.offset})" if exc.lineno else ""
    return f"not valid Python: {exc.msg}{where}"


def _check_python(faults: _Faults, path: str, text: str, mode: str) -> None:
    try:
        parse_python(text, mode=mode)
    except SyntaxError as exc:
        faults.add(path, _syntax_message(exc))


def _require_str(faults: _Faults, test: JsonObject, path: str, key: str, *, required: bool) -> None:
    if key not in test:
        if required:
            faults.add(f"{path}.{key}", "required field missing")
        return
    if not isinstance(test[key], str):
        faults.add(f"{path}.{key}", f"must be a string, got {_type_name(test[key])}")


def _check_call_test(faults: _Faults, test: JsonObject, path: str) -> None:
    has_expr, has_args = "expr" in test, "args" in test or "kwargs" in test
    if has_expr == has_args:
        faults.add(
            f"{path}.expr",
            "a call test needs exactly one of 'expr' (a Python expression) or 'args'/'kwargs' (arguments)",
        )
    if has_expr:
        if not isinstance(test["expr"], str) or not test["expr"].strip():
            faults.add(f"{path}.expr", f"must be a non-empty string, got {_type_name(test['expr'])}")
        else:
            _check_python(faults, f"{path}.expr", test["expr"], "eval")
    if "args" in test and not isinstance(test["args"], list):
        faults.add(f"{path}.args", f"must be an array of arguments, got {_type_name(test['args'])}")
    if "kwargs" in test:
        kwargs = test["kwargs"]
        if not isinstance(kwargs, dict) or not all(_is_identifier(k) for k in kwargs):
            faults.add(f"{path}.kwargs", "must be an object keyed by argument names")
    if "expected" not in test:
        faults.add(f"{path}.expected", "required field missing (use null to expect None)")
    elif _has_nan(test["expected"]):
        faults.add(f"{path}.expected", "NaN never compares equal; it cannot be an expected value")
    if "compare" in test and test["compare"] not in COMPARE_MODES:
        faults.add(f"{path}.compare", f"must be one of {', '.join(COMPARE_MODES)}, got {test['compare']!r}")
    if "tol" in test:
        tol = test["tol"]
        if isinstance(tol, bool) or not isinstance(tol, int | float) or not tol >= 0 or math.isinf(tol):
            faults.add(f"{path}.tol", f"must be a non-negative finite number, got {tol!r}")


def _check_test(faults: _Faults, test: Any, path: str) -> str | None:
    """Validate one test dict; returns its kind when the kind itself is usable."""
    if not isinstance(test, dict):
        faults.add(path, f"a test must be an object, got {_type_name(test)}")
        return None
    kind = test.get("kind")
    if "kind" not in test:
        faults.add(f"{path}.kind", f"required field missing (one of {', '.join(TEST_KINDS)})")
        return None
    if kind not in TEST_KINDS:
        faults.add(f"{path}.kind", f"must be one of {', '.join(TEST_KINDS)}, got {kind!r}")
        return None
    for key in test:
        if key not in TEST_FIELDS[kind]:
            _unknown_field(faults, f"{path}.", key, TEST_FIELDS[kind])
    if "name" in test and (not isinstance(test["name"], str) or not test["name"]):
        faults.add(f"{path}.name", f"must be a non-empty string, got {test['name']!r}")
    for flag in ("visible", "grading"):
        if flag in test and not isinstance(test[flag], bool):
            faults.add(f"{path}.{flag}", f"must be true or false, got {_type_name(test[flag])}")
    if kind == "call":
        _check_call_test(faults, test, path)
    elif kind == "assert":
        _require_str(faults, test, path, "source", required=True)
        if isinstance(test.get("source"), str) and not test["source"].strip():
            faults.add(f"{path}.source", "must not be empty")
        elif isinstance(test.get("source"), str):
            _check_python(faults, f"{path}.source", test["source"], "exec")
        _require_str(faults, test, path, "call", required=False)
        if isinstance(test.get("call"), str):
            _check_python(faults, f"{path}.call", test["call"], "eval")
    else:
        _require_str(faults, test, path, "stdin", required=False)
        _require_str(faults, test, path, "expected_stdout", required=True)
        if "compare" in test and test["compare"] not in STDIO_COMPARE_MODES:
            faults.add(f"{path}.compare", f"for a stdio test must be one of {', '.join(STDIO_COMPARE_MODES)}, "
                       f"got {test['compare']!r}")
    return kind


def _check_entry_point(faults: _Faults, record: JsonObject, needs_entry: bool) -> None:
    entry = record.get("entry_point")
    if entry is not None and (not isinstance(entry, str) or not _is_identifier(entry)):
        faults.add("entry_point", f"must be a Python identifier or null, got {entry!r}")
    elif entry is None and needs_entry:
        faults.add("entry_point", "required when a test uses 'args'/'kwargs' or is an 'assert' test")
    aliases = record.get("aliases", [])
    if not isinstance(aliases, list):
        faults.add("aliases", f"must be an array of identifiers, got {_type_name(aliases)}")
        return
    for i, alias in enumerate(aliases):
        if not isinstance(alias, str) or not _is_identifier(alias):
            faults.add(f"aliases[{i}]", f"must be a Python identifier, got {alias!r}")


def record_faults(record: Any, line: int | None) -> list[FormatIssue]:
    """Every fault in one problem record (an already-parsed JSON value); empty when valid."""
    faults = _Faults(line)
    if not isinstance(record, dict):
        faults.add("(record)", f"each problem must be a JSON object, got {_type_name(record)}")
        return faults.items
    for key in record:
        if key not in PROBLEM_FIELDS:
            _unknown_field(faults, "", key, PROBLEM_FIELDS)
    pid = record.get("id")
    if "id" not in record:
        faults.add("id", "required field missing")
    elif not isinstance(pid, str) or not ID_PATTERN.match(pid):
        faults.add(
            "id", f"must be 1-200 characters of letters, digits and _ . : / - (not starting with a symbol), got {pid!r}"
        )
    statement = record.get("statement")
    if "statement" not in record:
        faults.add("statement", "required field missing")
    elif not isinstance(statement, str) or not statement.strip():
        faults.add("statement", f"must be a non-empty string, got {_type_name(statement)}")
    for key in OPTIONAL_TEXT_FIELDS:
        if key in record and not isinstance(record[key], str):
            faults.add(key, f"must be a string, got {_type_name(record[key])}")
    if isinstance(record.get("reference"), str):
        _check_python(faults, "reference", record["reference"], "exec")
    if "release_date" in record and not _is_date(record["release_date"]):
        faults.add("release_date", f"{record['release_date']!r} is not a date in YYYY-MM-DD form")
    tests = record.get("tests")
    needs_entry = False
    if "tests" not in record:
        faults.add("tests", "required field missing")
    elif not isinstance(tests, list):
        faults.add("tests", f"must be an array of tests, got {_type_name(tests)}")
    elif not tests:
        faults.add("tests", "must hold at least one test")
    else:
        for i, test in enumerate(tests):
            kind = _check_test(faults, test, f"tests[{i}]")
            needs_entry |= kind == "assert" or (kind == "call" and ("args" in test or "kwargs" in test))
    _check_entry_point(faults, record, needs_entry)
    return faults.items


def problem_from_record(
    record: Any, line: int | None, default_benchmark: str = "user"
) -> tuple[Problem | None, list[FormatIssue]]:
    """Validate `record` and build its Problem; a record without `benchmark` gets `default_benchmark`."""
    issues = record_faults(record, line)
    if issues:
        return None, issues
    return Problem.model_validate({"benchmark": default_benchmark, **record}), []


class DuplicateKeyError(ValueError):
    """A JSON object names the same key twice (json.loads would silently keep the last)."""

    def __init__(self, key: str):
        super().__init__(key)
        self.key = key


def _reject_duplicate_keys(pairs: list[tuple[str, Any]]) -> JsonObject:
    result: JsonObject = {}
    for key, value in pairs:
        if key in result:
            raise DuplicateKeyError(key)
        result[key] = value
    return result


def parse_json_value(text: str, line: int | None) -> tuple[Any, list[FormatIssue]]:
    """Parse one JSON document; a syntax error or a repeated key becomes a located FormatIssue."""
    try:
        return json.loads(text, object_pairs_hook=_reject_duplicate_keys), []
    except DuplicateKeyError as exc:
        return None, [FormatIssue(line, exc.key, "field given more than once in the same object")]
    except json.JSONDecodeError as exc:
        at = line if line is not None else exc.lineno
        return None, [FormatIssue(at, "(json)", f"not valid JSON: {exc.msg} (column {exc.colno})")]
    except RecursionError:
        return None, [FormatIssue(line, "(json)", "JSON nested too deeply to read (lists or objects inside each "
                                                   "other thousands of levels down)")]
