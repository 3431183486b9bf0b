"""Imports of `execugraph` point down the floors: no package imports one on a higher floor.

The floors are listed from the ground up. Packages on one floor may import each other (the
import-cycle test keeps their modules apart); a package may import anything on a floor below
its own. Every import statement counts, wherever it is written (module level, inside a function,
under `if TYPE_CHECKING:`), read from the source as `test_import_cycles.py` reads it.

`domain/` is the ground floor: it imports nothing of ours. The old homes of moved modules
(`OLD_PATHS`: `workflow.problem`, `workflow.steps`, `workflow.events`, `workflow.state`,
`configuration.vocabulary`, `configuration.json_types`, `configuration.config`, `store.run_names`,
`stats.windows`, `publication.problems`) stay as thin re-exports for plugins and older imports;
nothing in the tree may import them any more, and they are not held to the floors.

Run as a script to print every upward import: `.venv/bin/python -m tests.layout.test_layers`.
"""

from __future__ import annotations

import sys
from pathlib import Path

from tests.layout.test_import_cycles import Edge, import_graph
from tests.support.tree_files import write_tree

REPO = Path(__file__).resolve().parents[2]

FLOORS: tuple[tuple[str, ...], ...] = (
    ("domain", "<root>"),
    ("safety", "inputs", "parsing"),
    ("plugins",),
    ("configuration",),
    ("retrieval",),
    ("store",),
    ("grading",),
    ("benchmarks",),
    ("providers",),
    ("stats",),
    ("verdicts",),
    ("agents", "amplify"),
    ("workflow",),
    ("batch", "sequential"),
    ("scaleout", "publication", "figures"),
    ("reproduce",),
    ("cli", "__main__"),
)

# Modules kept only so that plugins and older imports keep working: nothing in the tree imports them.
OLD_PATHS: dict[str, str] = {
    "execugraph.workflow.problem": "execugraph.domain.problem",
    "execugraph.workflow.steps": "execugraph.domain.steps",
    "execugraph.workflow.events": "execugraph.domain.events",
    "execugraph.workflow.state": "execugraph.agents.state",
    "execugraph.configuration.vocabulary": "execugraph.domain.vocabulary",
    "execugraph.configuration.json_types": "execugraph.domain.json_types",
    "execugraph.configuration.config": "execugraph.domain.config",
    "execugraph.store.run_names": "execugraph.domain.run_names",
    "execugraph.stats.windows": "execugraph.verdicts.windows",
    "execugraph.publication.problems": "execugraph.verdicts.problems",
}

# Upward imports still written in the tree, each with why it stays; this list only shrinks.
KNOWN_UPWARD: dict[tuple[str, str], str] = {
    ("execugraph.configuration.model_axis", "execugraph.providers.model_spec"):
        "check_axis asks the providers whether a spec can be built (lazily, in the function; without LangChain)",
    ("execugraph.plugins.manager", "execugraph.agents.registry"):
        "an outside plugin's agent node is put into the node table (lazily, in the registrar)",
}


def package_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "<root>"


def floor_of(package: str) -> int:
    for level, floor in enumerate(FLOORS):
        if package in floor:
            return level
    raise KeyError(package)


def upward_imports(root: Path, package: str = "execugraph") -> list[Edge]:
    """Every import edge from a package to a package on a higher floor."""
    found = []
    for module, edges in import_graph(root, package).items():
        if module in OLD_PATHS:
            continue
        source = package_of(module)
        for edge in edges:
            target = package_of(edge.target)
            if source != target and floor_of(target) > floor_of(source):
                found.append(edge)
    return sorted(found, key=lambda e: (str(e.path), e.line))


def old_path_imports(root: Path, package: str = "execugraph") -> list[Edge]:
    """Every import of a module kept only for plugins and older imports, from anywhere in the package."""
    graph = import_graph(root, package)
    return [e for m, edges in graph.items() if m not in OLD_PATHS for e in edges if e.target in OLD_PATHS]


