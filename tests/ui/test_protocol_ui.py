"""Grading protocols on the dashboard: the form selects reach the stored configs, the rescore control grades under
the chosen protocol and lists each flip with its reason, Statistics sets the comparisons of both protocols side by
side, and Trace shows what an imported or rescored trial recorded."""

from __future__ import annotations

import json

from execugraph.configuration.settings import DATA_DIR
from execugraph.publication import import_path
from execugraph.verdicts import rescore_run
from tests.support.protocol_runs import TASKS, seed_two_arms
from tests.ui.conftest import no_exception, texts
from tests.ui.synthesize_form import fill_add_problem
from ui import protocol_parts
from ui.keys import Batch, Export, Synthesize

FIXTURES = DATA_DIR / "fixtures" / "reference_layout"


def test_the_batch_forms_protocol_reaches_the_stored_spec_and_every_condition(app, db_store):
    at = app("batch")
    at.multiselect(key=Batch.CATEGORIES).set_value(["dp"])
    at.number_input(key=Batch.SUBSET).set_value(1)
    at.multiselect(key=Batch.CONDITIONS).set_value(["single-oneshot", "multi-full"]).run()
    assert at.selectbox(key=protocol_parts.BATCH_PROTOCOL).value == "standalone"
    at.selectbox(key=protocol_parts.BATCH_PROTOCOL).set_value("with-prompt").run()
    at.button(key=Batch.LAUNCH).click().run()
    no_exception(at)
    config = db_store.get_run(at.session_state[Batch.LAUNCHED]).config
    assert config["batch"]["grading_protocol"] == "with-prompt"
    assert {c["grading_protocol"] for c in config["conditions"].values()} == {"with-prompt"}


def test_synthesize_records_the_chosen_protocol_and_says_it_coincides_without_a_prompt(app, db_store):
    at = app("synthesize")
    fill_add_problem(at, "single-oneshot")
    at.selectbox(key=protocol_parts.SYN_PROTOCOL).set_value("with-prompt")
    at.button(key=Synthesize.SUBMIT).click().run()
    no_exception(at)
    job = at.session_state[Synthesize.JOB]
    assert job is not None and job.wait(120) and job.error is None, job.error
    trial = db_store.get_trial(job.result.trial_id)
    assert trial.passed and trial.grading_protocol == "with-prompt"
    assert db_store.get_run(trial.run_id).config["conditions"]["single-oneshot"]["grading_protocol"] == "with-prompt"
    grade = next(s for s in db_store.steps_for_trial(trial.id) if s.node == "grade")
    assert grade.output["protocol_note"].startswith("same as standalone: adhoc/adhoc-")
    trace = app("trace", trial=str(trial.id))
    no_exception(trace)
    assert any(c.startswith("Graded under the with-prompt protocol (same as standalone: adhoc/adhoc-")
               for c in texts(trace, "caption")), texts(trace, "caption")


def test_the_rescore_control_grades_under_the_chosen_protocol_and_gives_each_flip_its_reason(app, db_store):
    runs = {r.name.split("/")[-1]: r.id for r in import_path(db_store, FIXTURES / "published-demo").runs}
    at = app("export")
    at.selectbox(key=Export.RESCORE_RUN).set_value(runs["e2_he_so"]).run()
    assert at.selectbox(key=protocol_parts.RESCORE_PROTOCOL).value == protocol_parts.AS_RECORDED
    at.selectbox(key=protocol_parts.RESCORE_PROTOCOL).set_value("standalone").run()
    at.button(key=Export.RESCORE).click().run()
    no_exception(at)
    assert any("2 verdict(s) flipped; each says why" in w for w in texts(at, "warning")), texts(at, "warning")
    # a few flips are a table that wraps each reason whole (a data grid cut them off)
    flips = next(t.value for t in at.table if "reason" in t.value.columns)
    assert sorted(flips["problem_id"]) == ["humaneval_0", "humaneval_12"]
    assert all("graded now under standalone" in r for r in flips["reason"])
    child = db_store.list_runs(kind="rescore")[0]
    assert child.config["rescore"]["grading_protocol"] == "standalone"

    at.selectbox(key=Export.RESCORE_RUN).set_value(runs["e1_so"]).run()
    at.selectbox(key=protocol_parts.RESCORE_PROTOCOL).set_value("with-prompt").run()
    at.button(key=Export.RESCORE).click().run()
    no_exception(at)
    assert any("with-prompt coincides with standalone for them (internal30 6)" in c for c in texts(at, "caption"))


def test_statistics_offers_the_missing_rescore_then_sets_both_protocols_side_by_side(app, db_store):
    run_id = seed_two_arms(db_store)
    at = app("statistics", runs=str(run_id))
    no_exception(at)
    assert any(f"run {run_id} needs a rescore under with-prompt" in c for c in texts(at, "caption"))
    at.button(key=protocol_parts.SENSITIVITY_RESCORE).click().run()
    no_exception(at)
    (child,) = db_store.list_runs(kind="rescore")
    assert child.parent_run_id == run_id and child.config["rescore"]["grading_protocol"] == "with-prompt"
    at.run()
    table = next(d.value for d in at.dataframe if "same conclusion" in d.value.columns)
    assert list(table["comparison"]) == ["single-retry - single-oneshot"]
    assert list(table["delta standalone (pp)"]) == [-100.0] and list(table["delta with-prompt (pp)"]) == [0.0]
    assert list(table["same conclusion"]) == ["NO"] and list(table["programs changed"]) == [len(TASKS)]
    changed = next(d.value for d in at.dataframe if "with-prompt" in d.value.columns and "problem_id" in d.value.columns)
    assert sorted(changed["problem_id"]) == sorted(f"humaneval_{n}" for n in TASKS)


def test_trace_shows_an_imported_trials_code_stderr_and_verdicts(app, db_store):
    runs = {r.name.split("/")[-1]: r.id for r in import_path(db_store, FIXTURES / "grid-demo").runs}
    climb = next(t for t in db_store.trials_for_run(runs["e1_so"]) if t.problem_id == "climb_stairs")
    at = app("trace", trial=str(climb.id))
    no_exception(at)
    info = " ".join(texts(at, "info"))
    assert "Imported from a published log" in info and "recorded verdict **sandbox_violation**" in info
    codes = [c.value for c in at.code]
    assert any(c.startswith("from functools import lru_cache") for c in codes)
    assert "ImportError: import of '_functools' is not allowed" in codes

    report = rescore_run(db_store, runs["e1_so"])
    rescored = next(t for t in db_store.trials_for_run(report.run_id) if t.problem_id == "climb_stairs")
    at = app("trace", trial=str(rescored.id))
    no_exception(at)
    assert any("Rescored: **passed**" in i for i in texts(at, "info")), texts(at, "info")
    assert json.dumps(at.dataframe[-1].value["passed"].tolist()).count("yes") == rescored.tests_total
