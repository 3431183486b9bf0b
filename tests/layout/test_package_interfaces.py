"""Every package of `execugraph` names its public API in `__all__`, and other code imports only that.

Read from the source (nothing is imported). A package's `__all__` lists the names it re-exports and the
submodules other packages may import (a string costs no import, so `python -m execugraph status` stays
light). An import that crosses from one package to another (`execugraph/`, `ui/`, `pages/`, `app.py`)
must name:
- a module that its package's `__all__` lists (at every level: `execugraph.publication.harness.grade`
  needs `harness` in `publication`'s `__all__` and `grade` in `harness`'s), or the package itself;
- in `from execugraph.pkg import x`, an `x` that `pkg`'s `__all__` lists;
- no `_private` name (a dunder such as `__version__` is public).
Imports inside one package (`execugraph.store.*` from `execugraph.store.*`) are that package's own business.

Run as a script to print every violation: `.venv/bin/python -m tests.layout.test_package_interfaces`.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tests.support.tree_files import write_tree

REPO = Path(__file__).resolve().parents[2]
SOURCES = ("execugraph", "ui", "pages", "app.py")

# Cross-package imports still naming something private or unlisted, as "path: what"; this list only shrinks.
KNOWN_DEEP: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Violation:
    """One import that reaches past a package's public names."""

    path: str
    line: int
    what: str

    def key(self) -> str:
        return f"{self.path}: {self.what}"

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.what}"


def declared_all(init: Path) -> list[str] | None:
    """The strings of `__all__` in a package's `__init__.py` (assignments and `+=` of literal lists), None if absent."""
    names: list[str] | None = None
    for node in ast.parse(init.read_text(encoding="utf-8")).body:
        value = None
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            names, value = [], node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == "__all__":
            names, value = [], node.value
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id == "__all__":
            value = node.value
        if value is not None:
            if names is None:
                names = []
            names.extend(_strings(value))
    return names


def _strings(node: ast.expr) -> Iterator[str]:
    if isinstance(node, ast.List | ast.Tuple):
        for item in node.elts:
            if isinstance(item, ast.Constant) and isinstance(item.value, str):
                yield item.value
    elif isinstance(node, ast.BinOp):
        yield from _strings(node.left)
        yield from _strings(node.right)


def packages(root: Path, top: str = "execugraph") -> dict[str, Path]:
    """Every package under `top` (the top itself included), by dotted name -> its `__init__.py`."""
    return {".".join(init.parent.relative_to(root).parts): init for init in sorted((root / top).rglob("__init__.py"))
            if all(part.isidentifier() for part in init.parent.relative_to(root).parts)}


def _owner(path: Path, root: Path) -> str:
    """Which package a source file belongs to for this check: `execugraph.<pkg>`, or `ui`, `pages`, `app`."""
    parts = path.relative_to(root).parts
    if parts[0] == "execugraph":
        return "execugraph" if len(parts) == 2 else f"execugraph.{parts[1]}"
    return parts[0].removesuffix(".py")


def _sources(root: Path) -> Iterator[Path]:
    for name in SOURCES:
        base = root / name
        if base.is_file():
            yield base
        elif base.is_dir():
            yield from sorted(p for p in base.rglob("*.py") if ".venv" not in p.parts)


