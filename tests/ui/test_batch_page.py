"""Batch: the plan (with the minimum detectable difference) before launch, a launched batch running to completion
with live progress, and cancel / resume from the progress panel."""

from __future__ import annotations

import json

import pytest

from execugraph.batch.progress import wait_for
from execugraph.batch.spec import BatchSpec
from execugraph.benchmarks import load_benchmark
from execugraph.workflow.trial import TrialDeps
from standins.scripted import fenced, scripted
from tests.support.reference_internal30 import REFERENCE
from tests.ui.conftest import no_exception, texts
from ui.keys import Batch


def _one_dp_problem(at, conditions=("single-oneshot",)):
    at.multiselect(key=Batch.CATEGORIES).set_value(["dp"])
    at.number_input(key=Batch.SUBSET).set_value(1)
    at.multiselect(key=Batch.CONDITIONS).set_value(list(conditions))
    return at.run()


def test_the_plan_shows_the_grid_and_the_minimum_detectable_difference(app):
    at = app("batch")
    plan = " ".join(texts(at, "info"))
    assert "30 problems x 3 conditions x 1 seed x 1 trial = **90 trials**" in plan
    assert "percentage points" in plan and "Holm" in plan
    at.text_input(key=Batch.SEEDS).input("0-4").run()
    at.multiselect(key=Batch.CATEGORIES).set_value(["graph"]).run()
    assert "10 problems x 3 conditions x 5 seeds x 1 trial = **150 trials**" in " ".join(texts(at, "info"))
    at.text_input(key=Batch.SEEDS).input("3-1").run()
    assert any("bad seed range '3-1'" in e for e in texts(at, "error")), texts(at, "error")
    assert at.button(key=Batch.LAUNCH).disabled


def test_a_batch_launched_from_the_form_runs_to_completion(app, db_store, worker_thread):
    chosen = BatchSpec(categories=["dp"], subset=1, subset_seed=0).select(load_benchmark("internal30"))[0]
    worker_thread(lambda: TrialDeps(chat_models=scripted(generator=[fenced(REFERENCE[chosen.id])])))
    at = _one_dp_problem(app("batch"))
    assert "1 problem x 1 condition x 1 seed x 1 trial = **1 trial**" in " ".join(texts(at, "info"))
    at.button(key=Batch.LAUNCH).click().run()
    no_exception(at)
    run_id = at.session_state[Batch.LAUNCHED]
    # the launch is confirmed by number; the worker thread may already have finished the one trial
    launched = texts(at, "success")
    assert any(f"#{run_id} is {state}" in s for s in launched for state in ("queued", "running", "done")), launched
    assert wait_for(db_store, run_id, poll_s=0.2, timeout_s=180) == "done"
    at.run()
    no_exception(at)
    bars = [p for p in at.get("progress") if p.proto.text.startswith("1/1 trials")]
    # the page follows the batch to its end: no "queued", no "so far" once it is done
    assert bars and "passed 1/1 graded (100%) · 0 errored" in bars[0].proto.text and "so far" not in bars[0].proto.text
    notices = texts(at, "success")
    assert any(f"#{run_id} is done: passed 1/1 graded, 0 errored" in s for s in notices), notices
    assert not any("queued" in s for s in notices)
    assert any(link.proto.label == "Compare its conditions in Statistics" for link in at.get("page_link"))
    trial = db_store.trials_for_run(run_id)[0]
    assert trial.problem_id == chosen.id and trial.passed and trial.condition == "single-oneshot"
    assert db_store.get_run(run_id).config["batch"]["categories"] == ["dp"]


def test_an_unreachable_model_blocks_the_launch(app, db_store):
    at = _one_dp_problem(app("batch", state={Batch.DEFAULT_MODEL: "ollama:llama3.1:8b"}))
    at.button(key=Batch.LAUNCH).click().run()
    assert any("Ollama not reachable at http://127.0.0.1:9" in e for e in texts(at, "error")), texts(at, "error")
    assert db_store.list_runs() == []


