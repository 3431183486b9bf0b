"""The Import tab takes a problem file (`import --dataset`): bigcode MBPP generations, which carry no verdicts and
whose problems do not ship, are graded on it on import, with a bar and the file's pass@k checked; without it they
are graded on the built-in MBPP+; with a malformed one nothing is imported and one line says why. The Reproduce tab's bar gives that grading its
own share. Real files (`tests/support/harness_files.py`), the real app (AppTest), the real sandbox and SQLite.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from streamlit.testing.v1 import AppTest

from execugraph.reproduce import load_dataset
from execugraph.reproduce.progress import GRADED_PHASES, Progress
from tests.support import harness_files as hf
from tests.ui.conftest import no_exception, texts
from ui import reproduce_job
from ui.keys import Export

GENERATIONS = 40  # 4 MBPP tasks x 10 samples


def _bigcode_files(folder: Path) -> list[Path]:
    generations = hf.write_bigcode_mbpp(folder)
    return [generations, generations.parent / "evaluation_results.json"]


def _import(at: AppTest, results: list[Path], dataset: Path | None = None) -> None:
    at.file_uploader(key=Export.IMPORT_UPLOAD).set_value([(p.name, p.read_bytes(), "application/json")
                                                         for p in results]).run()
    if dataset is not None:
        at.file_uploader(key=Export.IMPORT_DATASET).set_value((dataset.name, dataset.read_bytes(),
                                                        "application/jsonl")).run()
    at.button(key=Export.IMPORT).click().run()
    no_exception(at)


def _checks(at: AppTest) -> list[str]:
    """The Import tab's lines about imported harness runs (other info boxes on the page left out)."""
    return [t for t in texts(at, "info") if t.startswith("run #")]


def test_bigcode_mbpp_generations_are_graded_on_the_uploaded_problem_file(app, db_store, tmp_path: Path) -> None:
    at = app("export")
    _import(at, _bigcode_files(tmp_path / "bc"), hf.write_mbpp_problems(tmp_path / "mbpp.jsonl"))
    assert texts(at, "error") == []
    (success,) = texts(at, "success")
    assert re.fullmatch(r"Imported: run #\d+ generations_mbpp \(40 trials\)", success), success
    (run,) = db_store.list_runs()
    trials = db_store.trials_for_run(run.id)
    assert len(trials) == GENERATIONS
    passed: dict[str, int] = {}
    for trial in trials:
        passed[trial.problem_id] = passed.get(trial.problem_id, 0) + bool(trial.passed)
    assert passed == hf.mbpp_expected_passes()  # every sample graded on the uploaded problems, as expected
    assert run.config["harness"]["verdicts"] == "graded on import"
    (check,) = _checks(at)
    assert check == (f"run #{run.id}: bigcode file, verdicts graded on import; pass@k check: "
                     "evaluation_results.json agrees with the graded verdicts: "
                     f"pass@1 {hf.mbpp_pass_at_k(1):.4f} (ours {hf.mbpp_pass_at_k(1):.4f}), "
                     f"pass@10 {hf.mbpp_pass_at_k(10):.4f} (ours {hf.mbpp_pass_at_k(10):.4f})"), check
    bars = [p.proto.text for p in at.get("progress")]
    assert any(re.fullmatch(r"graded 40 samples in \d+\.\d s", b) for b in bars), bars


def test_a_published_pass_at_k_that_differs_is_shown_as_a_difference(app, db_store, tmp_path: Path) -> None:
    generations = hf.write_bigcode_mbpp(tmp_path / "bc", pass_at_1=0.9)
    at = app("export")
    _import(at, [generations, generations.parent / "evaluation_results.json"],
            hf.write_mbpp_problems(tmp_path / "mbpp.jsonl"))
    (check,) = _checks(at)
    assert "evaluation_results.json differs from the graded verdicts: pass@1 0.9000 (ours 0.3750)" in check, check
    assert any("says pass@1 0.9000; graded here it is 0.3750" in w for w in texts(at, "warning"))


