"""Export bundles and import them back: determinism, lossless round trip, de-duplication, refusal of bad files.

The store is real SQLite (a file in tmp_path); runs are written through the
Store's own methods with awkward values (unicode, NUL bytes, NaN in JSON, a
rescore child, an ad-hoc problem), so the bundle has to carry every column.
"""

from __future__ import annotations

import io
import json
import shutil
import zipfile
from pathlib import Path

import pytest

from execugraph.batch.control import enqueue_batch
from execugraph.batch.spec import BatchSpec
from execugraph.publication import (
    BundleFormatError,
    ExportError,
    bundle_files,
    export_bundle,
    import_path,
    import_zip_bytes,
    layout,
)
from execugraph.stats import build_report
from execugraph.store import Store, utcnow
from execugraph.verdicts.sensitivity import protocol_sensitivity
from execugraph.workflow.single import adhoc_problem
from tests.support.trace_rows import add_retrieval_hits, add_step, finish_step

SPEC = BatchSpec(
    benchmark="internal30",
    problem_ids=["fib", "climb_stairs"],
    conditions=["single-oneshot", "multi-full"],
    seeds=[0, 1],
    title="publication seed",
)
GOOD = {"fib": "def fib(n):\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\n"}


def _trace(store: Store, trial_id: int, *, passed: bool, code: str) -> None:
    """One plausible multi-node trace with every child table filled."""
    plan = add_step(store, trial_id, "planner", 0, output={"plan": "iterate — héllo ✓", "score": float("nan")})
    store.add_llm_call(
        trial_id,
        plan,
        role="planner",
        provider="llamacpp",
        model="default",
        messages=[{"role": "system", "content": "plan it"}, {"role": "user", "content": "fib ✓ \u00e9"}],
        response="1. loop\n2. return",
        tokens_in=12,
        tokens_out=7,
        latency_s=0.123456789,
        seed=0,
        temperature=0.0,
        prompt_hash="abc123",
    )
    finish_step(store, plan)
    add_retrieval_hits(store,
        trial_id,
        [
            {"technique_id": "dp-iter", "technique_name": "Iterative DP", "score": 0.8125, "rank": 1, "query": "fib"},
            {"technique_id": "memo", "technique_name": "Memoisation", "score": 0.5, "rank": 2, "query": "fib"},
        ],
    )
    gen = add_step(store, trial_id, "evaluator", 0)
    store.add_execution(
        trial_id,
        gen,
        purpose="grading",
        code=code,
        verdict="passed" if passed else "wrong_answer",
        tests_passed=5 if passed else 3,
        tests_total=5,
        results=[{"name": "n=10", "passed": passed, "got": "55", "expected": "55", "duration_s": 0.001}],
        stdout="",
        stderr="" if passed else "Traceback\x00 (NUL)\n",
        policy_version="test-policy-1",
        isolation={"seccomp": "active"},
        duration_s=0.05,
    )
    finish_step(store,
        gen, output={"verdict": "passed" if passed else "wrong_answer", "nested": {"b": [1, 2], "a": None}}
    )
    store.add_execution(trial_id, None, purpose="smoke", code=code, verdict="passed", tests_passed=1, tests_total=1)


