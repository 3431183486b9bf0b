"""LiveCodeBench output files import as they are: found by name and by content, per-sample verdicts as published
(`graded_list`), the problem's date, difficulty and platform kept, `metadata`'s failure details as the grading's
words, `_eval.json` aligned by index (alone: said what it can and cannot support), bad files refused in one line
naming file, record and field with nothing stored.

The files are the ones lcb_runner writes (`tests/support/livecodebench_files.py`), on a real SQLite store.
"""

from __future__ import annotations

import base64
import json
import pickle
import shutil
import zlib
from pathlib import Path

import pytest

from execugraph.publication import BundleFormatError, import_path
from execugraph.store import Store
from tests.support import livecodebench_files as lf

OUTPUT = lf.FIXTURES / "output"


@pytest.fixture
def store(tmp_path: Path):
    with Store.open(str(tmp_path / "lcb.db")) as opened:
        yield opened


def _copy(tmp_path: Path) -> Path:
    return Path(shutil.copytree(OUTPUT, tmp_path / "output"))


def _runs(store: Store) -> int:
    return len(store.list_runs())


def test_both_models_import_with_published_verdicts_dates_and_failure_details(store: Store) -> None:
    result = import_path(store, OUTPUT)
    assert result.warnings == [] and [r.name for r in result.runs] == ["ModelA", "ModelB"]
    for imported, model in zip(result.runs, ("ModelA", "ModelB"), strict=True):
        run = store.get_run(imported.id)
        assert run.benchmark == "livecodebench" and run.models == {"generator": model}
        harness = run.config["harness"]
        assert harness["format"] == "livecodebench" and harness["verdicts"] == "published"
        assert harness["pass_at_1"] == pytest.approx(lf.PASS_AT_1[model])
        assert harness["published_pass_at_k"] == {"pass@1": pytest.approx(lf.PASS_AT_1[model])}
        assert harness["eval_file"] == "aligned by index" and (harness["n"], harness["temperature"]) == (2, "0.2")
        trials = {(t.problem_id, t.trial_index): t for t in store.trials_for_run(imported.id)}
        published = {(f"lcb_{e['question_id']}", j): g for e in lf.eval_all(model)
                      for j, g in enumerate(e["graded_list"])}
        assert {k: t.passed for k, t in trials.items()} == published
        assert {t.category for t in trials.values()} == {"codeforces", "leetcode", "atcoder"}
        assert all(t.grading_protocol == "with-prompt" for t in trials.values())
    a = {(t.problem_id, t.trial_index): t for t in store.trials_for_run(result.runs[0].id)}
    crashed = a[("lcb_3401", 1)]
    assert crashed.error_class == "runtime_error" and crashed.final_code == lf.PALINDROME_CRASH
    (execution,) = [e for e in store.executions_for_trial(crashed.id) if e.purpose == "grading"]
    assert execution.stderr.startswith("error_message: Runtime Error; error: IndexError('string index out of range')")
    (step,) = store.steps_for_trial(crashed.id)
    extra = step.output["extra"]
    assert (extra["platform"], extra["difficulty"], extra["release_date"]) == ("leetcode", "hard", "2024-09-01")
    assert extra["contest_date"] == "2024-09-01T00:00:00" and extra["contest_id"] == "weekly-contest-412"
    assert extra["harness_result"]["tests"] == [-4] and extra["harness_result"]["metadata"]["error_code"] == -4
    assert extra["model_output"].startswith("Here is a solution.\n```python\n")
    assert a[("lcb_1999_A", 1)].error_class == "wrong_answer"


def test_renamed_files_are_found_by_content_and_files_named_for_models(tmp_path: Path, store: Store) -> None:
    flat = tmp_path / "flat"
    flat.mkdir()
    shutil.copy(OUTPUT / "ModelA" / "Scenario.codegeneration_2_0.2_eval_all.json", flat / "gpt-4o results.json")
    shutil.copy(OUTPUT / "ModelB" / "codegeneration_2_0.2_eval_all.json",
                flat / "llama_codegeneration_2_0.2_eval_all.json")
    (flat / "notes.json").write_text(json.dumps([{"title": "not LiveCodeBench"}]))
    result = import_path(store, flat)
    assert sorted(r.name for r in result.runs) == ["gpt-4o results", "llama"]
    assert sorted(store.get_run(r.id).models["generator"] for r in result.runs) == ["gpt-4o results", "llama"]


