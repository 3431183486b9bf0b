"""Batch page: the ETA with its range, what a cancel is still finishing, cancel now, and the trial order."""

from __future__ import annotations

from execugraph.store import utcnow
from tests.ui.conftest import no_exception
from tests.ui.test_batch_page import _one_dp_problem
from ui.keys import Batch


def progress_texts(at) -> list[str]:
    return [p.proto.text for p in at.get("progress")]


def test_a_running_batch_shows_its_eta_then_what_a_cancel_is_finishing_and_cancel_now(app, seeded_db, db_store):
    run_id = seeded_db.running
    queued = db_store.trials_for_run(run_id, status="queued")[0]
    db_store.update_trial(queued.id, status="running", started_at=utcnow())
    at = app("batch")
    no_exception(at)
    line = next(t for t in progress_texts(at) if t.startswith("3/8 trials"))
    assert "ETA about " in line and " to " in line, line
    at.button(key=f"{Batch.CANCEL}{run_id}").click().run()
    no_exception(at)
    line = next(t for t in progress_texts(at) if t.startswith("3/8 trials"))
    assert "finishing 1 trial in progress (about " in line and "ETA" not in line, line
    at.button(key=f"{Batch.CANCEL_NOW}{run_id}").click().run()
    no_exception(at)
    trial = db_store.get_trial(queued.id)
    assert trial.status == "cancelled" and trial.started_at is None  # abandoned: reruns on resume
    assert not [t for t in db_store.trials_for_run(run_id) if t.status in ("queued", "running")]


def test_the_trial_order_reaches_the_stored_spec(app, db_store):
    at = _one_dp_problem(app("batch"))
    assert at.selectbox(key=Batch.ORDER).value == "paired"
    at.selectbox(key=Batch.ORDER).set_value("condition-major").run()
    at.button(key=Batch.LAUNCH).click().run()
    no_exception(at)
    run = db_store.get_run(at.session_state[Batch.LAUNCHED])
    assert run.config["batch"]["order"] == "condition-major" and run.config["order"]["kind"] == "condition-major"
