"""`ast.parse` under one process-wide lock, for every parse that can run on a trial thread.

CPython 3.11 keeps the AST constructor's recursion depth in interpreter-wide state, so two threads parsing at
once can fail with "SystemError: AST constructor recursion depth mismatch" (python/cpython gh-106905); a batch's
trial threads parse model replies, tests and problems at the same time. A parse takes milliseconds, so the lock
costs nothing measurable.
"""

from __future__ import annotations

import ast
import threading

_LOCK = threading.Lock()


def parse_python(source: str | bytes, filename: str = "<unknown>", mode: str = "exec", **kwargs: object) -> ast.AST:
    """`ast.parse(source, filename, mode, **kwargs)`, one thread at a time."""
    with _LOCK:
        return ast.parse(source, filename, mode, **kwargs)  # type: ignore[arg-type]
