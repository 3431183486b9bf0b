"""Issue 41/42, the first page after a start: the router (app.py) and the Synthesize page import neither SciPy nor
the workflow (LangGraph) nor the statistics engine, on import or while the first page is drawn (the sidebar's plugin
line builds the plugin registry, whose built-in agents and providers are registered by name, not imported, and its
embedded-model line asks without LangChain); the warm-up thread, started after that page, still imports them all
(fresh interpreters, a real AppTest render on an empty database)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.ui.conftest import PROJECT_ROOT

NEVER_FIRST = ("scipy", "execugraph.stats.paired", "execugraph.workflow.graph", "execugraph.batch.runner", "langgraph",
               "langchain_core", "execugraph.agents.nodes", "execugraph.providers.llm")


def _fresh(code: str, tmp_path: Path) -> dict:
    env = dict(os.environ, EXECUGRAPH_DB=str(tmp_path / "runs.db"), EXECUGRAPH_CACHE_DIR=str(tmp_path / "cache"),
               OLLAMA_HOST="http://127.0.0.1:9")
    done = subprocess.run([sys.executable, "-c", f"NEVER_FIRST = {NEVER_FIRST!r}\n{code}"], cwd=PROJECT_ROOT, env=env, capture_output=True, text=True,
                          timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_router_and_synthesize_import_none_of_the_heavy_modules(tmp_path: Path) -> None:
    # Every module app.py and pages/synthesize.py import at their top level, imported in a fresh interpreter.
    code = (
        "import ast, importlib, json, sys\n"
        "for script in ('app.py', 'pages/synthesize.py'):\n"
        "    for node in ast.parse(open(script).read()).body:\n"
        "        if isinstance(node, ast.ImportFrom):\n"
        "            module = importlib.import_module(node.module)\n"
        "            for alias in node.names:\n"
        "                getattr(module, alias.name, None) or importlib.import_module(node.module + '.' + alias.name)\n"
        "        elif isinstance(node, ast.Import):\n"
        "            for alias in node.names:\n"
        "                importlib.import_module(alias.name)\n"
        "print(json.dumps([m for m in sys.modules if m.split('.')[0] == 'langgraph' or m in NEVER_FIRST]))\n"
    )
    assert _fresh(code, tmp_path) == []


def test_the_first_page_draws_without_them_and_the_warm_up_imports_them_after(tmp_path: Path) -> None:
    code = (
        "import json, sys\n"
        "from streamlit.testing.v1 import AppTest\n"
        "import ui.resources\n"
        "ui.resources.start_worker = lambda url: False\n"
        "warm = ui.resources.warm_up\n"
        "ui.resources.warm_up = lambda: None\n"
        "at = AppTest.from_file('app.py', default_timeout=600).run()\n"
        "assert not at.exception and at.text_area, 'Synthesize was not drawn'\n"
        "first = [m for m in NEVER_FIRST if m in sys.modules]\n"
        "warm().join(600)\n"
        "after = [m for m in (*ui.resources.WARM_MODULES, 'langgraph', 'execugraph.providers.llm') if m not in sys.modules]\n"
        "print(json.dumps({'first': first, 'missing_after_warm_up': after}))\n"
    )
    assert _fresh(code, tmp_path) == {"first": [], "missing_after_warm_up": []}


def test_traces_header_needs_neither_the_agents_nor_the_statistics(tmp_path: Path) -> None:
    # What pages/trace.py runs before its metrics: its imports above `trace_body` and the picker's view models.
    code = (
        "import ast, importlib, json, sys\n"
        "tree = ast.parse(open('pages/trace.py').read())\n"
        "late = next(n.lineno for n in tree.body if isinstance(n, ast.ImportFrom) and n.names[0].name == 'trace_body')\n"
        "for node in tree.body:\n"
        "    if isinstance(node, ast.ImportFrom) and node.lineno < late:\n"
        "        importlib.import_module(node.module)\n"
        "from ui import views\n"
        "views.OUTCOMES, views.trial_filter_choices, views.run_choices, views.duration\n"
        "print(json.dumps([m for m in sys.modules if m.split('.')[0] == 'langgraph' or m in NEVER_FIRST\n"
        "                  or m == 'execugraph.agents.nodes']))\n"
    )
    assert _fresh(code, tmp_path) == []


def test_traces_body_needs_no_statistics(tmp_path: Path) -> None:
    # Below the header Trace draws one chart (the step timeline) and no table: the chart module and the download
    # helpers import the statistics engine (SciPy) only where a forest plot or a publication table is made.
    code = (
        "import json, sys\n"
        "import ui.trace_body\n"
        "print(json.dumps([m for m in sys.modules if m.split('.')[0] == 'scipy' or m in (\n"
        "    'execugraph.stats.paired', 'execugraph.stats.tables', 'execugraph.stats.all_tables')]))\n"
    )
    assert _fresh(code, tmp_path) == []
