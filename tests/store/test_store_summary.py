"""run_progress and run_summary: right numbers, computed by the database in a few GROUP BY queries."""

from __future__ import annotations

import random

import pytest
from sqlalchemy import event

from execugraph.store import Store

pytestmark = pytest.mark.integration


def _make_run(store: Store, seed: int = 3) -> tuple[int, list[dict]]:
    """A run with trials in every status across two conditions and three categories; returns what was written."""
    rng = random.Random(seed)
    run_id = store.create_run("batch", "summary", {})
    keys = [
        {"problem_id": f"p{i}", "condition": condition, "seed": s, "trial_index": 0, "category": f"cat{i % 3}"}
        for i in range(12)
        for condition in ("single-oneshot", "multi-full")
        for s in (0, 1)
    ]
    assert store.ensure_trials(run_id, keys) == len(keys)
    written = []
    for trial in store.trials_for_run(run_id):
        status = rng.choice(["queued", "running", "done", "done", "done", "error", "cancelled"])
        passed = rng.random() < 0.6 if status == "done" else (False if status == "error" else None)
        fields = {
            "status": status,
            "passed": passed,
            "wallclock_s": round(rng.uniform(0.5, 3.0), 3),
            "retries_used": rng.randint(0, 3),
            "tokens_in": rng.randint(10, 500),
            "tokens_out": rng.randint(1, 100),
            "llm_calls": rng.randint(1, 6),
        }
        store.update_trial(trial.id, **fields)
        written.append({"condition": trial.condition, "category": trial.category, **fields})
    return run_id, written


def _expected(rows: list[dict]) -> dict:
    finished = [r for r in rows if r["status"] in ("done", "error")]
    graded = [r for r in rows if r["status"] == "done"]
    passed = sum(1 for r in rows if r["passed"] is True)
    return {
        "trials": len(rows),
        "finished": len(finished),
        "graded": len(graded),
        "passed": passed,
        "errors": sum(1 for r in rows if r["status"] == "error"),
        "pass_rate": passed / len(graded) if graded else None,
        "mean_wallclock_s": sum(r["wallclock_s"] for r in finished) / len(finished) if finished else None,
        "mean_retries": sum(r["retries_used"] for r in finished) / len(finished) if finished else None,
        "tokens_in": sum(r["tokens_in"] for r in rows),
        "tokens_out": sum(r["tokens_out"] for r in rows),
        "llm_calls": sum(r["llm_calls"] for r in rows),
    }


def _assert_stats(actual: dict, expected: dict) -> None:
    for key, value in expected.items():
        if isinstance(value, float):
            assert actual[key] == pytest.approx(value), key
        else:
            assert actual[key] == value, key


def test_run_progress_counts_by_status(store: Store) -> None:
    run_id, rows = _make_run(store)
    progress = store.run_progress(run_id)
    for status in ("queued", "running", "done", "error", "cancelled"):
        assert progress[status] == sum(1 for r in rows if r["status"] == status), status
    assert progress["total"] == len(rows)
    assert progress["passed"] == sum(1 for r in rows if r["passed"] is True)
    assert progress["finished"] == progress["done"] + progress["error"] + progress["cancelled"]
    empty = store.create_run("batch", "empty", {})
    assert store.run_summary(empty)["overall"]["trials"] == 0
    assert store.run_summary(empty)["by_condition"] == []
    assert store.run_progress(empty) == {
        "total": 0,
        "queued": 0,
        "running": 0,
        "done": 0,
        "error": 0,
        "cancelled": 0,
        "passed": 0,
        "finished": 0,
    }


def test_run_summary_matches_a_hand_computation(store: Store) -> None:
    run_id, rows = _make_run(store)
    store.ensure_trials(
        store.create_run("batch", "noise", {}),
        [{"problem_id": "x", "condition": "single-oneshot", "seed": 0, "trial_index": 0}],
    )
    summary = store.run_summary(run_id)
    assert summary["run_id"] == run_id
    _assert_stats(summary["overall"], _expected(rows))

    conditions = sorted({r["condition"] for r in rows})
    assert [g["condition"] for g in summary["by_condition"]] == conditions
    for group in summary["by_condition"]:
        _assert_stats(group, _expected([r for r in rows if r["condition"] == group["condition"]]))

    categories = sorted({r["category"] for r in rows})
    assert [g["category"] for g in summary["by_category"]] == categories
    for group in summary["by_category"]:
        _assert_stats(group, _expected([r for r in rows if r["category"] == group["category"]]))

    assert len(summary["by_condition_category"]) == len(conditions) * len(categories)
    for group in summary["by_condition_category"]:
        subset = [r for r in rows if (r["condition"], r["category"]) == (group["condition"], group["category"])]
        _assert_stats(group, _expected(subset))


def test_summary_is_aggregated_in_sql(store: Store) -> None:
    """The summary must not fetch trial rows: one GROUP BY statement over the run's trials."""
    run_id, _rows = _make_run(store)
    statements: list[str] = []

    def record(conn, cursor, statement, parameters, context, executemany) -> None:
        statements.append(statement)

    event.listen(store.engine, "before_cursor_execute", record)
    try:
        summary = store.run_summary(run_id)
    finally:
        event.remove(store.engine, "before_cursor_execute", record)
    queries = [s for s in statements if s.lstrip().upper().startswith("SELECT")]
    assert len(queries) == 1
    assert "group by" in queries[0].lower() and "count(" in queries[0].lower()
    assert not any("final_code" in q for q in queries)
    assert len(summary["by_condition_category"]) == 6
