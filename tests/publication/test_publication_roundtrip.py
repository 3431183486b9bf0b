"""A real batch (real graph, real sandbox, scripted models) exported, imported, re-exported, rescored and rerun.

Also drives the three CLI commands as subprocesses, the way a user would.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from execugraph import cli
from execugraph.batch.control import enqueue_batch
from execugraph.batch.runner import Worker
from execugraph.batch.spec import BatchSpec
from execugraph.configuration.settings import PROJECT_ROOT
from execugraph.domain.problem import Problem
from execugraph.publication import bundle_files, export_bundle, import_path
from execugraph.store import Store
from execugraph.verdicts import rescore_run
from execugraph.workflow.trial import TrialDeps
from standins.scripted import fenced, scripted

pytestmark = pytest.mark.integration

GOOD = "def double(x):\n    return 2 * x\n"
WRONG = "def double(x):\n    return x + 2\n"
REVIEW = json.dumps({"invariants": ["doubles"], "potential_failures": [], "severity": "low"})


def toy_problems() -> list[Problem]:
    tests = [{"kind": "call", "expr": f"double({i})", "expected": 2 * i, "visible": i == 0} for i in range(4)]
    return [
        Problem(
            id=f"double_{i}",
            benchmark="toy",
            category="ab"[i % 2],
            statement=f"Double x ({i}).",
            entry_point="double",
            tests=tests,
        )
        for i in range(2)
    ]


def models() -> TrialDeps:
    return scripted(
        planner=["1. multiply by two"],
        generator=[fenced(WRONG), fenced(GOOD)],
        reviewer=[REVIEW],
        optimizer=[fenced(GOOD)],
        explainer=["It doubles x."],
    )


@pytest.fixture(scope="module")
def pool():
    from sandbox import SandboxPool

    with SandboxPool(workers=2) as shared:
        yield shared


@pytest.fixture(scope="module")
def finished_batch(tmp_path_factory, pool) -> Path:
    """A database holding one finished batch run by the real worker: 2 problems x 3 conditions."""
    path = tmp_path_factory.mktemp("batch") / "source.db"
    spec = BatchSpec(
        benchmark="toy",
        conditions=["single-oneshot", "single-retry", "multi-full"],
        seeds=[0],
        default_model="ollama:scripted",
        overrides={"cache": False},
        title="toy grid",
    )
    with Store.open(str(path)) as store:
        run_id = enqueue_batch(store, spec, toy_problems())
        Worker(store, deps_factory=lambda: TrialDeps(pool=pool, chat_models=models())).run_forever(
            poll_s=0.1, exit_when_idle=True
        )
        run = store.get_run(run_id)
        assert run.status == "done", run.error
        trials = store.trials_for_run(run_id)
        assert [t.status for t in trials] == ["done"] * 6
        assert {t.condition: t.passed for t in trials} == {
            "single-oneshot": False,
            "single-retry": True,
            "multi-full": True,
        }
    return path


def test_a_real_batch_round_trips_byte_identically(finished_batch: Path, tmp_path: Path) -> None:
    with Store.open(str(finished_batch)) as store:
        first = bundle_files(store, [1])
    lines = [json.loads(x) for x in first["llm_calls.jsonl"].splitlines()]
    assert {c["role"] for c in lines} >= {"planner", "generator", "reviewer", "explainer"}
    assert all(c["messages"] and c["response"] for c in lines)
    executions = [json.loads(x) for x in first["executions.jsonl"].splitlines()]
    assert any(e["results"] and e["policy_version"] for e in executions)
    for name, others in (("empty", 0), ("busy", 3)):
        with Store.open(str(tmp_path / f"{name}.db")) as target:
            for _ in range(others):
                target.create_run("single", "someone else's run", {}, status="done")
            result = import_path(target, _write(first, tmp_path / name))
            assert [r.id for r in result.runs] == [others + 1]
            assert bundle_files(target, [r.id for r in result.runs]) == first


def _write(files: dict[str, bytes], root: Path) -> Path:
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    return root


def test_rescoring_the_batch_agrees_and_records_a_child_run(finished_batch: Path, tmp_path: Path, pool) -> None:
    copy = tmp_path / "copy.db"
    copy.write_bytes(finished_batch.read_bytes())
    with Store.open(str(copy)) as store:
        report = rescore_run(store, 1, pool=pool)
        assert (report.rescored, report.agree, report.flips, report.unresolved) == (6, 6, [], [])
        assert report.origins == {"store": 6}  # toy problems come from the store's copies
        child = store.get_run(report.run_id)
        assert (child.kind, child.parent_run_id, child.status) == ("rescore", 1, "done")
        assert child.config["rescore"]["agreement"]["rate"] == 1.0
        trials = store.trials_for_run(report.run_id)
        original = {(t.problem_id, t.condition): t for t in store.trials_for_run(1)}
        for t in trials:
            before = original[(t.problem_id, t.condition)]
            assert (t.passed, t.final_code, t.llm_calls) == (before.passed, before.final_code, before.llm_calls)
            (execution,) = store.executions_for_trial(t.id)
            assert execution.policy_version == report.policy_version and len(execution.results) == 4
        # the rescore child exports with its parent, linked by bundle ids
        files = bundle_files(store, [1, report.run_id])
        runs = [json.loads(x) for x in files["runs.jsonl"].splitlines()]
        assert runs[1]["parent_run_id"] == 1 and runs[1]["kind"] == "rescore"


def _cli(*args: str, db: Path) -> subprocess.CompletedProcess:
    env = os.environ | {"EXECUGRAPH_DB": str(db)}
    return subprocess.run(
        [sys.executable, "-m", "execugraph", *args],
        cwd=PROJECT_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_cli_export_import_and_rescore(finished_batch: Path, tmp_path: Path, capsys) -> None:
    # as a user runs them (subprocesses) ...
    out = tmp_path / "bundle.zip"
    done = _cli("--db", str(finished_batch), "export", "--run", "1", "--out", str(out), db=tmp_path / "unused.db")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["runs"] == [{"run_id": 1, "bundle_id": 1, "trials": 6}]
    target = tmp_path / "target.db"
    done = _cli("import", str(out), "--db", str(target), db=tmp_path / "unused.db")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["runs"] == [{"id": 1, "name": "toy grid", "trials": 6, "imported": True}]
    done = _cli("rescore", "--run", "1", "--json", "--workers", "1", db=target)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["rescored"] == 6 and report["agreement"]["rate"] == 1.0 and report["run_id"] == 2
    # ... and the remaining paths in-process (each CLI start costs seconds of imports)
    db = ["--db", str(target)]
    assert cli.main([*db, "import", str(out)]) == 0
    printed = capsys.readouterr()
    assert json.loads(printed.out)["runs"][0]["imported"] is False and "not duplicated" in printed.err
    assert cli.main([*db, "rescore", "--run", "1", "--workers", "1"]) == 0
    assert "agreement with stored verdicts 100.0% (6/6)" in capsys.readouterr().out
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "trials.jsonl").write_text('{"problem_id": "x", "condition": "c", "seed": 0, "trial": 0}\n')
    assert cli.main([*db, "import", str(bad)]) == 2
    assert "trials.jsonl:1: field 'passed': missing" in capsys.readouterr().err
    assert cli.main([*db, "export", "--run", "99", "--out", str(tmp_path / "x")]) == 2
    assert "no such run: 99" in capsys.readouterr().err
    assert cli.main([*db, "rescore", "--run", "99"]) == 2
    assert "run 99 does not exist" in capsys.readouterr().err


def test_an_exported_config_reruns_through_the_batch_command(tmp_path: Path, monkeypatch, capsys) -> None:
    spec = BatchSpec(
        benchmark="internal30",
        problem_ids=["fib", "lcs"],
        conditions=["single-oneshot", "multi-full"],
        seeds=[0, 1],
        title="to rerun",
    )
    with Store.open(str(tmp_path / "src.db")) as store:
        run_id = enqueue_batch(store, spec)
        store.update_run(run_id, status="cancelled")  # finished (not queued), so it can be exported
        export_bundle(store, [run_id], tmp_path / "bundle")
    started: list[str] = []
    monkeypatch.setattr("execugraph.batch.worker_process.ensure_worker", started.append)
    rerun_db = tmp_path / "rerun.db"
    code = cli.main(["--db", str(rerun_db), "batch", "--config", str(tmp_path / "bundle" / "config.json")])
    assert code == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["trials"] == 2 * 2 * 2 and len(started) == 1
    with Store.open(str(rerun_db)) as fresh:
        rerun = fresh.get_run(printed["run_id"])
        unset = {"model_axis", "model_cutoffs", "released_after", "released_before", "matched_budget"}  # not stored empty
        assert rerun.config["batch"] == spec.model_dump(exclude=unset) and rerun.status == "queued"


def test_bundles_are_identical_across_sqlite_and_postgresql(db_url: str, tmp_path: Path) -> None:
    """Seeded on SQLite, imported into each backend (a fresh PostgreSQL database too), exported again: same bytes."""
    from tests.publication.test_publication_bundle import seed_store

    with Store.open(str(tmp_path / "seed.db")) as source:
        ids = list(seed_store(source).values())
        first = bundle_files(source, ids)
    with Store.open(db_url) as target:
        result = import_path(target, _write(first, tmp_path / "bundle"))
        assert bundle_files(target, [r.id for r in result.runs]) == first
        assert not any(r.imported for r in import_path(target, tmp_path / "bundle").runs)
