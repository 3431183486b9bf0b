"""Batch dependencies run one way: cli -> scaleout -> batch, never back, not even inside a function."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def imported_modules(package: str) -> dict[str, set[str]]:
    """Every module each file of `package` imports, at module level or inside functions."""
    found: dict[str, set[str]] = {}
    for path in sorted((ROOT / package.replace(".", "/")).rglob("*.py")):
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module:
                assert node.level == 0, f"{path}: relative import"  # the project spells imports in full
                names.add(node.module)
                names.update(f"{node.module}.{alias.name}" for alias in node.names)
        found[str(path.relative_to(ROOT))] = names
    return found


@pytest.mark.parametrize(
    ("package", "forbidden"),
    [("execugraph.batch", ("execugraph.scaleout", "execugraph.cli")), ("execugraph.scaleout", ("execugraph.cli",))],
)
def test_lower_layers_never_import_higher_ones(package, forbidden):
    files = imported_modules(package)
    assert len(files) >= 5, files  # the walk found the package
    offending = {f: sorted(n for n in names if n.startswith(forbidden)) for f, names in files.items()}
    assert not {f: n for f, n in offending.items() if n}


def test_the_walk_sees_function_level_imports():
    names = imported_modules("execugraph.scaleout")["execugraph/scaleout/executor.py"]
    assert "execugraph.scaleout.driver" in names  # imported inside functions only (Ray loads lazily)