def test_mbpp_generations_without_a_problem_file_are_graded_on_mbpp_plus(app, db_store, tmp_path: Path) -> None:
    at = app("export")
    _import(at, _bigcode_files(tmp_path / "bc"))
    assert texts(at, "error") == []
    (run,) = db_store.list_runs()
    assert len(db_store.trials_for_run(run.id)) == GENERATIONS - 10  # Mbpp/13 is not in MBPP+: left out, named
    assert any("MBPP+ does not cover" in w and "Mbpp/13" in w for w in texts(at, "warning")), texts(at, "warning")


def test_a_malformed_problem_file_is_refused_naming_file_line_and_field(app, db_store, tmp_path: Path) -> None:
    rows = [dict(p) for p in hf.MBPP_PROBLEMS]
    rows[1]["test_list"] = "assert sort_matrix([]) == []"  # a string, not a list of asserts
    bad = tmp_path / "mbpp.jsonl"
    bad.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    at = app("export")
    _import(at, _bigcode_files(tmp_path / "bc"), bad)
    assert texts(at, "error") == ["Nothing was imported: mbpp.jsonl:2: field 'test_list': read as mbpp problems: "
                                  "expected a list of assert statements"]
    assert db_store.list_runs() == []


def test_the_problem_file_keeps_the_upload_cap(app, db_store, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("EXECUGRAPH_UPLOAD_MAX_BYTES", "8KiB")
    samples = hf.write_human_eval(tmp_path / "he", results=False)  # small: under the cap
    rows = [{**p, "text": p["text"] + " " * 4000} for p in hf.MBPP_PROBLEMS]  # over it
    big = tmp_path / "mbpp.jsonl"
    big.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert samples.stat().st_size < 8192 < big.stat().st_size
    at = app("export")
    _import(at, [samples], big)
    (error,) = texts(at, "error")
    assert error.startswith("Nothing was imported: mbpp.jsonl is") and "an upload may be at most 8 KiB" in error
    assert db_store.list_runs() == []


def test_a_zip_beside_other_files_is_refused_as_on_the_reproduce_tab(app, db_store, tmp_path: Path) -> None:
    generations, evaluation = _bigcode_files(tmp_path / "bc")
    archive = tmp_path / "bc.zip"
    archive.write_bytes(b"PK\x05\x06" + b"\0" * 18)  # an empty zip
    at = app("export")
    _import(at, [archive, evaluation])
    assert texts(at, "error") == ["Nothing was imported: a zip is uploaded on its own, not beside other files"]
    assert db_store.list_runs() == []


def test_the_reproduce_bar_gives_grading_on_import_its_own_share(db_store, tmp_path: Path) -> None:
    generations, evaluation = _bigcode_files(tmp_path / "bc")
    problems = hf.write_mbpp_problems(tmp_path / "mbpp.jsonl")
    request = reproduce_job.ReproduceRequest(
        name="generations_mbpp", label="generations_mbpp.json, evaluation_results.json", data=b"",
        dataset=load_dataset(problems.read_bytes(), problems.name),
        files=((generations.name, generations.read_bytes()), (evaluation.name, evaluation.read_bytes())))
    heard: list[tuple[float, str]] = []
    done = reproduce_job.reproduce(db_store, request, Progress(lambda f, t: heard.append((f, t))))
    assert done.runs == 1 and done.trials == GENERATIONS
    grading = [(f, t) for f, t in heard if t.startswith("grading ")]
    assert grading and all(re.fullmatch(r"grading \d+/40 samples", t) for _, t in grading), grading
    lo, hi = GRADED_PHASES["grading"]
    assert grading[0][0] <= lo + 0.01 and grading[-1] == (hi, "grading 40/40 samples")
    rescoring = [f for f, t in heard if t.startswith("rescor")]
    assert rescoring and min(rescoring) >= hi  # the rescore starts where grading ended, never back in the import
    assert heard[-1][0] == 1.0
