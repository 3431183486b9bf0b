"""No import cycles inside `sandbox` or `execugraph`, read from the source (nothing is imported).

Every `import` and `from ... import` statement counts wherever it sits: at
module level, inside a function, or under `if TYPE_CHECKING:` (a cycle that
only type checkers follow still ties two modules together). Relative imports
are resolved, and `from pkg import name` points at `pkg.name` when that is a
module and at `pkg` otherwise. Imports of a package's `__init__` that only
happen because a submodule is imported are not counted (they are not the
author's choice), and neither are string imports (`importlib.import_module`).

Run as a script to print every cycle: `.venv/bin/python tests/layout/test_import_cycles.py`.
"""

from __future__ import annotations

import ast
import sys
from collections import deque
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.tree_files import write_tree

REPO = Path(__file__).resolve().parents[2]

@dataclass(frozen=True)
class Edge:
    """One import statement: the module it reaches, and where it is written."""

    source: str
    target: str
    path: Path
    line: int

    def where(self, root: Path) -> str:
        return f"{self.path.relative_to(root)}:{self.line}"


def module_index(root: Path, package: str) -> dict[str, Path]:
    """Every module of `package` under `root`, by dotted name (a package is its `__init__.py`)."""
    index: dict[str, Path] = {}
    base = root / package
    if not (base / "__init__.py").is_file():
        raise FileNotFoundError(f"{base}: not a package (no __init__.py)")
    for path in sorted(base.rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        if all(part.isidentifier() for part in parts):
            index[".".join(parts)] = path
    return index


def _longest_known(dotted: str, index: dict[str, Path]) -> str | None:
    parts = dotted.split(".")
    while parts:
        name = ".".join(parts)
        if name in index:
            return name
        parts.pop()
    return None


def _relative_base(module: str, is_package: bool, level: int, target: str | None, path: Path, line: int) -> str:
    parts = module.split(".") if is_package else module.split(".")[:-1]
    if level - 1 > len(parts) - 1:
        raise ValueError(f"{path}:{line}: relative import goes above the top-level package")
    parts = parts[: len(parts) - (level - 1)]
    return ".".join([*parts, target] if target else parts)


def imports_of(module: str, path: Path, index: dict[str, Path]) -> list[Edge]:
    """The import edges written in one module that land on a module in `index`."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    is_package = path.name == "__init__.py"
    edges: list[Edge] = []

    def add(target: str | None, node: ast.stmt) -> None:
        if target is not None:
            edges.append(Edge(module, target, path, node.lineno))

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(_longest_known(alias.name, index), node)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = _relative_base(module, is_package, node.level, node.module, path, node.lineno)
            else:
                base = node.module or ""
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                add(submodule if submodule in index else _longest_known(base, index), node)
    return edges


def import_graph(root: Path, package: str) -> dict[str, list[Edge]]:
    """Module -> its import edges to other modules of the same package."""
    index = module_index(root, package)
    return {name: imports_of(name, path, index) for name, path in index.items()}


def _components(graph: dict[str, list[Edge]]) -> list[list[str]]:
    """Strongly connected components (Tarjan, iterative), each sorted."""
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in order:
            continue
        work = [(start, iter(sorted({e.target for e in graph[start]})))]
        order[start] = low[start] = len(order)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, targets = work[-1]
            advanced = False
            for target in targets:
                if target not in order:
                    order[target] = low[target] = len(order)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted({e.target for e in graph.get(target, [])}))))
                    advanced = True
                    break
                if target in on_stack:
                    low[node] = min(low[node], order[target])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == order[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                found.append(sorted(component))
    return found


def _shortest_cycle(graph: dict[str, list[Edge]], members: set[str]) -> list[Edge]:
    """A shortest cycle through the first member of a component, as the edges that close it."""
    start = min(members)
    previous: dict[str, Edge] = {}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for edge in sorted(graph[node], key=lambda e: (e.target, e.line)):
            if edge.target not in members:
                continue
            if edge.target == start:
                path = [edge]
                while path[0].source != start:
                    path.insert(0, previous[path[0].source])
                return path
            if edge.target not in previous:
                previous[edge.target] = edge
                queue.append(edge.target)
    raise AssertionError(f"no cycle through {start} in {sorted(members)}")


@dataclass(frozen=True)
class Cycle:
    """A strongly connected set of modules, with one concrete cycle through it for the message."""

    members: frozenset[str]
    path: tuple[Edge, ...]

    def describe(self, root: Path) -> str:
        steps = " -> ".join(f"{e.source} ({e.where(root)})" for e in self.path)
        extra = sorted(self.members - {e.source for e in self.path})
        tail = f"; the same knot also holds {', '.join(extra)}" if extra else ""
        return f"{steps} -> {self.path[0].source}{tail}"


def find_cycles(root: Path, package: str) -> list[Cycle]:
    graph = import_graph(root, package)
    cycles = []
    for component in _components(graph):
        members = set(component)
        if len(members) == 1 and not any(e.target == component[0] for e in graph[component[0]]):
            continue
        cycles.append(Cycle(frozenset(members), tuple(_shortest_cycle(graph, members))))
    return cycles


def _report(cycles: list[Cycle], root: Path) -> str:
    return "\n".join(f"import cycle: {cycle.describe(root)}" for cycle in cycles)


# -- the walker itself, on small packages written here ---------------------------------------------


def test_walker_follows_every_kind_of_import_statement(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "from . import b\nfrom .sub import c\n",
            "pkg/b.py": "def f():\n    import pkg.sub.d\n",
            "pkg/sub/__init__.py": "from ..a import VALUE\n",
            "pkg/sub/c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.b import f\n",
            "pkg/sub/d.py": "import os\nimport pkg\nfrom pkg import sub\nfrom pkg.sub import d\n",
        },
    )
    graph = import_graph(tmp_path, "pkg")
    targets = {name: sorted({e.target for e in edges}) for name, edges in graph.items()}
    assert targets == {
        "pkg": [],
        "pkg.a": ["pkg.b", "pkg.sub.c"],
        "pkg.b": ["pkg.sub.d"],
        "pkg.sub": ["pkg.a"],
        "pkg.sub.c": ["pkg.b"],
        "pkg.sub.d": ["pkg", "pkg.sub", "pkg.sub.d"],
    }
    lines = {(e.source, e.target): e.line for edges in graph.values() for e in edges}
    assert lines[("pkg.b", "pkg.sub.d")] == 2  # the function-level import, where it is written
    assert lines[("pkg.sub.c", "pkg.b")] == 3  # the TYPE_CHECKING one


def test_walker_names_each_cycle_with_the_lines_that_close_it(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/job.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.worker import Env\n",
            "pkg/worker.py": "from pkg.job import run\n",
            "pkg/x.py": "def f():\n    from pkg import y\n",
            "pkg/y.py": "from pkg import z\n",
            "pkg/z.py": "from . import x\n",
            "pkg/self.py": "import pkg.self\n",
            "pkg/leaf.py": "from pkg import job, x\n",
        },
    )
    cycles = find_cycles(tmp_path, "pkg")
    assert sorted(sorted(c.members) for c in cycles) == [
        ["pkg.job", "pkg.worker"],
        ["pkg.self"],
        ["pkg.x", "pkg.y", "pkg.z"],
    ]
    text = _report(cycles, tmp_path)
    assert "pkg.job (pkg/job.py:3) -> pkg.worker (pkg/worker.py:1) -> pkg.job" in text
    assert "pkg.x (pkg/x.py:2) -> pkg.y (pkg/y.py:1) -> pkg.z (pkg/z.py:1) -> pkg.x" in text
    assert "pkg.self (pkg/self.py:1) -> pkg.self" in text
    assert "leaf" not in text


def test_walker_rejects_a_relative_import_above_the_package(tmp_path: Path) -> None:
    write_tree(tmp_path, {"pkg/__init__.py": "", "pkg/a.py": "from ... import b\n"})
    with pytest.raises(ValueError, match=r"pkg/a\.py:1: relative import goes above"):
        import_graph(tmp_path, "pkg")


# -- the real packages -----------------------------------------------------------------------------


def test_walker_sees_the_real_sandbox_imports() -> None:
    """Guards the checks below against passing on an empty or misread graph."""
    graph = import_graph(REPO, "sandbox")
    targets = {name: {e.target for e in edges} for name, edges in graph.items()}
    assert "sandbox.job" in targets["sandbox.worker"]
    assert "sandbox.worker" in targets["sandbox.pool"]
    assert "sandbox.pool" in targets["sandbox"]  # the TYPE_CHECKING block of the package
    assert {"sandbox.codec", "sandbox.frames", "sandbox.hardening"} <= targets["sandbox.child"]


def test_sandbox_has_no_import_cycles() -> None:
    cycles = find_cycles(REPO, "sandbox")
    assert not cycles, _report(cycles, REPO)


def test_sandbox_job_does_not_depend_on_the_worker() -> None:
    """The job side needs only the JobEnv protocol; nothing it imports reaches sandbox.worker."""
    graph = import_graph(REPO, "sandbox")
    seen, todo = set(), ["sandbox.job"]
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(e.target for e in graph[name])
    assert "sandbox.worker" not in seen
    assert "sandbox.pool" not in seen
    assert {"sandbox.job_io", "sandbox.env", "sandbox.procs"} <= seen


def test_execugraph_has_no_import_cycles() -> None:
    cycles = find_cycles(REPO, "execugraph")
    assert not cycles, _report(cycles, REPO)


if __name__ == "__main__":
    status = 0
    for package in ("sandbox", "execugraph"):
        cycles = find_cycles(REPO, package)
        print(f"{package}: {len(cycles)} import cycle(s)")
        if cycles:
            print(_report(cycles, REPO))
            status = 1
    sys.exit(status)