def seed_store(store: Store) -> dict[str, int]:
    """A finished batch (with one crashed trial), its rescore child and an ad-hoc single run."""
    batch = enqueue_batch(store, SPEC)
    store.set_tags(batch, ["paper", "v1"])
    store.update_run(batch, status="running", started_at=utcnow(), worker_id="w1", heartbeat_at=utcnow())
    for i, trial in enumerate(store.trials_for_run(batch)):
        store.update_trial(trial.id, status="running", started_at=utcnow())
        if i == 3:
            store.finish_trial(
                trial.id, status="error", passed=False, error_class="llm_error", message="model unreachable"
            )
            continue
        passed = trial.problem_id == "fib" and trial.condition == "multi-full" or i == 0
        code = GOOD["fib"] if passed else "def climbStairs(n):\n    return n\n"
        _trace(store, trial.id, passed=passed, code=code)
        store.finish_trial(
            trial.id,
            passed=passed,
            tests_passed=5 if passed else 3,
            tests_total=5,
            retries_used=i % 3,
            error_class=None if passed else "wrong_answer",
            test_source="problem",
            final_code=code,
            explanation="It loops.",
            wallclock_s=1.5 + i / 7,
            tokens_in=100 + i,
            tokens_out=50 + i,
            llm_calls=1 + i % 4,
        )
    store.update_run(batch, status="done", finished_at=utcnow(), progress_done=8, progress_passed=3, worker_id=None)

    rescore = store.create_run(
        "rescore",
        "rescore of the seed",
        {"rescore": {"flips": []}},
        benchmark="internal30",
        parent_run_id=batch,
        status="done",
    )
    child = store.create_trial(rescore, "fib", "multi-full", 0, 0, category="dp", benchmark="internal30")
    store.finish_trial(child, passed=True, tests_passed=5, tests_total=5, test_source="problem", final_code=GOOD["fib"])

    problem = adhoc_problem("Add two numbers.", "add", tests=[{"kind": "call", "expr": "add(1, 2)", "expected": 3}])
    store.upsert_problem(problem)
    single = store.create_run(
        "single",
        "ad-hoc add",
        {"conditions": {"multi-full": {"retry_budget": 3}}},
        benchmark="adhoc",
        models={"generator": "ollama:qwen"},
        status="done",
    )
    trial = store.create_trial(single, problem.id, "multi-full", 0, 0, category="adhoc", benchmark="adhoc")
    store.finish_trial(
        trial,
        passed=True,
        tests_passed=1,
        tests_total=1,
        test_source="problem",
        final_code="def add(a, b):\n    return a + b\n",
        wallclock_s=float("inf"),
    )
    return {"batch": batch, "rescore": rescore, "single": single}


@pytest.fixture(scope="module")
def seeded_db(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, int]]:
    """Seed once per module (it is the slow part); each test gets its own copy of the file."""
    path = tmp_path_factory.mktemp("seed") / "source.db"
    with Store.open(str(path)) as store:
        ids = seed_store(store)
    return path, ids


@pytest.fixture
def seeded(seeded_db, tmp_path: Path) -> tuple[Store, dict[str, int]]:
    source, ids = seeded_db
    copy = tmp_path / "source.db"
    shutil.copyfile(source, copy)
    store = Store.open(str(copy))
    yield store, ids
    store.close()


def _all_ids(ids: dict[str, int]) -> list[int]:
    return [ids["batch"], ids["rescore"], ids["single"]]


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_seed_is_what_the_tests_rely_on(seeded) -> None:
    store, ids = seeded
    assert [t.status for t in store.trials_for_run(ids["batch"])].count("error") == 1
    assert store.get_run(ids["rescore"]).parent_run_id == ids["batch"]
    assert len(store.steps_for_trial(store.trials_for_run(ids["batch"])[0].id)) == 2


def test_export_twice_gives_identical_bytes_for_folder_and_zip(seeded, tmp_path: Path) -> None:
    store, ids = seeded
    export_bundle(store, _all_ids(ids), tmp_path / "a")
    export_bundle(store, list(reversed(_all_ids(ids))), tmp_path / "b")
    export_bundle(store, _all_ids(ids), tmp_path / "a.zip")
    export_bundle(store, _all_ids(ids), tmp_path / "b.zip")
    assert _tree(tmp_path / "a") == _tree(tmp_path / "b")
    assert (tmp_path / "a.zip").read_bytes() == (tmp_path / "b.zip").read_bytes()
    with zipfile.ZipFile(tmp_path / "a.zip") as archive:
        assert {i.filename: archive.read(i) for i in archive.infolist()} == _tree(tmp_path / "a")
        assert {i.date_time for i in archive.infolist()} == {(1980, 1, 1, 0, 0, 0)}


