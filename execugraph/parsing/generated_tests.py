"""Turn tests a model wrote into sandbox `call` tests; drop the malformed ones and count them.

Accepted shapes: a JSON list (possibly wrapped as {"tests": [...]}) of objects with an expression
("call"/"expr") or arguments ("args"/"input"/"kwargs") and an expected value, [args, expected] pairs,
or plain text with `assert f(x) == y` lines, `>>> f(x)` doctests, `f(x) -> y` lines and
`print(f(x))  # y` comments. Every test is data only: the call must be to the entry point with literal
arguments, and the expected value must be a finite JSON value; anything else is dropped and counted,
so a test the model wrote can never smuggle code into the harness.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from execugraph.parsing.lenient_json import iter_json_candidates
from execugraph.parsing.model_text import clean_model_text
from execugraph.parsing.python_ast import parse_python
from execugraph.parsing.result import Parsed, add_repair
from execugraph.parsing.suite_tests import CallTest, Comparison

if TYPE_CHECKING:
    from execugraph.domain.json_types import JsonObject

MAX_TESTS = 20
MAX_NAME_CHARS = 80
_EXPECTED_KEYS = ("expected", "expected_output", "expected_result", "output", "result", "return", "returns", "answer")
_CALL_KEYS = ("call", "expr", "expression", "code", "test", "assert", "assertion")
_ARG_KEYS = ("args", "arguments", "params", "parameters", "inputs", "input")
_LIST_KEYS = ("tests", "test_cases", "testcases", "cases", "examples")
_DOCTEST = re.compile(r"^>>>\s*(?P<call>.+)$")
_ARROW = re.compile(
    r"^(?:[-*]\s+|\d+[.)]\s+)?`?(?P<call>[A-Za-z_]\w*\(.*\))`?\s*(?:==|->|=>|→|returns?|should return|gives|:)\s*`?(?P<exp>.+?)`?\.?$"
)
_PRINT_COMMENT = re.compile(
    r"^print\((?P<call>.+)\)\s*#\s*(?:output|expected|returns?|result|prints?|->|=>|→)?\s*[:=]?\s*(?P<exp>.+)$",
    re.IGNORECASE,
)


class _Drop(Exception):
    """A test that cannot be used, with the reason recorded as `dropped:<reason>`."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class _Builder:
    """Validates and normalises tests for one entry point, collecting repairs and drop counts."""

    def __init__(self, entry_point: str, aliases: Iterable[str], signature: str) -> None:
        self.entry_point = entry_point
        self.names = {entry_point, *aliases, "candidate"}
        self.arity, self.returns_text = _signature_facts(signature, entry_point)
        self.tests: list[CallTest] = []
        self.seen: dict[str, object] = {}  # expr -> its expected value
        self.repairs: list[str] = []
        self.dropped = 0

    def drop(self, reason: str) -> None:
        self.dropped += 1
        add_repair(self.repairs, f"dropped:{reason}")

    # -- pieces ----------------------------------------------------------------------------------
    def call_source(self, call: ast.expr) -> str:
        """The call re-rendered against the entry point; only literal arguments are allowed."""
        if not isinstance(call, ast.Call):
            raise _Drop("not_a_call")
        if not isinstance(call.func, ast.Name) or call.func.id not in self.names:
            raise _Drop("wrong_function")  # a helper's test must not be turned into one of the entry point
        for node in [*call.args, *(kw.value for kw in call.keywords)]:
            if isinstance(node, ast.Starred):
                raise _Drop("non_literal_args")
            try:
                ast.literal_eval(node)
            except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
                raise _Drop("non_literal_args") from None
        if any(kw.arg is None for kw in call.keywords):
            raise _Drop("non_literal_args")
        renamed = ast.Call(func=ast.Name(id=self.entry_point, ctx=ast.Load()), args=call.args, keywords=call.keywords)
        return ast.unparse(renamed)

    def expected_value(self, value: Any) -> Any:
        """A finite JSON value; tuples become lists, quoted numbers become numbers when the signature says so."""
        value = _jsonable(value)
        if isinstance(value, str) and self.returns_text is False:
            try:
                literal = ast.literal_eval(value.strip())
            except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
                literal = value
            if not isinstance(literal, str):
                value = _jsonable(literal)
                add_repair(self.repairs, "coerced_expected")
        return value

    def add(self, expr: str, expected: Any, name: Any = None, compare: Comparison | None = None) -> None:
        """Record one valid test; `compare` holds the sandbox's comparison fields (`compare`, `tol`)."""
        if expr in self.seen:
            if self.seen[expr] != expected:
                self.drop("conflicting_duplicate")
            else:
                add_repair(self.repairs, "dropped_duplicates")
            return
        if len(self.tests) >= MAX_TESTS:
            add_repair(self.repairs, "capped_tests")
            return
        self.seen[expr] = expected
        label = str(name).strip()[:MAX_NAME_CHARS] if isinstance(name, str | int) and str(name).strip() else ""
        label = label or f"generated_{len(self.tests) + 1}"
        if any(t["name"] == label for t in self.tests):
            label = f"{label}_{len(self.tests) + 1}"
        self.tests.append(CallTest(kind="call", name=label, expr=expr, expected=expected, **(compare or {})))

    # -- shapes ----------------------------------------------------------------------------------
    def from_statement(self, source: str, name: Any = None) -> None:
        """`assert f(x) == y`, `assert not f(x)`, `assert f(x)`, `f(x) == y`, and the float, sorted and
        set comparisons (`abs(f(x) - y) < tol`, `math.isclose`, `sorted(f(x)) == ...`, `set(f(x)) == ...`)."""
        try:
            tree = parse_python(source.strip())
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            raise _Drop("unparsable") from None
        if len(tree.body) != 1:
            raise _Drop("unparsable")
        stmt = tree.body[0]
        test = stmt.test if isinstance(stmt, ast.Assert) else stmt.value if isinstance(stmt, ast.Expr) else None
        if test is None:
            raise _Drop("unsupported_assert")
        compare: Comparison = {}
        special = _special_comparison(test)
        if special is not None:
            call, expected_node, compare = special
        elif isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq | ast.Is):
            left, right = test.left, test.comparators[0]
            call, expected_node = (left, right) if isinstance(left, ast.Call) else (right, left)
        elif isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and isinstance(stmt, ast.Assert):
            call, expected_node = test.operand, ast.Constant(False)
        elif isinstance(test, ast.Call) and isinstance(stmt, ast.Assert):
            call, expected_node = test, ast.Constant(True)
        else:
            raise _Drop("unsupported_assert")
        expr = self.call_source(call)
        try:
            expected = ast.literal_eval(expected_node)
        except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
            raise _Drop("non_literal_expected") from None
        if isinstance(expected, set | frozenset):
            expected = sorted(expected, key=repr)
        self.add(expr, self.expected_value(expected), name, compare)

    def from_call_and_expected(self, call_text: str, expected: Any, name: Any = None) -> None:
        try:
            node = parse_python(call_text.strip(), mode="eval").body
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            raise _Drop("unparsable") from None
        self.add(self.call_source(node), self.expected_value(expected), name)

    def from_args(self, args: Any, kwargs: Any, expected: Any, name: Any = None, spread: bool = True) -> None:
        positional = list(args) if spread and isinstance(args, list | tuple) else [args]
        keywords = dict(kwargs) if isinstance(kwargs, dict) else {}
        if not all(isinstance(k, str) and k.isidentifier() for k in keywords):
            raise _Drop("non_literal_args")
        for value in [*positional, *keywords.values()]:
            _check_literal(value)
        rendered = [repr(v) for v in positional] + [f"{k}={v!r}" for k, v in keywords.items()]
        self.from_call_and_expected(f"{self.entry_point}({', '.join(rendered)})", expected, name)

    def from_input_text(self, text: str, expected: Any, name: Any = None) -> None:
        """An "input" string: a whole call, an argument list ("[1, 2], 3"), else one string argument."""
        stripped = text.strip()
        if re.match(rf"^{re.escape(self.entry_point)}\s*\(", stripped) or re.match(r"^candidate\s*\(", stripped):
            self.from_call_and_expected(stripped, expected, name)
            return
        try:
            node = parse_python(f"_f({stripped})", mode="eval").body
            assert isinstance(node, ast.Call)
            for arg in [*node.args, *(kw.value for kw in node.keywords)]:
                ast.literal_eval(arg)
        except (SyntaxError, ValueError, TypeError, AssertionError, RecursionError, MemoryError):
            add_repair(self.repairs, "input_as_string")
            self.from_args([text], None, expected, name)
            return
        add_repair(self.repairs, "input_as_arguments")
        self.from_call_and_expected(f"{self.entry_point}({stripped})", expected, name)

    def from_dict(self, item: JsonObject) -> None:
        keys = {re.sub(r"[^a-z0-9]+", "_", str(k).lower()).strip("_"): k for k in item}
        name = next((item[keys[k]] for k in ("name", "description") if k in keys), None)
        call_key = next((keys[k] for k in _CALL_KEYS if k in keys), None)
        expected_key = next((keys[k] for k in _EXPECTED_KEYS if k in keys), None)
        if call_key is not None and isinstance(item[call_key], str) and expected_key is None:
            self.from_statement(item[call_key], name)  # {"test": "assert f(1) == 2"}
            return
        if expected_key is None:
            raise _Drop("no_expected")
        expected = item[expected_key]
        if call_key is not None and isinstance(item[call_key], str):
            self.from_call_and_expected(item[call_key], expected, name)
            return
        arg_key = next((keys[k] for k in _ARG_KEYS if k in keys), None)
        kwargs = item.get(keys.get("kwargs", ""), None)
        if arg_key is None:
            if kwargs is not None:
                self.from_args([], kwargs, expected, name)
                return
            raise _Drop("no_call")
        args = item[arg_key]
        if keys.get("args") == arg_key or keys.get("arguments") == arg_key:
            if isinstance(args, dict):
                self.from_args([], args, expected, name)
            elif isinstance(args, list):
                self.from_args(args, kwargs, expected, name)
            else:
                add_repair(self.repairs, "wrapped_scalar_args")
                self.from_args([args], kwargs, expected, name)
            return
        if isinstance(args, str):
            self.from_input_text(args, expected, name)
        elif isinstance(args, dict):
            add_repair(self.repairs, "input_as_kwargs")
            self.from_args([], args, expected, name)
        elif isinstance(args, list) and self.arity == 1 and len(args) != 1:
            add_repair(self.repairs, "input_as_single_argument")
            self.from_args(args, kwargs, expected, name, spread=False)
        elif isinstance(args, list):
            add_repair(self.repairs, "input_as_arguments")
            self.from_args(args, kwargs, expected, name)
        else:
            self.from_args([args], kwargs, expected, name)

    def from_item(self, item: Any) -> None:
        """One element of a JSON test list, whatever its shape; malformed ones are dropped and counted."""
        try:
            if isinstance(item, dict):
                self.from_dict(item)
            elif isinstance(item, str):
                self.from_statement(item)
            elif isinstance(item, list) and len(item) == 2:
                add_repair(self.repairs, "pair_format")
                self.from_args(item[0], None, item[1], spread=isinstance(item[0], list) and self.arity != 1)
            else:
                raise _Drop("unrecognised_item")
        except _Drop as problem:
            self.drop(problem.reason)