def test_an_eval_file_alone_says_what_it_can_and_cannot_support(tmp_path: Path, store: Store) -> None:
    folder = tmp_path / "only-eval" / "ModelA"
    folder.mkdir(parents=True)
    shutil.copy(OUTPUT / "ModelA" / "Scenario.codegeneration_2_0.2_eval.json", folder)
    result = import_path(store, tmp_path / "only-eval")
    (warning,) = result.warnings
    assert "names its problems only by their index" in warning and "cannot be re-judged, dated" in warning
    trials = store.trials_for_run(result.runs[0].id)
    assert sorted({t.problem_id for t in trials}) == ["lcb_index_0", "lcb_index_1", "lcb_index_2", "lcb_index_3"]
    assert sum(t.passed for t in trials) == 6 and all(not t.final_code for t in trials)


def test_an_eval_file_beside_the_generations_grades_them_by_index(tmp_path: Path, store: Store) -> None:
    lf.write_outputs(tmp_path, ("ModelB",), kinds=("eval", "outputs"))
    (imported,) = import_path(store, tmp_path / "output").runs
    trials = {(t.problem_id, t.trial_index): t.passed for t in store.trials_for_run(imported.id)}
    assert trials == {(f"lcb_{e['question_id']}", j): g for e in lf.eval_all("ModelB")
                      for j, g in enumerate(e["graded_list"])}


def test_an_eval_file_that_disagrees_is_said_and_not_attached(tmp_path: Path, store: Store) -> None:
    out = _copy(tmp_path)
    path = out / "ModelB" / "codegeneration_2_0.2_eval.json"
    doc = json.loads(path.read_text())
    doc[1]["0"], doc[1]["1"] = doc[1]["1"], doc[1]["0"]  # a resumed run merged its indices
    doc[0]["pass@1"] = 0.5
    path.write_text(json.dumps(doc, indent=4))
    result = import_path(store, out)
    said = "\n".join(result.warnings)
    assert "index 0 does not agree with" in said and "pass@1 says 0.5000; the verdicts imported give 0.6250" in said


def test_the_empty_eval_file_lcb_runner_writes_on_resume_is_ignored_beside_its_eval_all(tmp_path: Path,
                                                                                       store: Store) -> None:
    out = _copy(tmp_path)
    (out / "ModelA" / "Scenario.codegeneration_2_0.2_eval.json").write_text("{}")
    result = import_path(store, out)
    assert len(result.runs) == 2 and any("holds {}" in w for w in result.warnings)


def _refused(store: Store, path: Path) -> BundleFormatError:
    before = _runs(store)
    with pytest.raises(BundleFormatError) as caught:
        import_path(store, path)
    assert _runs(store) == before  # all or nothing: the other model's good file was not stored either
    return caught.value


def test_a_truncated_output_file_is_refused_naming_the_record_it_breaks_in(tmp_path: Path, store: Store) -> None:
    out = _copy(tmp_path)
    path = out / "ModelB" / "codegeneration_2_0.2_eval_all.json"
    text = path.read_text()
    path.write_text(text[: text.index('"question_id": "3401"')])
    error = _refused(store, out)
    (issue,) = error.issues
    assert issue.file == "ModelB/codegeneration_2_0.2_eval_all.json" and issue.field == "[2]"
    assert "ends inside record 2 (after 2 complete record(s)): it is truncated" in issue.message
    assert "\n" not in str(error)
    path.write_text(text.rstrip()[:-1])  # cut at the closing ]
    assert "without the list's closing ']'" in _refused(store, out).issues[0].message


