"""APPS-format JSONL: competitive-programming problems with stdin/stdout (or function-call) tests.

Each line is one APPS row: `problem_id`, `question`, `input_output` (a JSON object or, as in
the published dataset, a JSON string holding one) with parallel `inputs`/`outputs` lists and
an optional `fn_name`, plus optional `starter_code`, `difficulty`, `url`. Without `fn_name`
every pair becomes a `stdio` test; with it, each input is an argument list and the
function (or `Solution().<fn_name>` when the starter code declares `class Solution`) is
called. APPS stores call-style return values wrapped in a one-element list; we unwrap them.
A malformed row refuses the whole file, naming line and field.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from execugraph.benchmarks.errors import FormatIssue, read_suite_file
from execugraph.benchmarks.suite_format import problem_from_record
from execugraph.benchmarks.user import parse_jsonl_records
from execugraph.domain.json_types import JsonObject
from execugraph.domain.problem import Problem

BENCHMARK = "apps"


class _RowFault(Exception):
    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field
        self.message = message


def _python_literal(value: Any) -> str:
    """Python source for a JSON value (repr, except non-finite floats and nested containers)."""
    if isinstance(value, float) and not math.isfinite(value):
        if math.isnan(value):
            raise ValueError("NaN cannot be an argument")
        return "float('inf')" if value > 0 else "-float('inf')"
    if isinstance(value, list):
        return "[" + ", ".join(_python_literal(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {_python_literal(v)}" for k, v in value.items()) + "}"
    return repr(value)


def _text(value: Any, field: str) -> str:
    """APPS stdin/stdout values are strings or lists of lines."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return "\n".join(value)
    raise _RowFault(field, "must be a string or an array of strings")


def _input_output(row: JsonObject) -> JsonObject:
    if "input_output" not in row:
        raise _RowFault("input_output", "required field missing")
    io = row["input_output"]
    if isinstance(io, str):
        try:
            io = json.loads(io)
        except json.JSONDecodeError as exc:
            raise _RowFault("input_output", f"string is not valid JSON: {exc.msg} (column {exc.colno})") from exc
    if not isinstance(io, dict):
        raise _RowFault("input_output", "must be an object with 'inputs' and 'outputs' (or a JSON string of one)")
    for key in ("inputs", "outputs"):
        if key not in io:
            raise _RowFault(f"input_output.{key}", "required field missing")
        if not isinstance(io[key], list):
            raise _RowFault(f"input_output.{key}", "must be an array")
    if not io["inputs"]:
        raise _RowFault("input_output.inputs", "no test cases")
    if len(io["inputs"]) != len(io["outputs"]):
        raise _RowFault("input_output.outputs", f"has {len(io['outputs'])} entries but inputs has {len(io['inputs'])}")
    fn_name = io.get("fn_name")
    if fn_name is not None and (not isinstance(fn_name, str) or not fn_name.isidentifier()):
        raise _RowFault("input_output.fn_name", f"must be a Python identifier, got {fn_name!r}")
    return io


def _call_tests(io: JsonObject, fn_name: str, on_solution_class: bool, unwrap: bool) -> list[JsonObject]:
    tests = []
    for i, (args, output) in enumerate(zip(io["inputs"], io["outputs"], strict=True)):
        if not isinstance(args, list):
            raise _RowFault(f"input_output.inputs[{i}]", "with fn_name, each input must be an array of arguments")
        expected = output[0] if unwrap and isinstance(output, list) and len(output) == 1 else output
        test: JsonObject = {"name": f"case {i + 1}", "kind": "call", "expected": expected}
        if on_solution_class:
            try:
                rendered = ", ".join(_python_literal(a) for a in args)
            except ValueError as exc:
                raise _RowFault(f"input_output.inputs[{i}]", str(exc)) from exc
            test["expr"] = f"Solution().{fn_name}({rendered})"
        else:
            test["args"] = args
        tests.append(test)
    return tests


def _stdio_tests(io: JsonObject) -> list[JsonObject]:
    return [
        {
            "name": f"case {i + 1}",
            "kind": "stdio",
            "stdin": _text(stdin, f"input_output.inputs[{i}]"),
            "expected_stdout": _text(stdout, f"input_output.outputs[{i}]"),
        }
        for i, (stdin, stdout) in enumerate(zip(io["inputs"], io["outputs"], strict=True))
    ]


def _optional_text(row: JsonObject, key: str) -> str:
    value = row.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise _RowFault(key, "must be a string")
    return value


def _record(row: Any, visible_first: int, unwrap: bool) -> JsonObject:
    """Our problem record for one APPS row (validated afterwards like any user record)."""
    if not isinstance(row, dict):
        raise _RowFault("(record)", "each APPS row must be a JSON object")
    pid = row.get("problem_id")
    if isinstance(pid, bool) or not isinstance(pid, int | str) or pid == "":
        raise _RowFault(
            "problem_id",
            "required: an integer or string" if pid is None else f"must be an integer or string, got {pid!r}",
        )
    question = row.get("question")
    if not isinstance(question, str) or not question.strip():
        raise _RowFault("question", "required field missing" if question is None else "must be a non-empty string")
    starter = _optional_text(row, "starter_code")
    io = _input_output(row)
    fn_name = io.get("fn_name")
    on_solution_class = bool(fn_name) and "class Solution" in starter
    if fn_name:
        tests = _call_tests(io, fn_name, on_solution_class, unwrap)
    else:
        tests = _stdio_tests(io)
    for test in tests[:visible_first]:
        test["visible"] = True
    statement = question.rstrip() + (f"\n\nStarter code:\n{starter.rstrip()}\n" if starter.strip() else "\n")
    return {
        "id": f"apps_{pid}",
        "benchmark": BENCHMARK,
        "category": BENCHMARK,
        "difficulty": _optional_text(row, "difficulty"),
        "statement": statement,
        "entry_point": ("Solution" if on_solution_class else fn_name) if fn_name else None,
        "signature": starter.strip(),
        "source": _optional_text(row, "url") or f"apps/{pid}",
        "tests": tests,
    }


def parse_apps_jsonl(
    data: bytes | str, source: str = "<upload>", visible_first: int = 0, unwrap_call_outputs: bool = True
) -> list[Problem]:
    """Problems from APPS-format JSONL text; `visible_first` marks the first k tests of each visible."""
    if visible_first < 0:
        raise ValueError("visible_first must be >= 0")

    def convert(value: Any, line: int) -> tuple[Problem | None, list[FormatIssue]]:
        try:
            record = _record(value, visible_first, unwrap_call_outputs)
        except _RowFault as fault:
            return None, [FormatIssue(line, fault.field, fault.message)]
        return problem_from_record(record, line, default_benchmark=BENCHMARK)

    return parse_jsonl_records(data, source, convert)


def load_apps(path: str | Path, visible_first: int = 0, unwrap_call_outputs: bool = True) -> list[Problem]:
    """Problems from an APPS-format JSONL file (see the module docstring for the row format)."""
    path = Path(path)
    data = read_suite_file(path)
    return parse_apps_jsonl(data, str(path), visible_first, unwrap_call_outputs)
