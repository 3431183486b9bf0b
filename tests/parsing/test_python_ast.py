"""Every parse of Python source in the product goes through `parse_python`'s lock: CPython 3.11's AST constructor
keeps its recursion depth in interpreter-wide state, and a batch's trial threads parsing at once failed a trial
with "SystemError: AST constructor recursion depth mismatch" (seen in CI on two trial threads)."""

from __future__ import annotations

import ast
import re
import threading
from pathlib import Path

from execugraph.parsing import parse_python

ROOT = Path(__file__).resolve().parents[2]
RAW_PARSE = re.compile(r"\bast\.parse\(")
SOURCE = "\n".join(
    f"def f{i}(x):\n    return [(a, {{'k': (b, [c for c in range({i})])}}) for a, b in x if a > {i}]" for i in range(40)
)


def test_no_product_module_calls_ast_parse_directly() -> None:
    offenders = []
    for folder in ("execugraph", "ui", "pages"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path.name == "python_ast.py":
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if RAW_PARSE.search(line):
                    offenders.append(f"{path.relative_to(ROOT)}:{number}")
    for script in ("app.py",):
        if RAW_PARSE.search((ROOT / script).read_text(encoding="utf-8")):
            offenders.append(script)
    assert offenders == [], f"use execugraph.parsing.parse_python instead of ast.parse: {offenders}"


def test_threads_parsing_at_once_get_the_same_trees_as_one_thread() -> None:
    expected = ast.dump(ast.parse(SOURCE))
    results: list[str] = []
    errors: list[BaseException] = []

    def work() -> None:
        for _ in range(40):
            try:
                results.append(ast.dump(parse_python(SOURCE)))
            except BaseException as exc:  # noqa: BLE001 - every failure is collected and named below
                errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert errors == [] and len(results) == 240 and set(results) == {expected}


def test_the_arguments_of_ast_parse_are_passed_through() -> None:
    assert isinstance(parse_python("1 + 2", mode="eval"), ast.Expression)
    tree = parse_python("x = []  # type: list[int]\n", "<reply>", type_comments=True)
    assert isinstance(tree, ast.Module) and tree.body[0].type_comment == "list[int]"