def violations(root: Path) -> list[Violation]:
    """Every cross-package import in the sources that names something the target package does not export."""
    pkgs = packages(root)
    exports = {name: declared_all(init) or [] for name, init in pkgs.items()}
    found: list[Violation] = []
    for path in _sources(root):
        owner = _owner(path, root)
        rel = str(path.relative_to(root))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=rel)):
            if isinstance(node, ast.Import):
                targets = [(alias.name, None) for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                targets = [(node.module, alias.name) for alias in node.names]
            else:
                continue
            for module, name in targets:
                parts = module.split(".")
                if parts[0] != "execugraph":
                    continue
                target_owner = "execugraph" if len(parts) == 1 else f"execugraph.{parts[1]}"
                if target_owner == owner:
                    continue
                found.extend(Violation(rel, node.lineno, what) for what in _check(parts, name, pkgs, exports))
    return found


def _check(parts: list[str], name: str | None, pkgs: dict[str, Path], exports: dict[str, list[str]]) -> Iterator[str]:
    module = ".".join(parts)
    for depth in range(2, len(parts)):  # execugraph.<pkg> is public; every deeper step must be listed
        parent, child = ".".join(parts[:depth]), parts[depth]
        if parent not in pkgs:
            break
        if child not in exports[parent]:
            yield f"{module}: {child!r} is not in {parent}.__all__"
            break
    if name is None:
        return
    if name.startswith("_") and not (name.startswith("__") and name.endswith("__")):
        yield f"{module}: imports the private name {name!r}"
    elif module in pkgs and name not in exports[module]:
        yield f"{module}: {name!r} is not in {module}.__all__"


def test_every_package_declares_all() -> None:
    missing = [str(init.relative_to(REPO)) for init in packages(REPO).values() if declared_all(init) is None]
    assert not missing, f"packages without __all__ in their __init__.py: {missing}"


def test_every_name_in_all_exists() -> None:
    """A listed name is a submodule of the package or a name its `__init__` binds (or its `__getattr__` serves)."""
    wrong = []
    for name, init in packages(REPO).items():
        tree = ast.parse(init.read_text(encoding="utf-8"))
        bound = {"__version__"} & {t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets
                                    if isinstance(t, ast.Name)}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom | ast.Import):
                bound |= {(a.asname or a.name).split(".")[0] for a in node.names}
            elif isinstance(node, ast.ClassDef | ast.FunctionDef):
                bound.add(node.name)
            elif isinstance(node, ast.Assign):
                bound |= {t.id for t in node.targets if isinstance(t, ast.Name)}
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                bound.add(node.target.id)
        for listed in declared_all(init) or []:
            is_module = (init.parent / f"{listed}.py").is_file() or (init.parent / listed / "__init__.py").is_file()
            if not is_module and listed not in bound:
                wrong.append(f"{name}.{listed}")
    assert not wrong, f"names in __all__ that the package does not have: {wrong}"


def test_cross_package_imports_name_only_public_things() -> None:
    found = [v for v in violations(REPO) if v.key() not in KNOWN_DEEP]
    assert not found, ("imports past a package's __all__ (import what it exports, or list the module or name in its "
                       "__all__ if it is meant for other packages):\n" + "\n".join(map(str, found)))


def test_known_deep_imports_are_still_there() -> None:
    present = {v.key() for v in violations(REPO)}
    stale = sorted(KNOWN_DEEP - present)
    assert not stale, f"remove these from KNOWN_DEEP, they are fixed: {stale}"


# -- the check itself, on a small tree written here --------------------------------------------------


def test_unlisted_modules_private_names_and_unlisted_names_are_found(tmp_path: Path) -> None:
    write_tree(tmp_path, {
        "execugraph/__init__.py": "__all__ = ['__version__']\n__version__ = '0'\n",
        "execugraph/store/__init__.py": "from execugraph.store.rows import Row\n__all__ = ['Row', 'reads']\n",
        "execugraph/store/rows.py": "class Row: ...\n_cache = {}\n",
        "execugraph/store/reads.py": "def read(): ...\n",
        "execugraph/store/engine.py": "def make(): ...\n",
        "execugraph/batch/__init__.py": "__all__ = []\n",
        "execugraph/batch/run.py": (
            "from execugraph import __version__\n"
            "from execugraph.store import Row, reads\n"
            "from execugraph.store.reads import read\n"
            "from execugraph.store.engine import make\n"
            "from execugraph.store.reads import _helper\n"
            "from execugraph.store import rows\n"
            "def f():\n    import execugraph.store.engine\n"
        ),
        "execugraph/store/own.py": "from execugraph.store.engine import make\nfrom execugraph.store.rows import _cache\n",
    })
    assert [str(v) for v in violations(tmp_path)] == [
        "execugraph/batch/run.py:4: execugraph.store.engine: 'engine' is not in execugraph.store.__all__",
        "execugraph/batch/run.py:5: execugraph.store.reads: imports the private name '_helper'",
        "execugraph/batch/run.py:6: execugraph.store: 'rows' is not in execugraph.store.__all__",
        "execugraph/batch/run.py:8: execugraph.store.engine: 'engine' is not in execugraph.store.__all__",
    ]


def test_a_package_without_all_is_seen(tmp_path: Path) -> None:
    write_tree(tmp_path, {"execugraph/__init__.py": "", "execugraph/grading/__init__.py": '"""Grading."""\n'})
    assert declared_all(tmp_path / "execugraph/grading/__init__.py") is None
    write_tree(tmp_path, {"execugraph/grading/__init__.py": "__all__ = ['rules']\n__all__ += ['calibration']\n"})
    assert declared_all(tmp_path / "execugraph/grading/__init__.py") == ["rules", "calibration"]


if __name__ == "__main__":
    for violation in violations(REPO):
        print(violation)
