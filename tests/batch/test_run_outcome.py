"""Nothing is hidden: a run with errored trials reads `done with errors` everywhere, with passed / graded /
errors / total, every pass rate over the graded trials, and its arms flagged wherever they are compared."""

from __future__ import annotations

import json

import pytest

from execugraph.batch.control import enqueue_batch
from execugraph.batch.outcome import Counts, status_word
from execugraph.batch.progress import progress
from execugraph.cli.stats import format_report
from execugraph.stats import build_report
from execugraph.store import Store
from standins.ollama_server import OllamaStandIn, scripted_responder
from tests.batch.test_runner import GOOD, MODEL, problems, spec, start_worker
from tests.cli.test_cli import FIB, cli
from ui import views

pytestmark = pytest.mark.integration


def test_counts_state_their_denominator():
    counts = Counts(total=32, graded=6, passed=6, errors=26)
    assert counts.pass_rate == 1.0 and counts.finished == 32
    assert counts.describe() == "passed 6/6 graded (100%), 26 errors, 32 total"
    assert Counts(total=2, graded=0, passed=0, errors=1).rate_text() == "passed 0/0 graded (-)"
    assert status_word("done", counts) == "done with errors"
    assert status_word("done", Counts(total=3, graded=3, passed=1, errors=0)) == "done"
    assert status_word("cancelled", counts) == "cancelled"


def test_batch_wait_with_every_trial_errored_is_done_with_errors_and_exits_1(tmp_path):
    with OllamaStandIn(responder=scripted_responder([FIB], cycle=True), models=["m"]) as server:
        result = cli(tmp_path, "batch", "--problems", "fib", "--conditions", "single-oneshot", "--seeds", "0-1",
                     "--model", "ollama:missing", "--wait", host=server.url)
    assert result.returncode == 1, result.stderr
    final = json.loads(result.stdout.splitlines()[-1])
    assert final == {"run_id": final["run_id"], "status": "done with errors", "passed": 0, "graded": 0,
                     "errors": 2, "total": 2}
    assert "passed 0/0 graded (-), 2 errors" in result.stderr  # the progress line says it too
    line = cli(tmp_path, "status", str(final["run_id"])).stdout
    assert "done with errors" in line and "2/2" in line and "passed 0/0 graded (-), 2 errors" in line


def test_a_run_with_one_errored_trial_says_so_everywhere(tmp_path):
    db_url = f"sqlite:///{tmp_path / 'cli.db'}"
    store = Store.open(db_url)
    run_id = enqueue_batch(store, spec(conditions=["single-oneshot", "single-retry"], seeds=[0]), problems(2))
    # a trial whose problem is missing ends as a harness error: a real errored trial, next to graded ones
    ghost = {"problem_id": "ghost", "condition": "single-retry", "seed": 0, "trial_index": 0, "benchmark": "toy"}
    assert store.ensure_trials(run_id, [ghost]) == 1
    with OllamaStandIn(responder=scripted_responder([GOOD], cycle=True), models=[MODEL]) as server:
        worker = start_worker(db_url, server.url)
        _, err = worker.communicate(timeout=300)
        assert worker.returncode == 0, err.decode()
    assert store.get_run(run_id).status == "done"  # stored: the worker finished it ...
    p = progress(store, run_id)
    assert p.status == "done with errors"  # ... shown: with its error
    assert (p.passed, p.graded, p.error, p.total, p.pass_rate) == (4, 4, 1, 5, 1.0)

    row = json.loads(cli(tmp_path, "status", str(run_id), "--json").stdout)[0]
    assert {k: row[k] for k in ("status", "passed", "graded", "errors", "total", "pass_rate", "pass_rate_of")} == {
        "status": "done with errors", "passed": 4, "graded": 4, "errors": 1, "total": 5, "pass_rate": 1.0,
        "pass_rate_of": "graded",
    }
    line = cli(tmp_path, "status", str(run_id)).stdout
    assert "done with errors" in line and "passed 4/4 graded (100%), 1 errors" in line

    listed = next(r for r in views.run_rows(store) if r["id"] == run_id)
    assert (listed["status"], listed["passed"], listed["graded"], listed["errors"], listed["trials"]) == (
        "done with errors", 4, 4, 1, 5)
    batch = next(r for r in views.active_batches(store) if r["id"] == run_id)
    assert (batch["status"], batch["graded"], batch["errors"]) == ("done with errors", 4, 1)
    summary = store.run_summary(run_id)
    retry = next(c for c in summary["by_condition"] if c["condition"] == "single-retry")
    assert (retry["graded"], retry["errors"], retry["pass_rate"]) == (2, 1, 1.0)

    report = build_report(store, [str(run_id)])
    arms = {a.label: a for a in report.arms}
    assert arms["single-oneshot"].flag is None
    assert arms["single-retry"].ungraded.model_dump() == {"errors": 1, "unfinished": 0}
    assert arms["single-retry"].flag == "1 of 3 trials not graded: 1 ended in an error (counted as failures)"
    assert report.pairs[0].ungraded_arms == ["single-retry"]
    assert views.ungraded_flags(report) == [{"arm": "single-retry", "flag": arms["single-retry"].flag}]
    text = format_report(report)
    assert "! single-retry: 1 of 3 trials not graded" in text and "! single-retry ungraded" in text
