"""Turn the examples written in a function's docstring into (expression, expected) pairs.

HumanEval prompts show examples in several hand-written styles: doctest (`>>> f(x)` then the
output line) and one-liners such as `f(x) == y`, `f(x) ➞ y`, `f(x) => y`, `f(x) returns y`.
Only examples we can express exactly become tests: the expression must parse, call the entry
point and use no other names than the entry point and a few pure builtins, and the expected
value must be a Python literal that maps to JSON. Anything else (prose, `f(a)` with an undefined
name, multi-line calls, arithmetic on the right-hand side) is skipped rather than guessed at.
Docstrings contain mistakes; the HumanEval loader drops the examples its canonical solutions
contradict (see CONTRADICTED_EXAMPLES there).
"""

from __future__ import annotations

import ast
import json
import math
import re
from dataclasses import dataclass
from typing import Any

from execugraph.parsing import parse_python

# Where several start at the same position, the longest is tried first ("==>" before "==", "=").
SEPARATORS = ("should return", "returns", "==>", "=>", "➞", "->", "==", "=")
# Pure builtins an example may wrap around the call (e.g. `round(find_zero(xs), 2)`); anything
# with side effects or output (print, input, open, eval) disqualifies the example.
_PURE_BUILTINS = frozenset(
    "abs all any bool dict divmod float frozenset int len list max min pow range repr reversed round set sorted str sum tuple".split()
)
_FOR_INPUT = re.compile(r"^for\s+[A-Za-z_]\w*\s*=\s*(.+?),?\s+the output should be\s+(.+)$", re.IGNORECASE)


@dataclass(frozen=True)
class Example:
    """One docstring example: a Python expression and its expected value (JSON-compatible)."""

    expr: str
    expected: Any


class _NotJson(ValueError):
    pass


def _jsonable(value: Any) -> Any:
    """The JSON form of a literal (tuples become lists); raises _NotJson for sets, NaN, bytes, ..."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        if math.isnan(value):
            raise _NotJson("nan")
        return value
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise _NotJson("non-string keys")
        return {k: _jsonable(v) for k, v in value.items()}
    raise _NotJson(type(value).__name__)


def _parse_value(text: str) -> tuple[bool, Any]:
    """(ok, value) for a literal written in Python or JSON syntax (`true` appears in some prompts)."""
    candidates = [text.strip()]
    if candidates[0].endswith("."):
        candidates.insert(0, candidates[0][:-1].rstrip())  # "should return 16." means 16
    for candidate in candidates:
        if not candidate:
            continue
        for parse in (ast.literal_eval, json.loads):
            try:
                return True, _jsonable(parse(candidate))
            except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError, _NotJson):
                continue
    return False, None


def _usable_expression(text: str, entry_point: str, *, require_direct_call: bool) -> str | None:
    """The normalised expression if it calls the entry point and needs no other names."""
    try:
        tree = parse_python(text.strip(), mode="eval")
    except SyntaxError:
        return None
    body = tree.body
    if require_direct_call and not (
        isinstance(body, ast.Call) and isinstance(body.func, ast.Name) and body.func.id == entry_point
    ):
        return None
    names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    if entry_point not in names or any(n != entry_point and n not in _PURE_BUILTINS for n in names):
        return None
    if any(isinstance(node, ast.NamedExpr | ast.Lambda | ast.Await | ast.Yield) for node in ast.walk(tree)):
        return None
    return ast.unparse(tree)


def _doctest_examples(lines: list[str], entry_point: str) -> tuple[list[tuple[int, Example]], set[int]]:
    """(line, example) pairs in doctest form, and the lines they occupy (so one-liner parsing skips them)."""
    examples: list[tuple[int, Example]] = []
    used: set[int] = set()
    i = 0
    while i < len(lines):
        stripped = lines[i].strip()
        if not stripped.startswith(">>>"):
            i += 1
            continue
        source, start = [stripped[3:].strip()], i
        i += 1
        while i < len(lines) and lines[i].strip().startswith("..."):
            source.append(lines[i].strip()[3:].strip())
            i += 1
        output = []
        while i < len(lines) and lines[i].strip() and not lines[i].strip().startswith(">>>"):
            output.append(lines[i].strip())
            i += 1
        used.update(range(start, i))
        if not output:  # `>>> f(x) == y` written as one line, with no output line
            example = _split_one_liner(" ".join(source), entry_point)
            if example is not None:
                examples.append((start, example))
            continue
        expr = _usable_expression("\n".join(source), entry_point, require_direct_call=False)
        ok, expected = _parse_value("\n".join(output))
        if expr is not None and ok:
            examples.append((start, Example(expr, expected)))
    return examples, used


def _split_one_liner(line: str, entry_point: str) -> Example | None:
    """`f(args) <separator> literal`, trying each separator position until both sides parse."""
    start = line.find(f"{entry_point}(")
    while start > 0 and (line[start - 1].isalnum() or line[start - 1] == "_"):
        start = line.find(f"{entry_point}(", start + 1)
    if start < 0:
        return None
    tail = line[start:]
    positions = sorted(
        {(pos, sep) for sep in SEPARATORS for pos in _all_positions(tail, sep)}, key=lambda p: (p[0], -len(p[1]))
    )
    for pos, sep in positions:
        expr = _usable_expression(tail[:pos], entry_point, require_direct_call=True)
        if expr is None:
            continue
        ok, expected = _parse_value(tail[pos + len(sep) :])
        if ok:
            return Example(expr, expected)
    return None


def _for_input_example(line: str, entry_point: str, arity: int) -> Example | None:
    """`For lst = [1, 2] the output should be 3`: only for one-argument functions."""
    match = _FOR_INPUT.match(line.strip())
    if arity != 1 or match is None:
        return None
    ok_arg, _ = _parse_value(match.group(1))
    if not ok_arg:
        return None
    expr = _usable_expression(f"{entry_point}({match.group(1)})", entry_point, require_direct_call=True)
    ok, expected = _parse_value(match.group(2))
    return Example(expr, expected) if expr is not None and ok else None


def _all_positions(text: str, needle: str) -> list[int]:
    found, at = [], text.find(needle)
    while at >= 0:
        found.append(at)
        at = text.find(needle, at + 1)
    return found


def docstring_examples(prompt: str, entry_point: str) -> list[Example]:
    """The expressible examples in the entry point's docstring, in order, without repeats."""
    try:
        tree = parse_python(prompt)
    except SyntaxError:
        return []
    docstring, arity = None, 0
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == entry_point:
            docstring = ast.get_docstring(node, clean=True)
            arity = len(node.args.posonlyargs) + len(node.args.args)
    if not docstring:
        return []
    lines = docstring.splitlines()
    examples, used = _doctest_examples(lines, entry_point)
    for number, line in enumerate(lines):
        if number in used:
            continue
        example = (
            _split_one_liner(line, entry_point)
            if f"{entry_point}(" in line
            else _for_input_example(line, entry_point, arity)
        )
        if example is not None:
            examples.append((number, example))
    unique: dict[str, Example] = {}
    for _, example in sorted(examples, key=lambda pair: pair[0]):
        unique.setdefault(example.expr, example)
    return list(unique.values())