def _callee_name(node: ast.expr) -> str:
    if not isinstance(node, ast.Call):
        return ""
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def _split_call(a: ast.expr, b: ast.expr) -> tuple[ast.expr, ast.expr]:
    """(the call under test, the expected side) from two operands in either order."""
    return (a, b) if isinstance(a, ast.Call) else (b, a)


def _single_arg(node: ast.expr, names: tuple[str, ...]) -> ast.expr | None:
    """The only argument of a call to one of `names` (`sorted(x)` -> `x`), else None."""
    if isinstance(node, ast.Call) and _callee_name(node) in names and len(node.args) == 1 and not node.keywords:
        return node.args[0]
    return None


def _special_comparison(test: ast.expr) -> tuple[ast.expr, ast.expr, Comparison] | None:
    """Asserts that compare with a tolerance or without order, mapped to the sandbox's compare modes."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        op, left, right = test.ops[0], test.left, test.comparators[0]
        diff = _single_arg(left, ("abs",))
        if isinstance(op, ast.Lt | ast.LtE) and isinstance(diff, ast.BinOp) and isinstance(diff.op, ast.Sub):
            try:
                tol = ast.literal_eval(right)
            except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
                raise _Drop("non_literal_expected") from None
            if isinstance(tol, bool) or not isinstance(tol, int | float) or not 0 <= tol < float("inf"):
                raise _Drop("unsupported_assert")
            call, expected = _split_call(diff.left, diff.right)
            return call, expected, {"compare": "float", "tol": float(tol)}
        if isinstance(op, ast.Eq):
            for mode, wrappers in (("unordered", ("sorted",)), ("set", ("set", "frozenset"))):
                for side, other in ((left, right), (right, left)):
                    inner = _single_arg(side, wrappers)
                    if isinstance(inner, ast.Call):
                        return inner, _single_arg(other, wrappers) or other, {"compare": mode}
    if isinstance(test, ast.Call) and _callee_name(test) == "isclose" and len(test.args) == 2:
        call, expected = _split_call(test.args[0], test.args[1])
        return call, expected, {"compare": "float"}
    return None


def _jsonable(value: Any) -> Any:
    """The value with tuples as lists; raises _Drop for sets, bytes, complex, NaN and other non-JSON values."""
    if isinstance(value, tuple):
        value = list(value)
    _check_literal(value)
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError):
        raise _Drop("non_json_expected") from None
    return json.loads(json.dumps(value))


def _check_literal(value: Any) -> None:
    """Whether `repr(value)` is a finite Python literal that round-trips (for rendering arguments)."""
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        raise _Drop("non_finite_number")
    if isinstance(value, list | tuple):
        for item in value:
            _check_literal(item)
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_literal(key)
            _check_literal(item)
    elif not isinstance(value, str | int | float | bool | type(None)):
        raise _Drop("non_json_expected")


def _signature_facts(signature: str, entry_point: str) -> tuple[int | None, bool | None]:
    """(positional parameter count or None, whether the return annotation is str; None when unknown)."""
    text = signature.strip().rstrip(":")
    if not text:
        return None, None
    attempts = [text, f"def {text}" if not text.startswith("def ") else text]
    for attempt in attempts:
        try:
            tree = parse_python(attempt + ":\n    pass")
        except SyntaxError:
            continue
        func = next((n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)), None)
        if func is None:
            continue
        params = [a.arg for a in [*func.args.posonlyargs, *func.args.args] if a.arg not in ("self", "cls")]
        arity = None if func.args.vararg else len(params)
        returns = None
        if func.returns is not None:
            annotation = ast.unparse(func.returns)
            returns = annotation in ("str", "Optional[str]", "str | None")
        return arity, returns
    return None, None


def _json_items(value: Any) -> list[Any] | None:
    """The list of test items in a JSON value: a list, a wrapper object, or one test object."""
    if isinstance(value, list):
        return value
    if isinstance(value, dict):
        for key, item in value.items():
            if re.sub(r"[^a-z]+", "_", str(key).lower()).strip("_") in _LIST_KEYS and isinstance(item, list):
                return item
        keys = {re.sub(r"[^a-z0-9]+", "_", str(k).lower()).strip("_") for k in value}
        if keys & set(_EXPECTED_KEYS):
            return [value]
    return None


def _scan_lines(builder: _Builder, text: str) -> None:
    """Tests written as text: assert lines (continued while brackets are open), doctests, arrows, prints."""
    lines = text.split("\n")
    index = 0
    while index < len(lines):
        stripped = lines[index].strip().strip("`")
        index += 1
        try:
            if stripped.startswith("assert ") or stripped.startswith("assert("):
                source = stripped
                while _unparsable(source) and index < len(lines) and _net_open_bracket_chars(source) > 0:
                    source += " " + lines[index].strip()
                    index += 1
                builder.from_statement(source.split("  #", 1)[0])
            elif (doctest := _DOCTEST.match(stripped)) is not None:
                while index < len(lines) and not lines[index].strip():
                    index += 1
                if index >= len(lines) or lines[index].strip().startswith(">>>"):
                    raise _Drop("no_expected")
                expected_text = lines[index].strip()
                index += 1
                builder.from_statement(f"{doctest.group('call')} == {expected_text}")
            elif (printed := _PRINT_COMMENT.match(stripped)) is not None:
                builder.from_statement(f"{printed.group('call')} == {printed.group('exp').strip()}")
            elif (arrow := _ARROW.match(stripped)) is not None and _called_name(arrow.group("call")) in builder.names:
                builder.from_statement(f"{arrow.group('call')} == {arrow.group('exp').strip()}")
        except _Drop as problem:
            builder.drop(problem.reason)


def _called_name(text: str) -> str:
    return text.split("(", 1)[0].strip()


def _net_open_bracket_chars(source: str) -> int:
    """Opening minus closing bracket characters anywhere in `source` (inside strings too): > 0 means an
    assert line probably continues on the next line."""
    return sum(source.count(c) for c in "([{") - sum(source.count(c) for c in ")]}")


def _unparsable(source: str) -> bool:
    try:
        parse_python(source)
    except (SyntaxError, ValueError):
        return True
    return False


def _parse_source(text: str, entry_point: str, aliases: Iterable[str], signature: str) -> _Builder | None:
    """Tests from the first JSON list that yields any, else from text lines; None when nothing looks like a test."""
    first_json: _Builder | None = None
    for candidate in iter_json_candidates(text, openers="[{"):
        items = _json_items(candidate.value)
        if not items:
            continue
        builder = _Builder(entry_point, aliases, signature)
        builder.repairs.extend(candidate.repairs)
        for item in items:
            if len(builder.tests) >= MAX_TESTS:
                add_repair(builder.repairs, "capped_tests")
                break
            builder.from_item(item)
        if builder.tests:
            return builder
        first_json = first_json or builder
    from_lines = _Builder(entry_point, aliases, signature)
    _scan_lines(from_lines, text)
    if from_lines.tests or (first_json is None and from_lines.dropped):
        add_repair(from_lines.repairs, "tests_from_text")
        return from_lines
    return first_json


def parse_generated_tests(
    text: str | None, entry_point: str, aliases: Iterable[str] = (), signature: str = ""
) -> Parsed[list[CallTest]]:
    """Sandbox call tests `{"kind": "call", "name", "expr", "expected"}` from a model's reply.

    `Parsed.dropped` counts malformed tests (also named as `dropped:<reason>` repairs); ok is False
    when no usable test was found. `signature` (optional) resolves whether a list given as "input"
    is one argument or several, and whether a quoted expected value is really a number.
    """
    cleaned = clean_model_text(text)
    repairs = list(cleaned.repairs)
    best = _parse_source(cleaned.answer, entry_point, aliases, signature) if cleaned.answer.strip() else None
    if (best is None or not best.tests) and cleaned.thinking.strip():
        from_thinking = _parse_source(cleaned.thinking, entry_point, aliases, signature)
        if from_thinking is not None and from_thinking.tests:
            best = from_thinking
            add_repair(repairs, "used_thinking")
    if best is None:
        add_repair(repairs, "no_tests_found")
        return Parsed(value=[], repairs=repairs, ok=False, dropped=0)
    for tag in best.repairs:
        add_repair(repairs, tag)
    return Parsed(value=best.tests, repairs=repairs, ok=bool(best.tests), dropped=best.dropped)
