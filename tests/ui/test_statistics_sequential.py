"""Statistics page: a sequential batch's own decision is shown beside the paired table, and the replay control
says what a sequential design would have saved on the runs compared."""

from __future__ import annotations

from execugraph.batch.control import enqueue_batch
from execugraph.sequential.design import SequentialDesign
from execugraph.sequential.monitor import SequentialMonitor
from tests.batch.test_runner import problems, spec
from tests.ui.conftest import no_exception, texts
from ui import sequential_parts


def sequential_run(store) -> int:
    """A finished sequential batch over 20 toy problems: single-retry passes everywhere, single-oneshot nowhere."""
    batch = spec(seeds=[0], sequential=SequentialDesign(looks=5))
    run_id = enqueue_batch(store, batch, problems(20))
    for trial in store.trials_for_run(run_id):
        store.finish_trial(trial.id, status="done", passed=trial.condition == "single-retry")
    SequentialMonitor(store, run_id, batch).update(final=True)
    store.update_run(run_id, status="done")
    return run_id


def test_the_page_shows_the_sequential_decision_and_replays_the_arms(app, db_store) -> None:
    run_id = sequential_run(db_store)
    at = app("statistics", runs=str(run_id))
    no_exception(at)
    shown = " ".join(texts(at, "info"))
    assert f"Run {run_id}" in shown and "sequential: stopped at look 3 of 5" in shown, shown
    assert "single-retry vs single-oneshot: differs, decided at look 3 of 5 (12 of 20 problems)" in shown
    assert "quote these" in shown
    at.selectbox(key=sequential_parts.BASE).set_value("single-oneshot").run()  # one run: arms named by condition
    at.selectbox(key=sequential_parts.OTHER).set_value("single-retry").run()
    at.number_input(key=sequential_parts.LOOKS).set_value(5).run()
    at.number_input(key=sequential_parts.ORDERS).set_value(20).run()
    at.button(key=sequential_parts.GO).click().run()
    no_exception(at)
    metrics = {m.label: m.value for m in at.metric}
    # all 20 problems finished (the trials were stored before the look) and differ by +1: every order stops
    # for efficacy at look 3 (Z = sqrt(12) = 3.46 >= 2.68), as the full data says
    assert metrics["Same decision as the full data"] == "100%"
    assert metrics["Type-I error (A/A)"].endswith("%")
    caption = next(c for c in texts(at, "caption") if "paired problems" in c)
    assert "20 paired problems" in caption and "look 3.0 of 5 on average (efficacy: 20)" in caption, caption
    assert metrics["Trials used"] == "60%"