def test_bundle_has_every_file_and_row(seeded) -> None:
    store, ids = seeded
    files = bundle_files(store, _all_ids(ids))
    for name in (*layout.TABLE_FILES, layout.CONFIG, layout.RUN_META, layout.SUMMARY, layout.README, layout.MANIFEST):
        assert name in files, name
    lines = {name: [json.loads(x) for x in files[name].splitlines()] for name in layout.TABLE_FILES}
    assert [r["id"] for r in lines[layout.RUNS]] == [1, 2, 3]
    assert lines[layout.RUNS][1]["parent_run_id"] == 1
    assert not {"worker_id", "heartbeat_at", "cancel_requested"} & set(lines[layout.RUNS][0])
    assert len(lines[layout.TRIALS]) == 10
    assert [t["id"] for t in lines[layout.TRIALS]] == list(range(1, 11))
    crashed = [t for t in lines[layout.TRIALS] if t["status"] == "error"]
    assert crashed[0]["verdict"] == "llm_error" and crashed[0]["final_code"] is None
    assert (
        len(lines[layout.STEPS]) == 14 and len(lines[layout.LLM_CALLS]) == 7 and len(lines[layout.RETRIEVAL_HITS]) == 14
    )
    assert len(lines[layout.EXECUTIONS]) == 14
    assert lines[layout.LLM_CALLS][0]["messages"][1]["content"] == "fib ✓ é"
    assert lines[layout.EXECUTIONS][0]["stderr"] == "" or "\ufffd" in lines[layout.EXECUTIONS][1]["stderr"]
    assert {(p["benchmark"], p["problem_id"]) for p in lines[layout.PROBLEMS]} >= {("internal30", "fib")}
    single = [t for t in lines[layout.TRIALS] if t["run_id"] == 3][0]
    assert single["wallclock_s"] == "Infinity"
    assert json.loads(files[layout.CONFIG]) == store.get_run(ids["batch"]).config
    meta = json.loads(files[layout.RUN_META])
    assert meta["runs"][0]["sandbox_policy_versions"] == ["test-policy-1"]
    assert meta["runs"][2]["models"] == {"generator": "ollama:qwen"}
    assert meta["runs"][0]["python"] and "exporter" in meta
    assert files[layout.TRIALS].isascii()


def test_exported_config_reruns_as_the_same_batch(seeded, tmp_path: Path) -> None:
    store, ids = seeded
    export_bundle(store, [ids["batch"]], tmp_path / "bundle")
    data = json.loads((tmp_path / "bundle" / layout.CONFIG).read_text())
    spec = BatchSpec(**data.get("batch", data))  # exactly what `batch --config` does
    assert spec == SPEC
    with Store.open(str(tmp_path / "rerun.db")) as fresh:
        rerun = enqueue_batch(fresh, spec)
        keys = {(t.problem_id, t.condition, t.seed, t.trial_index) for t in fresh.trials_for_run(rerun)}
    assert keys == {(t.problem_id, t.condition, t.seed, t.trial_index) for t in store.trials_for_run(ids["batch"])}


def test_summary_is_the_statistics_report_of_the_exported_runs(seeded) -> None:
    # Seeded into an empty database, the runs have ids 1, 2, 3: the same as their bundle ids.
    store, ids = seeded
    assert _all_ids(ids) == [1, 2, 3]
    files = bundle_files(store, [1, 2, 3])
    summary = json.loads(files[layout.SUMMARY])
    sensitivity = summary.pop("protocol_sensitivity")  # the page's protocol table comes with it
    assert summary == json.loads(json.dumps(build_report(store, ["1", "2", "3"]).to_json_dict()))
    assert sensitivity == json.loads(json.dumps(protocol_sensitivity(store, [1, 2, 3]).to_json_dict()))
    assert sensitivity["applies"] is False and "prompt preamble" in sensitivity["note"]
    one = bundle_files(store, [1])
    alone = json.loads(one[layout.SUMMARY])
    assert alone.pop("protocol_sensitivity")["applies"] is False
    assert alone == json.loads(json.dumps(build_report(store, ["1"]).to_json_dict()))
    assert len(alone["arms"]) == 2  # the batch's two conditions


