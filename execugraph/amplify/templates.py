"""Which part of an existing test is an input: the literal arguments of one call in its expression.

Why: tests are stored as expressions (`coinChange([1, 2, 5], 11)`, HumanEval's
`assert candidate(...) == ...`), not as argument lists. A template keeps the expression and
names the call whose literal arguments may be replaced, so a new input is the same
expression with other literals, evaluated the way the original was (helpers included).
"""

from __future__ import annotations

import ast
import copy
import math
from dataclasses import dataclass
from typing import Any

from execugraph.domain.problem import Problem
from execugraph.parsing import parse_python


@dataclass(frozen=True)
class Template:
    """An expression and the position (in `ast.walk` order) of the call whose arguments are the input."""

    expr: str
    call_index: int

    def render(self, args: tuple[Any, ...]) -> str:
        """The expression with the call's positional arguments replaced by `args` (as literals)."""
        tree = parse_python(self.expr, mode="eval")
        call = [n for n in ast.walk(tree) if isinstance(n, ast.Call)][self.call_index]
        call.args = [literal_node(a) for a in args]
        call.keywords = []
        return ast.unparse(tree)


@dataclass(frozen=True)
class Seed:
    """One existing input: its template and its argument values."""

    template: Template
    args: tuple[Any, ...]


def literal_node(value: Any) -> ast.expr:
    """The AST of `value` written as a Python literal."""
    return copy.deepcopy(parse_python(repr(value), mode="eval").body)


def is_literal_data(value: Any, depth: int = 0) -> bool:
    """Plain data whose repr reads back as the same value (no NaN/inf, no sets of unhashables)."""
    if depth > 20:
        return False
    if value is None or isinstance(value, bool | int | str):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list | tuple):
        return all(is_literal_data(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return all(is_literal_data(k, depth + 1) and is_literal_data(v, depth + 1) for k, v in value.items())
    return False


def _literal_args(call: ast.Call) -> tuple[Any, ...] | None:
    if call.keywords or not call.args:
        return None
    values = []
    for arg in call.args:
        try:
            value = ast.literal_eval(arg)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return None
        if isinstance(value, set | frozenset | bytes | complex) or not is_literal_data(value):
            return None
        values.append(value)
    return tuple(values)


def seed_from_expr(expr: str, names: set[str]) -> Seed | None:
    """The input of a call-test expression: the first call of a name in `names` with literal arguments,
    else the outermost call when its arguments are literals (e.g. `(lambda a: ...)([2, 1])`); None otherwise."""
    try:
        tree = parse_python(expr, mode="eval")
    except SyntaxError:
        return None
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)]
    for index, call in enumerate(calls):
        if isinstance(call.func, ast.Name) and call.func.id in names:
            args = _literal_args(call)
            if args is not None:
                return Seed(Template(expr, index), args)
    if calls and tree.body is calls[0]:
        args = _literal_args(calls[0])
        if args is not None:
            return Seed(Template(expr, 0), args)
    return None


_VALUE_WRAPPERS = frozenset({"abs", "tuple", "list"})  # calls around an answer that keep its value checked


def _compared_calls(tree: ast.AST) -> set[int]:
    """ids of the `candidate(...)` calls whose value a check pins down: `assert candidate(..)`, `not`, `==`/`is`
    comparisons, `abs(candidate(..) - x) < tol`, through `tuple`/`list`; anything else (sorted, in, a helper
    taking the answer) checks only a property of it."""
    parents: dict[int, ast.AST] = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
    out = set()
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "candidate"):
            continue
        current: ast.AST = node
        while True:
            parent = parents.get(id(current))
            if isinstance(parent, ast.Assert) and parent.test is current:
                out.add(id(node))
                break
            if isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.Not):
                current = parent
            elif isinstance(parent, ast.Compare) and all(isinstance(op, ast.Eq | ast.Is | ast.Lt) for op in parent.ops):
                current = parent
            elif isinstance(parent, ast.BinOp) and isinstance(parent.op, ast.Sub):
                current = parent
            elif (isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name)
                  and parent.func.id in _VALUE_WRAPPERS and len(parent.args) == 1):
                current = parent
            else:
                break
    return out


def seeds_from_check(source: str, entry_point: str) -> list[Seed]:
    """HumanEval-style checks: every `candidate(<literals>)` call whose value is compared with `==` becomes an
    input of `entry_point(...)`."""
    try:
        tree = parse_python(source)
    except SyntaxError:
        return []
    template = Template(f"{entry_point}()", 0)
    compared = _compared_calls(tree)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "candidate":
            args = _literal_args(node)
            if args is not None and id(node) in compared:
                out.append(Seed(template, args))
    return out


def answers_may_differ(problem: Problem) -> str:
    """Why a problem's correct answers may not be unique (then no new input can have one expected value), or ''.

    The tests say so themselves: a call test that checks a property of the result (a lambda or a
    comparison around the call, expected a bool), or a check that uses `candidate(...)` other than
    comparing its value with `==` (e.g. `abs(poly(xs, candidate(xs))) < 1e-4`).
    """
    names = {n for n in [problem.entry_point, *problem.aliases] if n}
    for test in problem.tests:
        if test.get("kind", "call") == "call" and isinstance(test.get("expr"), str) and isinstance(
                test.get("expected"), bool):
            try:
                tree = parse_python(test["expr"], mode="eval")
            except SyntaxError:
                continue
            wraps = any(isinstance(n, ast.Lambda) for n in ast.walk(tree))
            calls = any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(tree))
            if wraps and calls:
                return f"test {test.get('name', '')!r} checks a property of the answer, not its value"
        if test.get("kind") == "assert":
            try:
                tree = parse_python(str(test.get("source", "")))
            except SyntaxError:
                continue
            compared = _compared_calls(tree)
            messages = {id(n) for a in ast.walk(tree) if isinstance(a, ast.Assert) and a.msg for n in ast.walk(a.msg)}
            for node in ast.walk(tree):
                if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "candidate"
                        and id(node) not in compared and id(node) not in messages):
                    return "the check uses the answer other than comparing it with =="
    return ""


def problem_seeds(problem: Problem) -> list[Seed]:
    """Every existing input of the problem that can be varied, in test order, without repeats."""
    names = {n for n in [problem.entry_point, *problem.aliases] if n}
    seeds: list[Seed] = []
    for test in problem.tests:
        if test.get("kind", "call") == "call" and isinstance(test.get("expr"), str):
            found = seed_from_expr(test["expr"], names)
            if found is not None:
                seeds.append(found)
        elif test.get("kind") == "call" and isinstance(test.get("args"), list) and problem.entry_point:
            args = tuple(test["args"])
            if is_literal_data(args) and not test.get("kwargs"):
                seeds.append(Seed(Template(f"{problem.entry_point}()", 0), args))
        elif test.get("kind") == "assert" and problem.entry_point:
            seeds.extend(seeds_from_check(str(test.get("source", "")), problem.entry_point))
    unique: dict[str, Seed] = {}
    for seed in seeds:
        unique.setdefault(repr((seed.template, seed.args)), seed)
    return list(unique.values())
