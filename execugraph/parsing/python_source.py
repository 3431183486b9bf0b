"""What a piece of Python source defines and needs, read from its AST (compiled, never run).

Code extraction asks these questions of every candidate block: does it compile, does it define the
entry point (as a function or as a method), which names does it use without binding them.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Iterable
from functools import lru_cache

from execugraph.parsing.python_ast import parse_python

_BUILTIN_NAMES = frozenset(dir(builtins)) | {"__name__", "__file__", "__doc__"}


@lru_cache(maxsize=64)
def compile_tree(source: str) -> ast.Module | None:
    """The AST if `source` compiles as a module (parse and bytecode compile, never run), else None.

    Cached because extraction re-checks the same source at several stages; callers must not mutate it.
    """
    try:
        tree = parse_python(source)
        compile(tree, "<candidate>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, TypeError, RecursionError, MemoryError, OverflowError):
        return None
    return tree


def is_substantive(tree: ast.Module | None) -> bool:
    """True unless the module is only bare non-call expressions (an output sample like `6` or `[1, 2]`)."""
    if tree is None:
        return False
    for stmt in tree.body:
        if not isinstance(stmt, ast.Expr) or isinstance(stmt.value, ast.Call | ast.Await):
            return True
    return False


def top_level_names(tree: ast.Module | None) -> set[str]:
    """Names a module binds at top level: defs, classes, assignments, imports, loop and with targets."""
    names: set[str] = set()
    for stmt in tree.body if tree is not None else []:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(stmt.name)
        elif isinstance(stmt, ast.Import | ast.ImportFrom):
            for alias in stmt.names:
                names.add((alias.asname or alias.name).split(".")[0])
        else:
            for node in ast.walk(stmt):
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                    names.add(node.id)
    return names


def unresolved_names(tree: ast.Module | None) -> set[str]:
    """Names read somewhere but bound nowhere in the module (coarse: any binding anywhere counts)."""
    loaded: set[str] = set()
    bound: set[str] = set()
    for node in ast.walk(tree) if tree is not None else []:
        if isinstance(node, ast.Name):
            (loaded if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
    return loaded - bound - _BUILTIN_NAMES


def defines(tree: ast.Module | None, names: Iterable[str]) -> bool:
    """Whether the module binds any of `names` at top level (the entry point or one of its aliases)."""
    return bool(top_level_names(tree) & set(names))


def class_with_method(tree: ast.Module | None, names: Iterable[str]) -> tuple[str, str] | None:
    """(class, method) when the entry point exists only as a method (LeetCode's `class Solution`)."""
    if tree is None:
        return None
    wanted = set(names)
    for stmt in tree.body:
        if isinstance(stmt, ast.ClassDef):
            for item in stmt.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and item.name in wanted:
                    return stmt.name, item.name
    return None