@pytest.mark.parametrize("suffix", ["", ".zip"])
def test_round_trip_through_an_empty_database_is_byte_identical(seeded, tmp_path: Path, suffix: str) -> None:
    store, ids = seeded
    first = tmp_path / f"first{suffix}"
    export_bundle(store, _all_ids(ids), first)
    with Store.open(str(tmp_path / "empty.db")) as target:
        result = import_path(target, first)
        assert [(r.name, r.trials, r.imported) for r in result.runs] == [
            ("publication seed", 8, True),
            ("rescore of the seed", 1, True),
            ("ad-hoc add", 1, True),
        ]
        new_ids = [r.id for r in result.runs]
        assert target.get_run(new_ids[1]).parent_run_id == new_ids[0]
        assert target.get_run(new_ids[0]).kind == "batch"
        assert target.get_run(new_ids[0]).tags == ["paper", "v1"]
        second = tmp_path / f"second{suffix}"
        export_bundle(target, new_ids, second)
    if suffix:
        assert first.read_bytes() == second.read_bytes()
    else:
        assert _tree(first) == _tree(second)


def test_round_trip_into_a_database_with_other_runs_maps_ids(seeded, tmp_path: Path) -> None:
    store, ids = seeded
    export_bundle(store, _all_ids(ids), tmp_path / "b1")
    with Store.open(str(tmp_path / "busy.db")) as target:
        for _ in range(5):
            target.create_run("single", "unrelated", {}, status="done")
        result = import_path(target, tmp_path / "b1")
        assert [r.id for r in result.runs] == [6, 7, 8]
        export_bundle(target, [6, 7, 8], tmp_path / "b2")
    assert _tree(tmp_path / "b1") == _tree(tmp_path / "b2")


def test_reimporting_the_same_bundle_does_not_duplicate(seeded, tmp_path: Path) -> None:
    store, ids = seeded
    export_bundle(store, _all_ids(ids), tmp_path / "bundle.zip")
    with Store.open(str(tmp_path / "target.db")) as target:
        first = import_path(target, tmp_path / "bundle.zip")
        again = import_path(target, tmp_path / "bundle.zip")
        assert [r.id for r in again.runs] == [r.id for r in first.runs]
        assert not any(r.imported for r in again.runs) and again.warnings
        assert len(target.list_runs()) == 3
        target.delete_run(first.runs[2].id)
        partly = import_path(target, tmp_path / "bundle.zip")
        assert [r.imported for r in partly.runs] == [False, False, True]
        assert len(target.list_runs()) == 3


def test_unfinished_and_unknown_runs_are_refused(seeded, tmp_path: Path) -> None:
    store, ids = seeded
    busy = store.create_run("batch", "still going", {}, status="running")
    with pytest.raises(ExportError, match="in progress"):
        export_bundle(store, [ids["batch"], busy], tmp_path / "x")
    with pytest.raises(ExportError, match="no such run: 999"):
        export_bundle(store, [999], tmp_path / "y")
    export_bundle(store, [ids["single"]], tmp_path / "z")
    with pytest.raises(ExportError, match="already exists"):
        export_bundle(store, [ids["single"]], tmp_path / "z")
    assert not (tmp_path / "x").exists() and not (tmp_path / "y").exists()


