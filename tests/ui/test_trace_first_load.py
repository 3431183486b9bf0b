"""Issue 41, Trace's first load: the page imports plotly, pandas and the step drawers only after its header is
drawn, reads a trial's calls and sandbox runs in one query each (not per step), and builds the timeline once per
(database, trial, data version) - a step added or ended still shows on the next run."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.support.trace_rows import add_step, finish_step
from tests.ui.conftest import PROJECT_ROOT, no_exception


def _timeline_rows(at) -> list[str]:  # noqa: ANN001
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    return [label for trace in spec["data"] for label in trace["y"]]


HEAVY = ("pandas", "execugraph.figures.charts", "ui.steps", "ui.trace_parts", "ui.publish", "ui.trace_body")


def test_the_header_needs_none_of_the_heavy_modules():
    # pages/trace.py imports ui.trace_body after its last metric, and nothing it imports before needs the rest.
    code = (
        "import ast, importlib, sys\n"
        "tree = ast.parse(open('pages/trace.py').read())\n"
        "late = next(n.lineno for n in tree.body\n"
        "            if isinstance(n, ast.ImportFrom) and n.names[0].name == 'trace_body')\n"
        "metrics = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr == 'metric']\n"
        "assert metrics and max(metrics) < late, (metrics, late)\n"
        "for node in tree.body:\n"
        "    if isinstance(node, (ast.Import, ast.ImportFrom)) and node.lineno < late:\n"
        "        for name in [node.module] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]:\n"
        "            importlib.import_module(name)\n"
        f"print(' '.join(m for m in {HEAVY!r} if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=PROJECT_ROOT, capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "", f"imported before the header: {done.stdout}"


def test_the_timeline_follows_a_trial_that_grows(app, seeded_db, db_store):
    trial_id = seeded_db.passed_trial
    at = app("trace", trial=str(trial_id))
    no_exception(at)
    before = _timeline_rows(at)
    assert len(before) == len(db_store.steps_for_trial(trial_id))
    at.run()  # a rerun with nothing new: the cached figure, the same rows
    assert _timeline_rows(at) == before
    step = add_step(db_store, trial_id, "explainer", attempt=9, output={"explanation": "late"})
    finish_step(db_store, step)
    at.run()
    no_exception(at)
    after = _timeline_rows(at)
    assert after[:-1] == before and after[-1].endswith("explainer (attempt 9)"), after


def test_calls_and_sandbox_runs_are_read_once_per_trial(app, seeded_db, db_store):
    from sqlalchemy import event
    from sqlalchemy.engine import Engine

    statements: list[str] = []

    def seen(conn, cursor, statement, *args) -> None:  # noqa: ANN001
        statements.append(statement)

    trial_id = seeded_db.passed_trial
    assert db_store.llm_calls_for_trial(trial_id) and db_store.executions_for_trial(trial_id)  # something to read
    event.listen(Engine, "before_cursor_execute", seen)  # every SQL statement any engine sends
    try:
        at = app("trace", trial=str(trial_id))
    finally:
        event.remove(Engine, "before_cursor_execute", seen)
    no_exception(at)
    assert len(at.expander) >= len(db_store.steps_for_trial(trial_id)) > 3
    reads = [s for s in statements if s.lstrip().upper().startswith("SELECT")]
    calls = [s for s in reads if "FROM llm_call" in s and "WHERE llm_call.step_id" not in s and "GROUP BY" not in s]
    per_step = [s for s in reads if "WHERE llm_call.step_id" in s or "WHERE execution.step_id" in s]
    assert len(calls) == 1, calls  # the whole trial's calls at once
    assert per_step == [], per_step