def test_cancel_and_resume_from_the_progress_panel(app, seeded_db, db_store, worker_starts):
    at = app("batch")
    labels = [m for m in texts(at, "markdown") if m.startswith("**") and "#" in m]
    assert labels[0].startswith(f"**internal30 live batch (seeded) #{seeded_db.running}**") and "running" in labels[0]
    assert any(p.proto.text.startswith("3/8 trials") for p in at.get("progress"))
    at.button(key=f"{Batch.CANCEL}{seeded_db.running}").click().run()
    assert db_store.get_run(seeded_db.running).cancel_requested
    assert at.button(key=f"{Batch.CANCEL}{seeded_db.running}").disabled
    worker_starts.clear()
    at.button(key=f"{Batch.RESUME}{seeded_db.cancelled}").click().run()
    no_exception(at)
    run = db_store.get_run(seeded_db.cancelled)
    assert run.status == "queued" and not run.cancel_requested
    assert [t.status for t in db_store.trials_for_run(seeded_db.cancelled)] == ["queued"]
    assert len(worker_starts) == 1  # resuming makes sure a worker will pick it up


@pytest.mark.slow
def test_a_launched_batch_is_run_by_the_real_background_worker_process(app, db_store, tmp_path, monkeypatch):
    """The product path end to end: form -> queue -> detached worker process -> embedded model -> sandbox -> page."""
    import os
    import signal

    from execugraph.batch import worker_process

    monkeypatch.setenv("EXECUGRAPH_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr("ui.resources.start_worker", worker_process.ensure_worker)
    at = _one_dp_problem(app("batch"))
    at.button(key=Batch.LAUNCH).click().run()
    run_id = at.session_state[Batch.LAUNCHED]
    url = db_store.engine.url.render_as_string(hide_password=False)
    lock = worker_process.lock_path(url)
    try:
        assert wait_for(db_store, run_id, poll_s=1.0, timeout_s=600) == "done"
        trial = db_store.trials_for_run(run_id)[0]
        assert trial.status == "done" and trial.llm_calls == 1 and trial.tests_total > 0
        calls = db_store.llm_calls_for_trial(trial.id)
        assert calls[0].provider == "llamacpp" and calls[0].response
        at.run()
        assert any(p.proto.text.startswith("1/1 trials") for p in at.get("progress"))
    finally:
        pid = int(lock.read_text().strip() or 0) if lock.exists() else 0
        if pid and worker_process.worker_alive(url):
            os.kill(pid, signal.SIGTERM)


def test_an_uploaded_suite_is_validated_and_planned(app, tmp_path):
    good = {
        "id": "double",
        "statement": "Return twice x.",
        "entry_point": "double",
        "tests": [{"kind": "call", "expr": "double(2)", "expected": 4}],
    }
    at = app("batch")
    at.selectbox(key=Batch.BENCHMARK).set_value("user").run()
    assert any("Upload a user JSONL file" in i for i in texts(at, "info"))
    bad = json.dumps(good) + "\n" + json.dumps({**good, "id": "triple", "tests": [{"kind": "call", "expr": "t(1)"}]})
    at.get("file_uploader")[0].upload("suite.jsonl", bad.encode(), "application/jsonl")
    at.run()
    errors = texts(at, "error")
    assert any("line 2, field tests[0].expected: required field missing" in e for e in errors), errors
    second = json.dumps({**good, "id": "half", "statement": "Return x / 2.", "entry_point": "half"})
    at.get("file_uploader")[0].set_value(
        ("suite.jsonl", (json.dumps(good) + "\n" + second).encode(), "application/jsonl")
    )
    at.run()
    no_exception(at)
    assert any("2 problems x 3 conditions" in i for i in texts(at, "info")), texts(at, "info")


def test_the_ray_executor_and_its_endpoints_reach_the_stored_spec(app, db_store):
    at = _one_dp_problem(app("batch"))
    assert at.text_input(key=Batch.OLLAMA_HOSTS).disabled  # local executor: no scale-out fields
    at.selectbox(key=Batch.EXECUTOR).set_value("ray").run()
    at.text_input(key=Batch.OLLAMA_HOSTS).input("http://127.0.0.1:11434, http://127.0.0.1:11435").run()
    no_exception(at)
    at.button(key=Batch.LAUNCH).click().run()
    no_exception(at)
    spec = db_store.get_run(at.session_state[Batch.LAUNCHED]).config["batch"]
    assert spec["executor"] == "ray" and spec["ray_address"] is None
    assert spec["endpoints"] == ["ollama=http://127.0.0.1:11434", "ollama=http://127.0.0.1:11435"]
