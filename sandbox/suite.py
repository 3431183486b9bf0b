"""The suite format (see sandbox/README.md), parsed and checked before anything runs.

A malformed suite is the caller's mistake, not the candidate's: it raises
SuiteError naming the offending field instead of becoming a verdict.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from sandbox.limits import MIB, SUITE_FILE_MAX_BYTES
from sandbox.stdio_compare import STDIO_COMPARE_MODES

COMPARE_MODES = ("exact", "float", "unordered", "set")
KINDS = ("call", "assert", "stdio")
DEFAULT_TOL = 1e-6


class SuiteError(ValueError):
    """A suite (or suite file) that cannot be run as given."""


@dataclass(frozen=True)
class CallTest:
    """Evaluate `expr`, or call the entry point with `args`/`kwargs`, and compare with `expected`."""

    name: str
    expected: Any
    expr: str | None = None
    args: list[Any] | None = None
    kwargs: dict[str, Any] | None = None
    compare: str = "exact"
    tol: float = DEFAULT_TOL
    kind: str = "call"
    cpu_limit_s: float | None = None  # this test's own CPU limit (e.g. calibrated); None: Limits.timeout_s
    keep_result: bool = False  # hand the returned value back in TestResult.result (tagged JSON)

    def describe(self, entry_point: str | None) -> str:
        if self.expr is not None:
            return self.expr
        parts = [json.dumps(a) for a in self.args or []]
        parts += [f"{k}={json.dumps(v)}" for k, v in (self.kwargs or {}).items()]
        return f"{entry_point}({', '.join(parts)})"


@dataclass(frozen=True)
class AssertTest:
    """Run `source` (e.g. `def check(candidate): ...`), then `call`; passing means nothing raised."""

    name: str
    source: str
    call: str
    kind: str = "assert"
    cpu_limit_s: float | None = None

    def describe(self, entry_point: str | None) -> str:
        return self.call


@dataclass(frozen=True)
class StdioTest:
    """Run the candidate as a script on `stdin`; compare stdout modulo trailing whitespace (or by `compare`)."""

    name: str
    stdin: str
    expected_stdout: str
    kind: str = "stdio"
    cpu_limit_s: float | None = None
    compare: str = "lines"  # sandbox.stdio_compare.STDIO_COMPARE_MODES: lines (default) or lcb (LiveCodeBench's)

    def describe(self, entry_point: str | None) -> str:
        first = self.stdin.splitlines()[0] if self.stdin else ""
        return f"stdin: {first[:60]!r}{' ...' if len(self.stdin) > len(first) + 1 else ''}"


Test = CallTest | AssertTest | StdioTest


@dataclass(frozen=True)
class Suite:
    """A parsed suite: which name to call, its accepted aliases, the tests, and the module preamble.

    `preamble` is source text placed verbatim before the candidate's code, so
    both run as one module (HumanEval's harness runs `prompt + completion`
    this way: the prompt's imports and helpers are the candidate's own).
    """

    entry_point: str | None
    aliases: tuple[str, ...] = ()
    tests: tuple[Test, ...] = field(default_factory=tuple)
    preamble: str = ""

    def program(self, code: str) -> str:
        """The module source the candidate process runs: the preamble, then the candidate's code."""
        return self.preamble + code if self.preamble else code


def _is_identifier(name: Any) -> bool:
    return isinstance(name, str) and name.isidentifier()


@lru_cache(maxsize=4096)
def _compiles(source: str, mode: str) -> str | None:
    """None when `source` compiles in `mode`, else the compiler's message."""
    try:
        compile(source, "<suite>", mode)
    except (SyntaxError, ValueError) as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


def _check_json_value(value: Any, where: str, depth: int = 0) -> None:
    """Expected values and args must be JSON data (what a suite file can hold)."""
    if depth > 100:
        raise SuiteError(f"{where}: nested too deeply")
    if value is None or isinstance(value, bool | int | str):
        return
    if isinstance(value, float):
        return  # Infinity/-Infinity/NaN are allowed (Python's json reads them)
    if isinstance(value, list | tuple):
        for i, item in enumerate(value):
            _check_json_value(item, f"{where}[{i}]", depth + 1)
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise SuiteError(f"{where}: object keys must be strings, got {key!r}")
            _check_json_value(item, f"{where}[{key!r}]", depth + 1)
        return
    raise SuiteError(f"{where}: {type(value).__name__} is not a JSON value")


def _cpu_limit(raw: dict[str, Any], where: str) -> float | None:
    """A test's own CPU limit in seconds (`cpu_limit_s`), if it gives one."""
    value = raw.get("cpu_limit_s")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value <= 0:
        raise SuiteError(f"{where}.cpu_limit_s: must be a positive number of CPU seconds, got {value!r}")
    return float(value)


def _parse_test(raw: Any, index: int, entry_point: str | None) -> Test:
    test = _parse_test_body(raw, index, entry_point)
    cpu = _cpu_limit(raw, f"tests[{index}]")
    return test if cpu is None else replace(test, cpu_limit_s=cpu)


