"""Every read and write of the tables goes through `execugraph/store/`: nothing else touches SQL.

Walks the syntax trees (nothing is imported) of the core outside the store, the UI
helpers, the pages and the app entry, and reports each place that:
- imports `sqlalchemy` or `sqlmodel` (any submodule, at any level, TYPE_CHECKING too);
- reaches a table object through `__table__` (as an attribute or through getattr);
- opens a connection of a store's engine itself (`.engine.connect()`, `.engine.begin()`,
  `.engine.raw_connection()`), which is how raw SQL would get in without an import.
Table classes (`Run`, `Trial`, ...) may be named anywhere: they are the store's values.
"""

from __future__ import annotations

import ast
from pathlib import Path

from execugraph.configuration.settings import PROJECT_ROOT

ROOTS = ("execugraph", "ui", "pages", "app.py")
STORE = "execugraph/store/"
SQL_PACKAGES = ("sqlalchemy", "sqlmodel")
ENGINE_DOORS = ("connect", "begin", "raw_connection")


def _is_sql(module: str | None) -> bool:
    return bool(module) and module.split(".")[0] in SQL_PACKAGES  # type: ignore[union-attr]


def sql_outside_store(source: str, filename: str) -> list[str]:
    """'file:line: what' for each way `source` reaches the database without the store, in line order."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, f"import {a.name}") for a in node.names if _is_sql(a.name)]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and _is_sql(node.module):
            found.append((node.lineno, f"from {node.module} import ..."))
        elif isinstance(node, ast.Attribute) and node.attr == "__table__":
            found.append((node.lineno, ast.unparse(node)))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr":
            if any(isinstance(a, ast.Constant) and a.value == "__table__" for a in node.args[1:2]):
                found.append((node.lineno, ast.unparse(node)))
        elif (
            isinstance(node, ast.Attribute)
            and node.attr in ENGINE_DOORS
            and isinstance(node.value, ast.Attribute)
            and node.value.attr == "engine"
        ):
            found.append((node.lineno, ast.unparse(node)))
    return [f"{filename}:{line}: {what}" for line, what in sorted(found)]


def _files() -> list[Path]:
    files = []
    for root in ROOTS:
        path = PROJECT_ROOT / root
        files += [path] if path.is_file() else sorted(path.rglob("*.py"))
    return [f for f in files if not f.relative_to(PROJECT_ROOT).as_posix().startswith(STORE)]


def test_the_walker_finds_every_way_in() -> None:
    source = "\n".join([
        "import sqlalchemy",
        "import sqlalchemy.exc as errors",
        "from sqlmodel import select",
        "from sqlalchemy.dialects import sqlite",
        "def f(store):",
        "    from sqlalchemy import func",
        "    table = Trial.__table__",
        "    other = getattr(Run, '__table__')",
        "    with store.engine.connect() as conn:",
        "        pass",
        "    store.engine.begin()",
        "    self._store.engine.raw_connection()",
    ])
    found = sql_outside_store(source, "x.py")
    assert [line.split(":")[1] for line in found] == [str(n) for n in (1, 2, 3, 4, 6, 7, 8, 9, 11, 12)], found
    assert "x.py:7: Trial.__table__" in found


def test_the_walker_lets_the_store_api_through() -> None:
    source = "\n".join([
        "from execugraph.store import Store, Trial, run_reads",
        "from execugraph.store.bulk_insert import bulk_writes",
        "import sqlite3  # a standard-library module with a similar name",
        "from .sqlalchemy_notes import x  # a relative module of that name is ours",
        "url = store.engine.url.render_as_string(hide_password=False)",
        "with bulk_writes(store) as bulk:",
        "    bulk.insert(Trial, rows)",
        "table = codec.table_name",
    ])
    assert sql_outside_store(source, "y.py") == []


def test_no_sql_outside_the_store() -> None:
    files = _files()
    names = {f.relative_to(PROJECT_ROOT).as_posix() for f in files}
    assert {"ui/views/trace.py", "execugraph/stats/loading.py", "ui/resources.py", "app.py"} <= names
    found = []
    for path in files:
        found += sql_outside_store(path.read_text(encoding="utf-8"), path.relative_to(PROJECT_ROOT).as_posix())
    assert not found, "SQL outside execugraph/store/ (add a query function to a store module):\n" + "\n".join(found)