def _edit_line(path: Path, number: int, change) -> None:
    lines = path.read_text().splitlines()
    obj = json.loads(lines[number - 1])
    change(obj)
    lines[number - 1] = json.dumps(obj)
    path.write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize(
    ("file", "line", "change", "field", "message"),
    [
        (layout.TRIALS, 2, lambda o: o.update(passed="yes"), "passed", "expected true or false"),
        (layout.TRIALS, 3, lambda o: o.pop("seed"), "seed", "missing"),
        (layout.TRIALS, 4, lambda o: o.update(run_id=42), "run_id", "run 42 is not in"),
        (layout.TRIALS, 5, lambda o: o.update(test_source="vibes"), "test_source", "must be one of"),
        (layout.TRIALS, 2, lambda o: o.update(passed=not o["passed"]), "verdict", "says"),
        (layout.LLM_CALLS, 1, lambda o: o.update(messages=[{"text": "x"}]), "messages", "role"),
        (layout.STEPS, 2, lambda o: o.update(started_at="yesterday"), "started_at", "ISO 8601"),
        (layout.RUNS, 1, lambda o: o.update(status="running"), "status", "only finished runs"),
        (layout.EXECUTIONS, 3, lambda o: o.update(bogus=1), "bogus", "unknown field"),
        (layout.PROBLEMS, 1, lambda o: o.update(tests="nope"), "tests", "expected a JSON array"),
        (layout.RUNS, 2, lambda o: o.update(parent_run_id=2), "parent_run_id", "not another run"),
    ],
)
def test_bad_files_are_refused_with_file_line_and_field(
    seeded, tmp_path: Path, file, line, change, field, message
) -> None:
    store, ids = seeded
    bundle = tmp_path / "bundle"
    export_bundle(store, _all_ids(ids), bundle)
    _edit_line(bundle / file, line, change)
    with Store.open(str(tmp_path / "target.db")) as target:
        with pytest.raises(BundleFormatError) as caught:
            import_path(target, bundle)
        assert (caught.value.file, caught.value.line, caught.value.field) == (file, line, field)
        assert message in str(caught.value) and f"{file}:{line}" in str(caught.value)
        assert target.list_runs() == []  # nothing half-imported


def test_broken_json_and_wrong_format_are_refused(seeded, tmp_path: Path) -> None:
    store, ids = seeded
    bundle = tmp_path / "bundle"
    export_bundle(store, [ids["single"]], bundle)
    with (bundle / layout.TRIALS).open("a") as fh:
        fh.write("{not json\n")
    with Store.open(str(tmp_path / "t.db")) as target:
        with pytest.raises(BundleFormatError, match=r"trials.jsonl:2: not valid JSON"):
            import_path(target, bundle)
        manifest = json.loads((bundle / layout.MANIFEST).read_text()) | {"format_version": 99}
        (bundle / layout.MANIFEST).write_text(json.dumps(manifest))
        with pytest.raises(BundleFormatError, match="format_version"):
            import_path(target, bundle)
        with pytest.raises(BundleFormatError, match="not a folder or a zip file"):
            import_path(target, tmp_path / "t.db")
        empty = tmp_path / "empty"
        empty.mkdir()
        with pytest.raises(BundleFormatError, match="neither an ExecuGraph bundle"):
            import_path(target, empty)
        assert target.list_runs() == []


def test_a_differing_stored_problem_is_kept_and_reported(seeded, tmp_path: Path) -> None:
    store, ids = seeded
    export_bundle(store, [ids["single"]], tmp_path / "bundle")
    problem = store.trials_for_run(ids["single"])[0]
    with Store.open(str(tmp_path / "t.db")) as target:
        original = store.get_problem("adhoc", problem.problem_id)
        target.upsert_problem(original.model_copy(update={"statement": "Something else."}))
        result = import_path(target, tmp_path / "bundle")
        assert any("different content" in w for w in result.warnings)
        assert target.get_problem("adhoc", problem.problem_id).statement == "Something else."


def test_a_zip_holding_the_bundle_in_a_folder_imports(seeded, tmp_path: Path) -> None:
    store, ids = seeded
    files = bundle_files(store, [ids["batch"]])
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in files.items():
            archive.writestr(f"my-paper-bundle/{name}", data)
    with Store.open(str(tmp_path / "t.db")) as target:
        (run,) = import_zip_bytes(target, buffer.getvalue(), "upload.zip").runs
        assert (run.name, run.trials) == ("publication seed", 8)
        assert bundle_files(target, [run.id]) == files
