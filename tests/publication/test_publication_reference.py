"""Import of the published layout (data/fixtures/reference_layout), checked against a hand computation."""

from __future__ import annotations

import io
import json
import shutil
import zipfile
from pathlib import Path

import pytest

from execugraph.configuration.settings import DATA_DIR
from execugraph.publication import BundleFormatError, bundle_files, import_path, import_zip_bytes
from execugraph.publication.published_records import benchmark_of
from execugraph.stats import build_report
from execugraph.store import Store

FIXTURE = DATA_DIR / "fixtures" / "reference_layout" / "grid-demo"


@pytest.fixture
def store(tmp_path: Path):
    with Store.open(str(tmp_path / "ref.db")) as opened:
        yield opened


def _by_name(result) -> dict[str, object]:
    return {r.name.split("/")[-1]: r for r in result.runs}


def test_every_run_folder_becomes_an_import_run(store: Store) -> None:
    result = import_path(store, FIXTURE)
    assert result.source == "reference"
    runs = _by_name(result)
    assert sorted(runs) == ["e1_so", "e1_sr", "e2_he_mf", "e3_apps_so"]
    assert {name: r.trials for name, r in runs.items()} == {"e1_so": 5, "e1_sr": 5, "e2_he_mf": 3, "e3_apps_so": 2}
    assert runs["e1_so"].name == "e1_so"  # named after its own folder
    run = store.get_run(runs["e1_so"].id)
    assert (run.kind, run.status, run.benchmark) == ("import", "done", "internal30")
    assert run.models == {
        "planner": "qwen2.5-coder:7b-instruct-q4_K_M",
        "generator": "qwen2.5-coder:7b-instruct-q4_K_M",
    }
    assert run.host == "Windows-10-10.0.26200-SP0 AMD64" and run.versions == {"python": "3.11.7"}
    assert run.config["reference"]["run_meta"]["retry_budget"] == 0
    assert run.config["retry_budget_by_condition"] == {"single-oneshot": 2}  # as published, not our default 0
    assert store.get_run(runs["e1_sr"].id).config["retry_budget_by_condition"] == {"single-retry": 2}
    assert any("1 repeated" in w for w in result.warnings)
    assert not any("run_summary.json says" in w for w in result.warnings)  # the summaries agree with the trials


def test_stats_match_the_hand_computation(store: Store) -> None:
    runs = _by_name(import_path(store, FIXTURE))
    ids = [str(runs[n].id) for n in ("e1_so", "e1_sr", "e2_he_mf", "e3_apps_so")]
    report = build_report(store, ids)
    by_run = {r.title.split("/")[-1]: r for r in report.runs}
    assert {n: (r.trials, r.passed) for n, r in by_run.items()} == {
        "e1_so": (5, 2),
        "e1_sr": (5, 4),
        "e2_he_mf": (3, 2),
        "e3_apps_so": (2, 1),
    }
    assert by_run["e1_so"].pass_rate == pytest.approx(0.4)
    assert by_run["e1_sr"].pass_rate == pytest.approx(0.8)
    assert by_run["e2_he_mf"].pass_rate == pytest.approx(2 / 3)
    assert by_run["e1_so"].categories["dp"].passed == 1 and by_run["e1_so"].categories["dp"].trials == 4
    assert by_run["e1_so"].categories["ds"].pass_rate == pytest.approx(1.0)
    e1_so = next(a for a in report.arms if a.run == ids[0])
    assert {e.error_class: e.count for e in e1_so.errors} == {
        "sandbox_violation": 1,
        "wrong_answer": 1,
        "runtime_error": 1,
    }
    assert e1_so.retry_budget == 2  # the records publish 2


