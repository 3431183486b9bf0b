"""Batch page: a sequential batch chosen in the form shows its expected savings, launches with its design,
and the progress panel says what stopped it."""

from __future__ import annotations

from execugraph.batch.progress import wait_for
from execugraph.batch.spec import BatchSpec
from execugraph.benchmarks import load_benchmark
from execugraph.workflow.trial import TrialDeps
from standins.scripted import fenced, scripted
from tests.support.reference_internal30 import REFERENCE
from tests.ui.conftest import no_exception, texts
from ui.keys import Batch


def test_a_sequential_batch_shows_its_savings_launches_with_its_design_and_reports_its_looks(
        app, db_store, worker_thread) -> None:
    chosen = BatchSpec(categories=["dp"], subset=2, subset_seed=0).select(load_benchmark("internal30"))
    worker_thread(lambda: TrialDeps(chat_models=scripted(generator=[fenced(REFERENCE[p.id]) for p in chosen] * 4)))
    at = app("batch")
    at.multiselect(key=Batch.CONDITIONS).set_value(["single-oneshot", "single-retry"]).run()
    assert not any("Sequential:" in t for t in texts(at, "info"))
    at.checkbox(key=Batch.SEQUENTIAL).check().run()
    no_exception(at)
    plan = " ".join(texts(at, "info"))
    assert "Sequential: 10 looks, each of 1 comparison against the first condition at level 0.05/1" in plan
    assert "Expected to save about" in plan and "if there is none" in plan
    at.number_input(key=Batch.LOOKS).set_value(4).run()
    assert "Sequential: 4 looks" in " ".join(texts(at, "info"))
    at.selectbox(key=Batch.ORDER).set_value("condition-major").run()
    assert any("paired order" in e for e in texts(at, "error")), texts(at, "error")
    assert at.button(key=Batch.LAUNCH).disabled

    at.selectbox(key=Batch.ORDER).set_value("paired").run()
    at.multiselect(key=Batch.CATEGORIES).set_value(["dp"])
    at.number_input(key=Batch.SUBSET).set_value(2)
    at.number_input(key=Batch.SEQ_MDD).set_value(30.0).run()
    assert "if the difference is 30.0 pp" in " ".join(texts(at, "info"))
    at.button(key=Batch.LAUNCH).click().run()
    no_exception(at)
    run_id = at.session_state[Batch.LAUNCHED]
    stored = db_store.get_run(run_id).config["batch"]["sequential"]
    assert stored["looks"] == 4 and stored["mdd"] == 0.3
    assert wait_for(db_store, run_id, poll_s=0.2, timeout_s=300) == "done"
    at.run()
    no_exception(at)
    captions = [c for c in texts(at, "caption") if "sequential" in c or " vs single-oneshot" in c]
    assert any(c.startswith("sequential:") for c in captions), captions
    assert any(c.startswith("single-retry vs single-oneshot:") for c in captions), captions
    state = db_store.get_run(run_id).config["sequential_state"]
    assert state["arms"]["single-retry"]["looks"], state
