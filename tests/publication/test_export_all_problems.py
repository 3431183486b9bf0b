"""An export bundle's problems.jsonl holds every problem its trials name, stored or not (issue 30)."""

from __future__ import annotations

import json
from pathlib import Path

from execugraph.benchmarks import load_benchmark
from execugraph.publication import bundle_files, import_zip_bytes, layout
from execugraph.publication.export import export_bundle
from execugraph.store import Store, utcnow


def _run_over(store: Store, problem_ids: list[str], stored: int) -> int:
    """A finished run over `problem_ids` whose first `stored` problems alone are in the Problem table."""
    suite = {p.id: p for p in load_benchmark("internal30")}
    run_id = store.create_run("batch", "thirty", {}, benchmark="internal30")
    for index, problem_id in enumerate(problem_ids):
        if index < stored:
            store.upsert_problem(suite[problem_id])
        trial = store.create_trial(run_id, problem_id, "single-oneshot", 0, 0, category=suite[problem_id].category,
                                   benchmark="internal30")
        store.finish_trial(trial, passed=index % 2 == 0, tests_passed=1, tests_total=1, test_source="problem")
    store.update_run(run_id, status="done", finished_at=utcnow())
    return run_id


def _problems(files: dict[str, bytes]) -> list[dict]:
    return [json.loads(line) for line in files[layout.PROBLEMS].decode().splitlines() if line.strip()]


def test_a_run_over_thirty_exports_thirty_problems(tmp_path: Path) -> None:
    ids = [p.id for p in load_benchmark("internal30")]
    assert len(ids) == 30
    with Store.open(str(tmp_path / "runs.db")) as store:
        run_id = _run_over(store, ids, stored=3)
        files = bundle_files(store, [run_id])
        problems = _problems(files)
        assert sorted(p["problem_id"] for p in problems) == sorted(ids)
        stored = {p["problem_id"]: p for p in problems}[ids[0]]
        from_suite = {p["problem_id"]: p for p in problems}[ids[-1]]
        assert set(stored) == set(from_suite)  # the suite's copy has the stored rows' columns
        assert from_suite["tests"] and from_suite["benchmark"] == "internal30"
        assert bundle_files(store, [run_id]) == files  # still deterministic
        export_bundle(store, [run_id], tmp_path / "bundle.zip")
    with Store.open(str(tmp_path / "other.db")) as other:
        import_zip_bytes(other, (tmp_path / "bundle.zip").read_bytes())
        assert all(other.get_problem("internal30", p) is not None for p in ids)


def test_an_unknown_suite_exports_only_the_stored_problems(tmp_path: Path) -> None:
    with Store.open(str(tmp_path / "runs.db")) as store:
        run_id = store.create_run("single", "adhoc", {}, benchmark="adhoc")
        trial = store.create_trial(run_id, "nowhere", "multi-full", 0, 0, category="adhoc", benchmark="adhoc")
        store.finish_trial(trial, passed=True, tests_passed=1, tests_total=1, test_source="problem")
        store.update_run(run_id, status="done", finished_at=utcnow())
        assert _problems(bundle_files(store, [run_id])) == []
