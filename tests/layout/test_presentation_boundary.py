"""The core never reaches the presentation: nothing under `execugraph/` or `sandbox/` imports
streamlit, `ui` or the page scripts, and the view models in `ui/views/` stay testable without
Streamlit (they import neither streamlit nor the Streamlit-side `ui` modules)."""

from __future__ import annotations

import ast
from pathlib import Path

from execugraph.configuration.settings import PROJECT_ROOT


def imported_roots(source: str, filename: str) -> list[tuple[int, str]]:
    """(line, dotted module) for every absolute import in `source`, wherever it is written."""
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found += [(node.lineno, node.module)]
            if node.module == "ui":
                found += [(node.lineno, f"ui.{alias.name}") for alias in node.names]
    return found


def offending(roots: tuple[str, ...], allowed: tuple[str, ...], banned: tuple[str, ...]) -> list[str]:
    """'path:line: module' for each import under `roots` of a banned module not in `allowed`."""
    out = []
    for root in roots:
        for path in sorted((PROJECT_ROOT / root).rglob("*.py")):
            rel = path.relative_to(PROJECT_ROOT).as_posix()
            for line, module in imported_roots(path.read_text(encoding="utf-8"), rel):
                hit = any(module == b or module.startswith(b + ".") for b in banned)
                ok = any(module == a or module.startswith(a + ".") for a in allowed)
                if hit and not ok:
                    out.append(f"{rel}:{line}: {module}")
    return out


def test_the_check_sees_every_form(tmp_path: Path) -> None:
    source = "import streamlit as st\nfrom ui import views\nfrom ui.keys import X\ndef f():\n    import ui.jobs\n"
    modules = [m for _, m in imported_roots(source, "x.py")]
    assert modules == ["streamlit", "ui", "ui.views", "ui.keys", "ui.jobs"]


def test_the_core_never_imports_the_presentation() -> None:
    assert (PROJECT_ROOT / "execugraph" / "workflow" / "trial.py").is_file()
    found = offending(("execugraph", "sandbox"), (), ("streamlit", "ui", "pages", "app"))
    assert not found, "the core imports the presentation:\n" + "\n".join(found)


def test_view_models_stay_free_of_streamlit() -> None:
    assert (PROJECT_ROOT / "ui" / "views" / "trace.py").is_file()
    found = offending(("ui/views",), ("ui.views",), ("streamlit", "ui"))
    assert not found, "ui/views must be testable without Streamlit:\n" + "\n".join(found)
