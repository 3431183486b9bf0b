"""LiveCodeBench problem files (`code_generation_lite` rows, JSONL) as a benchmark, graded as lcb_runner grades.

Each line is one row: `question_title`, `question_content`, `platform` (leetcode, atcoder,
codeforces), `question_id`, `contest_id`, `contest_date` (ISO date-time, read as Python's
`datetime.fromisoformat` reads it, as LiveCodeBench does), `starter_code`, `difficulty`
(easy, medium, hard), `public_test_cases` (a JSON string of a list of {input, output,
testtype}), `private_test_cases` (the same list as JSON, or base64 of zlib of a pickled JSON
string: `lcb_pickle`, never unpickled) and `metadata` (a JSON string; `func_name` for LeetCode).

Grading, as lcb_runner's testing_util does it:
- no `func_name`: every test is a `stdio` test compared with LiveCodeBench's rule
  (`"compare": "lcb"`: stripped lines, equal as text or as decimal numbers);
- with `func_name`: every test is a `call` test, `Solution().<func_name>(*args)` (or the
  function itself when the starter code has no `class Solution`), each input line one JSON
  argument, the expected value the JSON output, compared with `==` (tuples read as lists);
- 6 CPU seconds per test (lcb_runner's default `--timeout 6`); the `with-prompt` protocol runs
  LiveCodeBench's import block first (`LCB_PREAMBLE`: its star imports and recursion limit), as
  its grader does; `standalone` runs the program as written.
The problem id is `lcb_<question_id>`; the platform is the category, the difficulty kept, the
contest date the problem's `release_date` (YYYY-MM-DD). Public tests are visible.
Known differences: lcb_runner runs a stdio program as the body of one function and reuses one
`Solution()` for every test; here a program runs as `__main__` and each test makes its own.
"""

from __future__ import annotations

import json
import math
from datetime import datetime
from pathlib import Path
from typing import Any

from execugraph.benchmarks.errors import FormatIssue, read_suite_file
from execugraph.benchmarks.lcb_pickle import PickleRefused, decode_private_tests
from execugraph.benchmarks.suite_format import ID_PATTERN, problem_from_record
from execugraph.benchmarks.user import parse_jsonl_records
from execugraph.domain.json_types import JsonObject
from execugraph.domain.problem import Problem

BENCHMARK = "livecodebench"
PLATFORMS = ("leetcode", "atcoder", "codeforces")
DIFFICULTIES = ("easy", "medium", "hard")
TEST_TYPES = ("stdin", "functional")
ROW_FIELDS = ("question_title", "question_content", "platform", "question_id", "contest_id", "contest_date",
              "starter_code", "difficulty", "public_test_cases", "private_test_cases", "metadata")
LCB_TIMEOUT_S = 6.0
ID_PREFIX = "lcb_"
_STAR_IMPORTS = ("string", "re", "datetime", "collections", "heapq", "bisect", "copy", "math", "random",
                 "statistics", "itertools", "functools", "operator", "io", "sys", "json", "builtins", "typing")
LCB_PREAMBLE = ("".join(f"from {name} import *\n" for name in _STAR_IMPORTS)
                + "".join(f"import {name}\n" for name in _STAR_IMPORTS if name not in ("builtins", "typing"))
                + "sys.setrecursionlimit(50000)\nsys.set_int_max_str_digits(50000)\n")


