"""A user suite's `release_date`: checked as YYYY-MM-DD (one line naming file, record and field), kept on the
stored problem, and read back for the contamination window of a batch run over it (real SQLite store)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from execugraph.batch.control import enqueue_batch
from execugraph.batch.spec import BatchSpec
from execugraph.benchmarks import BenchmarkFormatError, load_user_suite
from execugraph.store import Store
from execugraph.store.release_dates import release_dates


def _record(pid: str, **extra: str) -> str:
    return json.dumps({"id": pid, "statement": "Return twice x.", "entry_point": "double",
                       "tests": [{"kind": "call", "args": [2], "expected": 4}], **extra})


def test_a_date_in_another_format_is_one_line_naming_file_record_and_field(tmp_path: Path) -> None:
    suite = tmp_path / "suite.jsonl"
    suite.write_text(_record("a", release_date="2024-09-01") + "\n" + _record("b", release_date="09/01/2024") + "\n")
    with pytest.raises(BenchmarkFormatError) as caught:
        load_user_suite(suite)
    (issue,) = caught.value.issues
    assert (issue.line, issue.field) == (2, "release_date")
    assert "'09/01/2024' is not a date in YYYY-MM-DD form" in str(issue) and "suite.jsonl" in str(caught.value)
    suite.write_text(_record("a", release_date="2024-02-30") + "\n")
    with pytest.raises(BenchmarkFormatError, match="release_date"):
        load_user_suite(suite)


def test_the_date_is_kept_with_the_stored_problem_and_read_for_a_run(tmp_path: Path) -> None:
    suite = tmp_path / "suite.jsonl"
    suite.write_text(_record("late", release_date="2024-09-01") + "\n" + _record("undated") + "\n")
    late, undated = load_user_suite(suite)
    assert (late.release_date, undated.release_date) == ("2024-09-01", "")
    with Store.open(str(tmp_path / "u.db")) as store:
        run = enqueue_batch(store, BatchSpec(benchmark="user", benchmark_options={"path": str(suite)},
                                             conditions=["single-oneshot"]))
        assert store.get_problem("user", "late").release_date == "2024-09-01"
        assert release_dates(store, [run]) == {"late": "2024-09-01"}
