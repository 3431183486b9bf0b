"""The published benchmark file layout, read as published, so its runs can be rescored with their own tests.

One JSON object per line: `id`, `category`, `source`, `difficulty`, `statement`,
`primary_function`, `signature_aliases`, `selection_rationale`, `timeout_s`, `tests`.
Each test is `{args, expected, call, description, kind, has_custom_judge}` where `args`
is a JSON list written as a string, `expected` a JSON value written as a string, and
`call` null (call `primary_function(*args)`) or a Python expression: evaluated as is
when `args` is empty, else called with `args` (e.g. `"Solution().isValid"`).

The mapping to our Problem is documented here because grading depends on it:
`primary_function` -> entry point, `signature_aliases` -> aliases, `selection_rationale`
-> rationale, `timeout_s` -> the problem's own per-test limit, `description` -> test
name, `kind` -> kept as `published_kind`. A test with `has_custom_judge: true` was
judged by code the layout does not carry; it is compared exactly (numbers within the
default float tolerance when the expected value holds a float) and marked
`custom_judge`, so a rescore can say so when it flips.
Fields we do not know are ignored and listed by `published_warnings`; a malformed line
refuses the whole file, naming the line and field.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from execugraph.benchmarks.errors import FormatIssue, read_suite_file
from execugraph.benchmarks.suite_format import parse_json_value
from execugraph.benchmarks.user import parse_jsonl_records
from execugraph.domain.json_types import JsonObject
from execugraph.domain.problem import Problem

BENCHMARK = "published"
PROBLEM_FIELDS = (
    "id", "category", "source", "difficulty", "statement", "primary_function", "signature_aliases",
    "selection_rationale", "timeout_s", "tests",
)
TEST_FIELDS = ("args", "expected", "call", "description", "kind", "has_custom_judge")
_MARKERS = ("id", "primary_function", "tests")


def looks_published(record: Any) -> bool:
    """Whether a decoded JSON line is a problem of the published layout (used to spot the file in a tree)."""
    return isinstance(record, dict) and all(key in record for key in _MARKERS)


def _json_text(value: Any, where: str, issues: list[FormatIssue], line: int | None, *, want_list: bool) -> Any:
    """A JSON value written as a string (the layout's convention); a plain JSON value is accepted as is."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as exc:
            issues.append(FormatIssue(line, where, f"not JSON text ({exc.msg} at column {exc.colno}): {value[:80]!r}"))
            return None
    if want_list and not isinstance(value, list):
        issues.append(FormatIssue(line, where, f"expected a JSON list, got {type(value).__name__}"))
        return None
    return value


def _literal(value: Any) -> str:
    """Python source for a JSON value (non-finite floats included), for call expressions."""
    if isinstance(value, float) and not math.isfinite(value):
        return f"float({str(value)!r})"
    if isinstance(value, list):
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k)}: {_literal(v)}" for k, v in value.items()) + "}"
    return repr(value)


def _has_float(value: Any) -> bool:
    if isinstance(value, float):
        return True
    if isinstance(value, list):
        return any(_has_float(v) for v in value)
    if isinstance(value, dict):
        return any(_has_float(v) for v in value.values())
    return False


def _convert_test(raw: Any, index: int, entry: str | None, line: int | None,
                  issues: list[FormatIssue]) -> JsonObject | None:
    where = f"tests[{index}]"
    if not isinstance(raw, dict):
        issues.append(FormatIssue(line, where, f"expected an object, got {type(raw).__name__}"))
        return None
    if "expected" not in raw:
        issues.append(FormatIssue(line, f"{where}.expected", "required field missing"))
        return None
    before = len(issues)
    args = _json_text(raw.get("args", "[]"), f"{where}.args", issues, line, want_list=True)
    expected = _json_text(raw["expected"], f"{where}.expected", issues, line, want_list=False)
    call = raw.get("call")
    if call is not None and (not isinstance(call, str) or not call.strip()):
        issues.append(FormatIssue(line, f"{where}.call", f"expected null or a Python expression, got {call!r}"))
    if len(issues) > before:
        return None
    description = raw.get("description")
    test: JsonObject = {
        "name": description.strip()[:200] if isinstance(description, str) and description.strip() else f"test {index}",
        "kind": "call",
        "expected": expected,
    }
    if call is None:
        if not entry:
            issues.append(FormatIssue(line, f"{where}.call", "null needs the problem's primary_function"))
            return None
        test["args"] = args
    else:
        test["expr"] = call.strip() if not args else f"({call.strip()})(*{_literal(args)})"
        try:
            compile(test["expr"], "<call>", "eval", dont_inherit=True)
        except SyntaxError as exc:
            issues.append(FormatIssue(line, f"{where}.call", f"not a Python expression ({exc.msg})"))
            return None
    if isinstance(raw.get("kind"), str):
        test["published_kind"] = raw["kind"]
    if raw.get("has_custom_judge") is True:
        test["custom_judge"] = True
        if _has_float(expected):
            test["compare"] = "float"
    return test


