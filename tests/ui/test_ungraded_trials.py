"""A run with an errored trial on the dashboard: `done with errors` with passed / graded / errors on the Runs
and Batch pages, and its arm flagged on the Statistics and Ablations pages."""

from __future__ import annotations

from execugraph.stats import build_report
from tests.ui.conftest import no_exception, texts


def errored_batch(seeded_db, db_store) -> tuple[int, str]:
    """Turn one graded trial of the seeded batch into one that ended in an error; returns its condition."""
    trial = db_store.trials_for_run(seeded_db.batch, status="done")[0]
    db_store.finish_trial(trial.id, status="error", passed=False, error_class="llm_error",
                          message="ollama:m: the endpoint stayed unreachable")
    return seeded_db.batch, trial.condition


def test_runs_and_batch_pages_say_done_with_errors(app, seeded_db, db_store):
    run_id, _ = errored_batch(seeded_db, db_store)
    counts = db_store.run_progress(run_id)
    runs = app("runs")
    no_exception(runs)
    table = runs.dataframe[0].value
    row = table[table["id"] == run_id].iloc[0]
    assert row["status"] == "done with errors"
    assert (row["passed"], row["graded"], row["errors"]) == (counts["passed"], counts["done"], counts["error"])
    batch = app("batch")
    no_exception(batch)
    assert any(f"#{run_id}**" in m and "done with errors" in m for m in texts(batch, "markdown"))
    lines = [p.proto.text for p in batch.get("progress")]
    assert any(f"passed {counts['passed']}/{counts['done']} graded" in t and "1 errored" in t for t in lines)


def test_statistics_and_ablations_flag_the_arm_with_an_ungraded_trial(app, seeded_db, db_store):
    run_id, condition = errored_batch(seeded_db, db_store)
    flag = next(a.flag for a in build_report(db_store, [str(run_id)]).arms if a.label == condition)
    assert flag.startswith("1 of ") and "1 ended in an error (counted as failures)" in flag
    for page in ("statistics", "ablations"):
        at = app(page, runs=str(run_id))
        no_exception(at)
        assert texts(at, "warning") == [f"**{condition}**: {flag}"], page