def test_the_last_repeated_record_wins_and_nothing_is_lost(store: Store) -> None:
    runs = _by_name(import_path(store, FIXTURE))
    trials = store.trials_for_run(runs["e1_sr"].id)
    climb = [t for t in trials if t.problem_id == "climb_stairs"]
    assert len(climb) == 1 and climb[0].passed and climb[0].retries_used == 1
    assert [t.problem_id for t in trials] == ["fib", "fib", "climb_stairs", "coin_change", "house_robber"]
    so = {t.problem_id: t for t in store.trials_for_run(runs["e1_so"].id)}
    bad = so["climb_stairs"]
    assert (bad.passed, bad.error_class, bad.test_source, bad.benchmark) == (
        False,
        "sandbox_violation",
        "problem",
        "internal30",
    )
    assert so["fib"].error_class is None and so["fib"].finished_at.timestamp() == pytest.approx(1778381610.25)
    (step,) = store.steps_for_trial(bad.id)
    assert step.node == "reference_record"
    assert step.output["error_class_original"] == "sandbox_violation" and step.output["source"] == "internal"
    assert step.output["error_class_raw"] == "sandbox_violation" and step.output["line"] == 2
    (execution,) = store.executions_for_trial(bad.id)
    assert "_functools" in execution.stderr and execution.policy_version == "reference"
    assert execution.code == bad.final_code and "lru_cache" in bad.final_code


def test_reimporting_the_same_folders_does_not_duplicate(store: Store, tmp_path: Path) -> None:
    first = import_path(store, FIXTURE)
    again = import_path(store, FIXTURE)
    assert [r.id for r in again.runs] == [r.id for r in first.runs]
    assert not any(r.imported for r in again.runs)
    assert len(store.list_runs()) == 4
    # one folder changed: only that one is new
    copy = tmp_path / "grid-demo"
    shutil.copytree(FIXTURE, copy)
    with (copy / "e3_apps_so" / "trials.jsonl").open("a") as fh:
        record = json.loads((FIXTURE / "e3_apps_so" / "trials.jsonl").read_text().splitlines()[0])
        fh.write(json.dumps(record | {"trial": 1, "seed": 1}) + "\n")
    third = _by_name(import_path(store, copy))
    assert [n for n, r in third.items() if r.imported] == ["e3_apps_so"] and third["e3_apps_so"].trials == 3
    assert len(store.list_runs()) == 5


def test_a_zip_upload_imports_the_same(store: Store) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in sorted(FIXTURE.rglob("*")):
            if path.is_file():
                archive.write(path, f"grid-demo/{path.relative_to(FIXTURE).as_posix()}")
    result = import_zip_bytes(store, buffer.getvalue(), "results.zip")
    assert sorted(r.name for r in result.runs) == ["e1_so", "e1_sr", "e2_he_mf", "e3_apps_so"]
    assert sum(r.trials for r in result.runs) == 15
    run = store.get_run(result.runs[0].id)
    assert run.title == result.runs[0].name and run.config["reference"]["folder"].startswith("results/grid-demo/")