class RowFault(Exception):
    """One fault of a row: the field at fault and what is wrong."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


def problem_id(question_id: str) -> str:
    """Our id for a LiveCodeBench question (`abc301_a` -> `lcb_abc301_a`)."""
    return f"{ID_PREFIX}{question_id}"


def looks_livecodebench(record: Any) -> bool:
    """Whether a JSON line is a LiveCodeBench problem row (by its fields)."""
    return isinstance(record, dict) and all(k in record for k in ("question_id", "question_content"))


def release_date(value: Any, field: str = "contest_date") -> str:
    """The date (YYYY-MM-DD) of a `contest_date` as LiveCodeBench reads it (`datetime.fromisoformat`)."""
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value).date().isoformat()
        except ValueError:
            pass
    raise RowFault(field, "expected an ISO 8601 date-time as LiveCodeBench writes it (2023-08-21T00:00:00), "
                          f"got {json.dumps(value)[:60]}")


def question_id_of(value: Any, field: str = "question_id") -> str:
    """A question id as text (LiveCodeBench's are strings; a number is read as its digits)."""
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not ID_PATTERN.match(problem_id(value)):
        raise RowFault(field, f"expected an id of letters, digits and _ . : / -, got {json.dumps(value)[:60]}")
    return value


def choice(row: JsonObject, field: str, allowed: tuple[str, ...]) -> str:
    """A field that must be one of `allowed` (LiveCodeBench's enums)."""
    value = row.get(field)
    if value not in allowed:
        missing = field not in row
        raise RowFault(field, "required field missing" if missing else
                       f"must be one of {', '.join(allowed)}, got {json.dumps(value)[:60]}")
    return str(value)


def row_header(row: JsonObject) -> tuple[str, str, str, str]:
    """(question id, platform, difficulty, release date) that every LiveCodeBench row and output record
    carries; RowFault names the first field at fault."""
    qid = question_id_of(row.get("question_id")) if "question_id" in row else None
    if qid is None:
        raise RowFault("question_id", "required field missing")
    platform = choice(row, "platform", PLATFORMS)
    difficulty = choice(row, "difficulty", DIFFICULTIES)
    if "contest_date" not in row:
        raise RowFault("contest_date", "required field missing")
    return qid, platform, difficulty, release_date(row["contest_date"])


def _text(row: JsonObject, field: str, required: bool = True) -> str:
    value = row.get(field)
    if value is None and not required:
        return ""
    if field not in row:
        raise RowFault(field, "required field missing")
    if not isinstance(value, str):
        raise RowFault(field, f"must be a string, got {type(value).__name__}")
    return value


def _test_list(value: Any, field: str) -> list[JsonObject]:
    """A test-case list as LiveCodeBench stores it: a JSON string of [{input, output, testtype}]."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            if field != "private_test_cases" or not value.strip():
                raise RowFault(field, "not a JSON list of tests" if value.strip() else "empty: no tests") from None
            try:
                value = json.loads(decode_private_tests(value))
            except PickleRefused as exc:
                raise RowFault(field, str(exc)) from None
            except json.JSONDecodeError as exc:
                raise RowFault(field, f"the pickled string is not JSON ({exc.msg})") from None
    if not isinstance(value, list):
        raise RowFault(field, f"expected a list of tests, got {type(value).__name__}")
    for i, test in enumerate(value):
        if not isinstance(test, dict):
            raise RowFault(f"{field}[{i}]", f"expected an object {{input, output, testtype}}, got {type(test).__name__}")
        for key in ("input", "output"):
            if not isinstance(test.get(key), str):
                raise RowFault(f"{field}[{i}].{key}", "required string missing" if key not in test
                               else f"must be a string, got {type(test[key]).__name__}")
        if test.get("testtype") not in TEST_TYPES:
            raise RowFault(f"{field}[{i}].testtype", f"must be one of {', '.join(TEST_TYPES)}, "
                           f"got {json.dumps(test.get('testtype'))[:40]}")
    return value


def python_literal(value: Any) -> str:
    """Python source for a JSON value (None, True, float('inf'), nested lists and dicts)."""
    if isinstance(value, float) and not math.isfinite(value):
        return "float('nan')" if math.isnan(value) else ("float('inf')" if value > 0 else "-float('inf')")
    if isinstance(value, list):
        return "[" + ", ".join(python_literal(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {python_literal(v)}" for k, v in value.items()) + "}"
    return repr(value)


def _json(text: str, field: str, what: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise RowFault(field, f"{what} is not JSON ({exc.msg}): {text[:60]!r}") from None
    except RecursionError:
        raise RowFault(field, f"{what} is nested too deeply to read") from None


def _call_test(test: JsonObject, field: str, func: str, on_class: bool) -> JsonObject:
    args = [_json(line, f"{field}.input", f"line {n + 1} of the input") for n, line in enumerate(test["input"].split("\n"))]
    expected = _json(test["output"], f"{field}.output", "the output")
    out: JsonObject = {"kind": "call", "expected": expected}
    if on_class:
        out["expr"] = f"Solution().{func}({', '.join(python_literal(a) for a in args)})"
    else:
        out["args"] = args
    return out


def _tests(row: JsonObject, func: str | None, on_class: bool) -> list[JsonObject]:
    public = _test_list(row.get("public_test_cases"), "public_test_cases") if "public_test_cases" in row else None
    if public is None:
        raise RowFault("public_test_cases", "required field missing")
    if "private_test_cases" not in row:
        raise RowFault("private_test_cases", "required field missing (the hidden tests grade every program)")
    private = _test_list(row["private_test_cases"], "private_test_cases")
    if not public and not private:
        raise RowFault("public_test_cases", "no tests, and private_test_cases holds none either")
    tests = []
    for field, cases, visible in (("public_test_cases", public, True), ("private_test_cases", private, False)):
        for i, case in enumerate(cases):
            where = f"{field}[{i}]"
            if func is None and case["testtype"] == "functional":
                raise RowFault("metadata.func_name", f"{where} is a functional (LeetCode) test but metadata names "
                               "no func_name to call")
            test = (_call_test(case, where, func, on_class) if func is not None else
                    {"kind": "stdio", "stdin": case["input"], "expected_stdout": case["output"], "compare": "lcb"})
            test["name"] = f"{'public' if visible else 'private'} {i + 1}"
            if visible:
                test["visible"] = True
            tests.append(test)
    return tests


def _metadata(row: JsonObject) -> JsonObject:
    value = row.get("metadata", "{}")
    if isinstance(value, str):
        value = _json(value, "metadata", "metadata")
    if not isinstance(value, dict):
        raise RowFault("metadata", f"expected a JSON object (as a string), got {type(value).__name__}")
    func = value.get("func_name")
    if func is not None and (not isinstance(func, str) or not func.isidentifier()):
        raise RowFault("metadata.func_name", f"must be a Python identifier, got {json.dumps(func)[:60]}")
    return value


def problem_of_row(row: Any, benchmark: str = BENCHMARK) -> Problem:
    """The Problem of one LiveCodeBench row; RowFault names the first field at fault."""
    if not isinstance(row, dict):
        raise RowFault("(record)", f"each row must be a JSON object, got {type(row).__name__}")
    qid, platform, difficulty, date = row_header(row)
    content = _text(row, "question_content")
    title = _text(row, "question_title", required=False)
    starter = _text(row, "starter_code", required=False)
    func = _metadata(row).get("func_name")
    on_class = func is not None and "class Solution" in starter
    tests = _tests(row, func, on_class)
    statement = (f"{title}\n\n" if title.strip() else "") + content.rstrip() + "\n"
    if starter.strip():
        statement += f"\nStarter code:\n{starter.rstrip()}\n"
    record = {"id": problem_id(qid), "benchmark": benchmark, "category": platform, "difficulty": difficulty,
              "statement": statement, "signature": starter.strip(),
              "entry_point": ("Solution" if on_class else func) if func else None,
              "source": f"livecodebench/{platform}/{qid}", "tests": tests}
    problem, issues = problem_from_record(record, None, default_benchmark=benchmark)
    if problem is None:
        first = issues[0]
        raise RowFault(first.field or "(record)", first.message)
    return problem.model_copy(update={"preamble": LCB_PREAMBLE, "timeout_s": LCB_TIMEOUT_S, "release_date": date})


def problem_from_row(row: Any, line: int | None, benchmark: str = BENCHMARK) -> tuple[Problem | None, list[FormatIssue]]:
    """(Problem, []) or (None, [the fault, naming line and field])."""
    try:
        return problem_of_row(row, benchmark), []
    except RowFault as fault:
        return None, [FormatIssue(line, fault.field, fault.message)]


def parse_livecodebench_jsonl(data: bytes | str, source: str = "<upload>", benchmark: str = BENCHMARK) -> list[Problem]:
    """Problems from LiveCodeBench JSONL; any bad row refuses the whole file (BenchmarkFormatError: line, field)."""

    def convert(value: Any, line: int) -> tuple[Problem | None, list[FormatIssue]]:
        return problem_from_row(value, line, benchmark)

    return parse_jsonl_records(data, source, convert)


def load_livecodebench(path: str | Path, benchmark: str = BENCHMARK) -> list[Problem]:
    """Problems of a LiveCodeBench problem file (`code_generation_lite`'s test*.jsonl; see the module docstring)."""
    path = Path(path)
    return parse_livecodebench_jsonl(read_suite_file(path), str(path), benchmark)
