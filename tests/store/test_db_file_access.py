"""No code opens a database file with Python file APIs, except the one reviewed test helper.

Closing any descriptor of a file drops every POSIX lock the process holds on
it, SQLite's included, and a process whose locks are gone can have its
write-ahead log deleted under it by the next process that closes the
database (tests/store/test_store_lost_writes.py shows the loss). So:
- in the modules that hold connections and know the database's path (the
  store package and the health checks) no Python file API is called at all;
- anywhere else, none is called on an expression that names a database
  (`db`, `database`, `*.db`, `*.sqlite`, `-wal`, `-shm`);
- tests that must write garbage into a database file or copy one go through
  `tests/support/db_files.py`, which refuses while the file is open here.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[2]
ROOTS = ("execugraph", "sandbox", "ui", "pages", "standins", "bench", "scripts", "tests", "app.py")
REVIEWED = {"tests/support/db_files.py"}
NO_FILE_APIS = ("execugraph/store/", "execugraph/providers/health.py")
OPENERS = {"open", "io.open", "os.open", "builtins.open", "os.truncate", "shutil.copy", "shutil.copy2",
           "shutil.copyfile", "shutil.move"}
PATH_METHODS = {"open", "read_bytes", "read_text", "write_bytes", "write_text", "touch"}
DATABASE = re.compile(r"\.db\b|\.sqlite3?\b|-wal\b|-shm\b|\bdb\b|\bdb_|_db\b|\bdatabase\b|\bruns_db\b", re.I)


def _name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_name(node.value)}.{node.attr}"
    return ""


def file_api_targets(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, the path expression) of every call that opens, reads, writes or copies a file by path."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        called = _name(node.func)
        if called in OPENERS and node.args:
            found.extend((node.lineno, ast.unparse(arg)) for arg in node.args[:2])
        elif isinstance(node.func, ast.Attribute) and node.func.attr in PATH_METHODS and called not in OPENERS:
            receiver = node.func.value
            name = _name(receiver)
            if name in ("io", "os", "gzip", "zipfile", "tarfile", "webbrowser", "db_files", "cls") or name[:1].isupper():
                continue  # modules and classes (Store.open, cls.open), not paths
            found.append((node.lineno, ast.unparse(receiver)))
    return found


def sources() -> list[Path]:
    files: list[Path] = []
    for root in ROOTS:
        path = PROJECT / root
        files.extend([path] if path.is_file() else sorted(path.rglob("*.py")))
    return [f for f in files if ".venv" not in f.parts]


def offences(path: Path, text: str) -> list[str]:
    rel = path.relative_to(PROJECT).as_posix() if path.is_absolute() else path.as_posix()
    if rel in REVIEWED:
        return []
    strict = rel.startswith(NO_FILE_APIS)
    return [f"{rel}:{line}: {target}" for line, target in file_api_targets(ast.parse(text))
            if strict or DATABASE.search(target)]


def test_no_module_opens_a_database_file_behind_sqlites_back() -> None:
    found = [o for path in sources() for o in offences(path, path.read_text(encoding="utf-8"))]
    assert found == [], "open the database only through SQLite (tests: tests/support/db_files.py):\n" + "\n".join(found)


def test_the_check_catches_the_shapes_that_lost_writes() -> None:
    """The rule finds the old header check and the usual spellings; a check that cannot fail proves nothing."""
    old_header_check = "def _check_header(path):\n    with path.open('rb') as handle:\n        return handle.read(16)\n"
    assert offences(Path("execugraph/store/opening.py"), old_header_check) == ["execugraph/store/opening.py:2: path"]
    elsewhere = (
        "open(settings.db_path, 'rb')\n"
        "(tmp_path / 'runs.db').read_bytes()\n"
        "shutil.copyfile(source_db, target)\n"
        "Path(str(db) + '-wal').stat()\n"
        "wal = Path(name + '-wal'); Path(name + '-wal').open()\n"
        "open(report_path, 'w')\n"
    )
    assert offences(Path("ui/example.py"), elsewhere) == [
        "ui/example.py:1: settings.db_path",
        "ui/example.py:2: tmp_path / 'runs.db'",
        "ui/example.py:3: source_db",
        "ui/example.py:5: Path(name + '-wal')",
    ]