def test_a_date_in_another_format_is_refused_naming_file_record_and_field(tmp_path: Path, store: Store) -> None:
    out = _copy(tmp_path)
    path = out / "ModelA" / "Scenario.codegeneration_2_0.2_eval_all.json"
    doc = json.loads(path.read_text())
    doc[3]["contest_date"] = "30/03/2024"
    path.write_text(json.dumps(doc, indent=4))
    (issue,) = _refused(store, out).issues
    assert (issue.file, issue.field) == ("ModelA/Scenario.codegeneration_2_0.2_eval_all.json", "[3].contest_date")
    starts = [n for n, line in enumerate(path.read_text().splitlines(), start=1) if line == "    {"]
    assert issue.line == starts[3]  # the line the record starts on
    assert "record 3 (question abc999_a)" in issue.message and "ISO 8601" in issue.message


@pytest.mark.parametrize(("change", "field", "words"), [
    (lambda e: e.update(graded_list=[True]), "[1].graded_list", "expected 2 booleans"),
    (lambda e: e.update(metadata=["{not json", "{}"]), "[1].metadata[0]", "not a JSON string of an object"),
    (lambda e: e.update(platform="Leetcode"), "[1].platform", "leetcode, atcoder, codeforces"),
    (lambda e: e.pop("question_id"), "[1].question_id", "required field missing"),
])
def test_other_bad_records_are_refused_naming_the_field(tmp_path: Path, store: Store, change, field, words) -> None:
    out = _copy(tmp_path)
    path = out / "ModelA" / "Scenario.codegeneration_2_0.2_eval_all.json"
    doc = json.loads(path.read_text())
    change(doc[1])
    path.write_text(json.dumps(doc, indent=4))
    (issue,) = _refused(store, out).issues
    assert issue.field == field and words in issue.message


def test_generations_without_verdicts_need_the_problem_file(tmp_path: Path, store: Store) -> None:
    lf.write_outputs(tmp_path, ("ModelA",), kinds=("outputs",))
    (issue,) = _refused(store, tmp_path / "output").issues
    assert issue.field == "task_id" and "carries no verdict" in issue.message and "--dataset" in issue.message


def _pickled(value: object) -> str:
    """base64(zlib(pickle(value))): LiveCodeBench's encoding, of something other than a JSON string."""
    return base64.b64encode(zlib.compress(pickle.dumps(value))).decode()


def _problem_file(change) -> bytes:
    rows = lf.problem_rows()
    change(rows[1])
    return "".join(json.dumps(r) + "\n" for r in rows).encode()


def test_the_problem_file_is_a_dataset_for_reproduce() -> None:
    from execugraph.reproduce import load_dataset

    dataset = load_dataset((lf.FIXTURES / "problems.jsonl").read_bytes(), "test6.jsonl")
    assert sorted(dataset.ids) == ["lcb_1999_A", "lcb_3400", "lcb_3401", "lcb_abc999_a"]
    assert dataset.benchmark.startswith("published:test6@")
    assert {p.release_date for p in dataset.problems} == {"2024-08-12", "2024-09-01", "2024-03-30"}


@pytest.mark.parametrize(("change", "field", "words"), [
    (lambda r: r.update(private_test_cases=_pickled({"tests": []})), "private_test_cases", "holds a dict"),
    (lambda r: r.pop("private_test_cases"), "private_test_cases", "required field missing"),
    (lambda r: r.update(contest_date="Sep 1, 2024"), "contest_date", "ISO 8601"),
])
def test_a_bad_problem_file_is_refused_in_one_line(change, field, words) -> None:
    from execugraph.reproduce import ReproduceError, load_dataset

    with pytest.raises(ReproduceError) as caught:
        load_dataset(_problem_file(change), "test6.jsonl")
    (issue,) = caught.value.issues
    assert (issue.file, issue.line, issue.field) == ("test6.jsonl", 2, field)
    assert issue.message.startswith("read as livecodebench problems: ") and words in issue.message
    assert "\n" not in str(caught.value)