def _describe(edge: Edge, root: Path) -> str:
    return f"{edge.where(root)}: {edge.source} imports {edge.target}"


def test_every_package_is_on_a_floor() -> None:
    packages = {package_of(m) for m in import_graph(REPO, "execugraph")}
    missing = sorted(p for p in packages if not any(p in floor for floor in FLOORS))
    assert not missing, f"packages not on any floor of tests/layout/test_layers.py: {missing}"


def test_no_import_climbs_back_up() -> None:
    found = [e for e in upward_imports(REPO) if (e.source, e.target) not in KNOWN_UPWARD]
    assert not found, "imports that climb back up the floors:\n" + "\n".join(_describe(e, REPO) for e in found)


def test_known_upward_imports_are_still_there() -> None:
    """An entry of the allow-list that no longer matches must go: the list only shrinks."""
    present = {(e.source, e.target) for e in upward_imports(REPO)}
    stale = sorted(set(KNOWN_UPWARD) - present)
    assert not stale, f"remove these from KNOWN_UPWARD, they are fixed: {stale}"


def test_nothing_imports_the_old_paths() -> None:
    found = old_path_imports(REPO)
    assert not found, "import the new home instead:\n" + "\n".join(
        f"{_describe(e, REPO)} (now {OLD_PATHS[e.target]})" for e in found)


def test_the_dashboard_bench_and_standins_import_no_old_path() -> None:
    import ast

    found = []
    for base in ("ui", "pages", "app.py", "bench", "standins", "examples"):
        root = REPO / base
        for path in [root] if root.is_file() else sorted(root.rglob("*.py")) if root.is_dir() else []:
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                    [node.module] if isinstance(node, ast.ImportFrom) and node.module else [])
                found += [f"{path.relative_to(REPO)}:{node.lineno}: {n} (now {OLD_PATHS[n]})" for n in names
                          if n in OLD_PATHS]
    assert not found, "import the new home instead:\n" + "\n".join(found)


def test_domain_imports_nothing_of_ours() -> None:
    graph = import_graph(REPO, "execugraph")
    found = [e for m, edges in graph.items() if package_of(m) == "domain" for e in edges
             if package_of(e.target) != "domain"]
    assert not found, "\n".join(_describe(e, REPO) for e in found)


# -- the check itself, on a small package written here ----------------------------------------------


def test_an_upward_import_inside_a_function_is_found(tmp_path: Path) -> None:
    write_tree(tmp_path, {
        "execugraph/__init__.py": "",
        "execugraph/domain/__init__.py": "",
        "execugraph/domain/problem.py": "X = 1\n",
        "execugraph/store/__init__.py": "",
        "execugraph/store/rows.py": "def f():\n    from execugraph.workflow.graph import g\n    return g\n",
        "execugraph/workflow/__init__.py": "",
        "execugraph/workflow/graph.py": "from execugraph.domain.problem import X\ng = X\n",
    })
    found = upward_imports(tmp_path)
    assert [(e.source, e.target, e.line) for e in found] == [("execugraph.store.rows", "execugraph.workflow.graph", 2)]


def test_an_old_path_import_is_found(tmp_path: Path) -> None:
    write_tree(tmp_path, {
        "execugraph/__init__.py": "",
        "execugraph/workflow/__init__.py": "",
        "execugraph/workflow/problem.py": "from execugraph.domain.problem import Problem as Problem\n",
        "execugraph/domain/__init__.py": "",
        "execugraph/domain/problem.py": "class Problem: ...\n",
        "execugraph/batch/__init__.py": "",
        "execugraph/batch/order.py": "from execugraph.workflow.problem import Problem\n",
    })
    assert [(e.source, e.target) for e in old_path_imports(tmp_path)] == [
        ("execugraph.batch.order", "execugraph.workflow.problem")]


if __name__ == "__main__":
    edges = upward_imports(REPO) + old_path_imports(REPO)
    print("\n".join(_describe(e, REPO) for e in edges) or "none")
    sys.exit(1 if edges else 0)