def _parse_test_body(raw: Any, index: int, entry_point: str | None) -> Test:
    where = f"tests[{index}]"
    if not isinstance(raw, dict):
        raise SuiteError(f"{where}: must be an object, got {type(raw).__name__}")
    kind = raw.get("kind")
    if kind not in KINDS:
        raise SuiteError(f"{where}.kind: must be one of {', '.join(KINDS)}, got {kind!r}")
    name = raw.get("name", f"test_{index}")
    if not isinstance(name, str) or not name:
        raise SuiteError(f"{where}.name: must be a non-empty string, got {name!r}")

    if kind == "call":
        if "expected" not in raw:
            raise SuiteError(f"{where}: 'expected' is required for kind 'call'")
        _check_json_value(raw["expected"], f"{where}.expected")
        expr, args, kwargs = raw.get("expr"), raw.get("args"), raw.get("kwargs")
        if (expr is None) == (args is None and kwargs is None):
            raise SuiteError(
                f"{where}: give either 'expr' or 'args' (with the suite's entry_point), not both or neither"
            )
        if expr is not None:
            if not isinstance(expr, str):
                raise SuiteError(f"{where}.expr: must be a string, got {type(expr).__name__}")
            problem = _compiles(expr, "eval")
            if problem:
                raise SuiteError(f"{where}.expr: not a Python expression ({problem})")
        else:
            if entry_point is None:
                raise SuiteError(f"{where}: 'args' needs the suite's 'entry_point'")
            if args is None:
                args = []
            if not isinstance(args, list):
                raise SuiteError(f"{where}.args: must be a list, got {type(args).__name__}")
            _check_json_value(args, f"{where}.args")
            if kwargs is not None:
                if not isinstance(kwargs, dict) or not all(_is_identifier(k) for k in kwargs):
                    raise SuiteError(f"{where}.kwargs: must be an object keyed by argument names")
                _check_json_value(kwargs, f"{where}.kwargs")
        compare = raw.get("compare", "exact")
        if compare not in COMPARE_MODES:
            raise SuiteError(f"{where}.compare: must be one of {', '.join(COMPARE_MODES)}, got {compare!r}")
        tol = raw.get("tol", DEFAULT_TOL)
        if isinstance(tol, bool) or not isinstance(tol, int | float) or not math.isfinite(tol) or tol < 0:
            raise SuiteError(f"{where}.tol: must be a non-negative number, got {tol!r}")
        keep = raw.get("keep_result", False)
        if not isinstance(keep, bool):
            raise SuiteError(f"{where}.keep_result: must be true or false, got {keep!r}")
        return CallTest(name, raw["expected"], expr, args, kwargs, compare, float(tol), keep_result=keep)

    if kind == "assert":
        source = raw.get("source")
        if not isinstance(source, str):
            raise SuiteError(f"{where}.source: must be a string of Python code (may be empty)")
        problem = _compiles(source, "exec")
        if problem:
            raise SuiteError(f"{where}.source: does not compile ({problem})")
        call = raw.get("call")
        if call is None:
            if entry_point is None:
                raise SuiteError(f"{where}: 'call' is required when the suite has no entry_point")
            call = "check(candidate)"
        if not isinstance(call, str):
            raise SuiteError(f"{where}.call: must be a string, got {type(call).__name__}")
        problem = _compiles(call, "eval")
        if problem:
            raise SuiteError(f"{where}.call: not a Python expression ({problem})")
        return AssertTest(name, source, call)

    stdin = raw.get("stdin", "")
    if not isinstance(stdin, str):
        raise SuiteError(f"{where}.stdin: must be a string, got {type(stdin).__name__}")
    expected_stdout = raw.get("expected_stdout")
    if not isinstance(expected_stdout, str):
        raise SuiteError(f"{where}.expected_stdout: must be a string (required for kind 'stdio')")
    stdio_compare = raw.get("compare", "lines")
    if stdio_compare not in STDIO_COMPARE_MODES:
        raise SuiteError(f"{where}.compare: for kind 'stdio' must be one of {', '.join(STDIO_COMPARE_MODES)}, "
                         f"got {stdio_compare!r}")
    return StdioTest(name, stdin, expected_stdout, compare=stdio_compare)


def parse_suite(data: Any) -> Suite:
    """Check a suite dict and return its parsed form, or raise SuiteError saying what is wrong."""
    if isinstance(data, Suite):
        return data
    if not isinstance(data, dict):
        raise SuiteError(f"suite: must be an object, got {type(data).__name__}")
    entry_point = data.get("entry_point")
    if entry_point is not None and not _is_identifier(entry_point):
        raise SuiteError(f"entry_point: must be a Python identifier or null, got {entry_point!r}")
    aliases = data.get("aliases") or []
    if not isinstance(aliases, list) or not all(_is_identifier(a) for a in aliases):
        raise SuiteError(f"aliases: must be a list of Python identifiers, got {aliases!r}")
    tests = data.get("tests")
    if not isinstance(tests, list) or not tests:
        raise SuiteError("tests: must be a non-empty list of test objects")
    preamble = data.get("preamble")
    if preamble is None:
        preamble = ""
    if not isinstance(preamble, str):
        raise SuiteError(f"preamble: must be a string of Python code, got {type(preamble).__name__}")
    parsed = tuple(_parse_test(raw, i, entry_point) for i, raw in enumerate(tests))
    return Suite(entry_point, tuple(a for a in aliases if a != entry_point), parsed, preamble)


def load_suite_file(path: str | Path) -> Suite:
    """Read and parse a suite JSON file; errors name the file (and line/column for bad JSON)."""
    path = Path(path)
    try:
        size = path.stat().st_size
        if size > SUITE_FILE_MAX_BYTES:
            limit = SUITE_FILE_MAX_BYTES // MIB
            raise SuiteError(f"{path}: {size / MIB:.1f} MiB; a suite file may be at most {limit} MiB")
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SuiteError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SuiteError(f"{path}: cannot read ({exc})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SuiteError(f"{path}: line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    try:
        return parse_suite(data)
    except SuiteError as exc:
        raise SuiteError(f"{path}: {exc}") from None