def test_a_zip_named_like_its_top_folder_does_not_double_the_name(store: Store) -> None:
    """`grid-demo.zip` holding `grid-demo/e1_so/...` names the run `e1_so`, not `grid-demo/grid-demo/e1_so`."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in sorted(FIXTURE.rglob("*")):
            if path.is_file():
                archive.write(path, f"grid-demo/{path.relative_to(FIXTURE).as_posix()}")
    result = import_zip_bytes(store, buffer.getvalue(), "grid-demo.zip")
    assert sorted(store.get_run(r.id).title for r in result.runs) == ["e1_so", "e1_sr", "e2_he_mf", "e3_apps_so"]


def test_two_folders_with_one_name_keep_their_parents(store: Store, tmp_path: Path) -> None:
    root = tmp_path / "published"
    for parent in ("humaneval", "internal"):
        shutil.copytree(FIXTURE / "e2_he_mf", root / parent / "e1_mf")
    with (root / "internal" / "e1_mf" / "trials.jsonl").open("a") as fh:  # different content: two runs
        record = json.loads((FIXTURE / "e2_he_mf" / "trials.jsonl").read_text().splitlines()[0])
        fh.write(json.dumps(record | {"trial": 7}) + "\n")
    result = import_path(store, root)
    assert sorted(r.name for r in result.runs) == ["humaneval/e1_mf", "internal/e1_mf"]


def test_a_single_run_folder_is_named_after_itself(store: Store) -> None:
    (run,) = import_path(store, FIXTURE / "e2_he_mf").runs
    assert (run.name, run.trials) == ("e2_he_mf", 3)
    assert store.get_run(run.id).benchmark == "humaneval"


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        (lambda r: r.update(passed="true"), "passed", "expected bool"),
        (lambda r: r.pop("problem_id"), "problem_id", "missing"),
        (lambda r: r.update(tests_passed=9), "tests_passed", "more than tests_total"),
        (lambda r: r.update(test_source=5), "test_source", "expected str"),
        (lambda r: r.update(seed=-1), "seed", ">= 0"),
        (lambda r: r.update(timestamp="last tuesday"), "timestamp", "ISO 8601"),
    ],
)
def test_a_bad_record_is_refused_and_nothing_is_imported(store: Store, tmp_path: Path, change, field, message) -> None:
    copy = tmp_path / "grid-demo"
    shutil.copytree(FIXTURE, copy)
    path = copy / "e2_he_mf" / "trials.jsonl"
    lines = path.read_text().splitlines()
    record = json.loads(lines[1])
    change(record)
    lines[1] = json.dumps(record)
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(BundleFormatError) as caught:
        import_path(store, copy)
    assert (caught.value.file, caught.value.line, caught.value.field) == ("e2_he_mf/trials.jsonl", 2, field)
    assert message in str(caught.value)
    assert store.list_runs() == []  # the other, valid folders were not imported either


def test_imported_reference_runs_export_and_round_trip(store: Store, tmp_path: Path) -> None:
    ids = [r.id for r in import_path(store, FIXTURE).runs]
    first = bundle_files(store, ids)
    with Store.open(str(tmp_path / "other.db")) as other:
        result = import_path(other, _write(first, tmp_path / "bundle"))
        assert result.source == "bundle"
        assert bundle_files(other, [r.id for r in result.runs]) == first
        assert other.get_run(result.runs[0].id).kind == "import"


def _write(files: dict[str, bytes], root: Path) -> Path:
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    return root


@pytest.mark.parametrize(
    ("source", "category", "expected"),
    [
        ("humaneval/17", "humaneval", "humaneval"),
        ("internal", "dp", "internal30"),
        ("apps-introductory/4864", "apps", "apps"),
        (None, "humaneval", "humaneval"),
        ("mbpp/3", "mbpp", ""),
    ],
)
def test_benchmark_from_source(source, category, expected) -> None:
    assert benchmark_of(source, category) == expected


def test_nan_and_infinity_written_by_pandas_are_missing_values(store: Store, tmp_path: Path) -> None:
    """json.dumps and pandas write NaN / Infinity for an unknown number; that is no value, not a broken file
    (a NaN used to reach the database as NULL and fail the whole import as an unusable database)."""
    copy = tmp_path / "grid-demo"
    shutil.copytree(FIXTURE, copy)
    path = copy / "e2_he_mf" / "trials.jsonl"
    lines = path.read_text().splitlines()
    record = json.loads(lines[1])
    record.update(wallclock_s=float("nan"), tokens_in=float("inf"), tokens_out=float("-inf"))
    lines[1] = json.dumps(record)
    assert "NaN" in lines[1] and "-Infinity" in lines[1]
    path.write_text("\r\n".join(lines) + "\r\n")
    runs = _by_name(import_path(store, copy))
    trial = store.find_trial(runs["e2_he_mf"].id, record["problem_id"], record["condition"], record["seed"],
                             record["trial"])
    assert trial is not None and trial.passed == record["passed"]
    assert (trial.wallclock_s, trial.tokens_in, trial.tokens_out) == (0.0, 0, 0)  # as for an absent field