def _str_field(record: JsonObject, key: str, line: int | None, issues: list[FormatIssue], *,
               required: bool = False) -> str:
    value = record.get(key)
    if value is None:
        if required:
            issues.append(FormatIssue(line, key, "required field missing"))
        return ""
    if not isinstance(value, str):
        issues.append(FormatIssue(line, key, f"expected a string, got {type(value).__name__}"))
        return ""
    return value


def problem_from_published(record: Any, line: int | None, benchmark: str = BENCHMARK) -> tuple[Problem | None, list]:
    """One published problem line as our Problem, or the faults that stop it."""
    issues: list[FormatIssue] = []
    if not isinstance(record, dict):
        return None, [FormatIssue(line, "(line)", f"expected a JSON object, got {type(record).__name__}")]
    pid = _str_field(record, "id", line, issues, required=True).strip()
    if "id" in record and not pid and not issues:
        issues.append(FormatIssue(line, "id", "must not be empty"))
    statement = _str_field(record, "statement", line, issues)
    entry = record.get("primary_function")
    if entry is not None and (not isinstance(entry, str) or not entry.isidentifier()):
        issues.append(FormatIssue(line, "primary_function", f"expected a Python identifier or null, got {entry!r}"))
        entry = None
    aliases = record.get("signature_aliases") or []
    if not isinstance(aliases, list) or not all(isinstance(a, str) and a.isidentifier() for a in aliases):
        issues.append(FormatIssue(line, "signature_aliases", f"expected a list of Python identifiers, got {aliases!r}"))
        aliases = []
    timeout = record.get("timeout_s")
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0
                                or not math.isfinite(timeout)):
        issues.append(FormatIssue(line, "timeout_s", f"expected a positive number of seconds (a finite one), got {timeout!r}"))
        timeout = None
    raw_tests = record.get("tests")
    if not isinstance(raw_tests, list) or not raw_tests:
        issues.append(FormatIssue(line, "tests", "expected a non-empty list of test objects"))
        raw_tests = []
    tests = [_convert_test(raw, i, entry, line, issues) for i, raw in enumerate(raw_tests)]
    fields = {k: _str_field(record, k, line, issues) for k in ("category", "source", "difficulty", "selection_rationale")}
    if issues:
        return None, issues
    problem = Problem(
        id=pid,
        benchmark=benchmark,
        category=fields["category"] or "general",
        statement=statement or pid,
        entry_point=entry,
        aliases=[a for a in aliases if a != entry],
        tests=[t for t in tests if t is not None],
        difficulty=fields["difficulty"],
        rationale=fields["selection_rationale"],
        source=fields["source"],
        timeout_s=float(timeout) if timeout is not None else None,
    )
    return problem, []


def parse_published_jsonl(data: bytes | str, source: str = "<upload>", benchmark: str = BENCHMARK) -> list[Problem]:
    """Problems from a published benchmark file; BenchmarkFormatError names every bad line and field."""

    def convert(value: Any, line: int) -> tuple[Problem | None, list[FormatIssue]]:
        return problem_from_published(value, line, benchmark)

    return parse_jsonl_records(data, source, convert)


def published_warnings(data: bytes | str, source: str) -> list[str]:
    """Fields the layout does not define, per field with the lines they occur on (they are ignored), and the
    problems whose own timeout is above the cap (graded under the cap)."""
    from execugraph.benchmarks.user import iter_jsonl_lines
    from execugraph.grading.rules import max_test_timeout_s

    seen: dict[str, list[int]] = {}
    slow: list[str] = []
    for number, text, _fault in iter_jsonl_lines(data):
        value, _ = parse_json_value(text or "", number)
        if not isinstance(value, dict):
            continue
        timeout = value.get("timeout_s")
        if isinstance(timeout, int | float) and not isinstance(timeout, bool) and timeout > max_test_timeout_s():
            slow.append(f"{value.get('id')} ({timeout:g} s)")
        unknown = [k for k in value if k not in PROBLEM_FIELDS]
        for test in value.get("tests") or []:
            if isinstance(test, dict):
                unknown += [f"tests[].{k}" for k in test if k not in TEST_FIELDS]
        for key in dict.fromkeys(unknown):
            seen.setdefault(key, []).append(number)
    warnings = [f"{source}: field {key!r} is not part of the published layout; ignored (lines {_lines(nums)})"
                for key, nums in sorted(seen.items())]
    if slow:
        warnings.append(f"{source}: {len(slow)} problem(s) ask for more than {max_test_timeout_s():g} s per test "
                        f"and are graded with {max_test_timeout_s():g} s of CPU (EXECUGRAPH_MAX_TEST_TIMEOUT_S): "
                        f"{', '.join(slow[:5])}{' and more' if len(slow) > 5 else ''}")
    return warnings


def _lines(numbers: list[int]) -> str:
    shown = ", ".join(map(str, numbers[:5]))
    return shown + (f" and {len(numbers) - 5} more" if len(numbers) > 5 else "")


def load_published(path: str | Path, benchmark: str = BENCHMARK) -> list[Problem]:
    """Problems from a published benchmark file on disk (`load_benchmark("published", path=...)`)."""
    path = Path(path)
    data = read_suite_file(path)
    return parse_published_jsonl(data, source=str(path), benchmark=benchmark)
