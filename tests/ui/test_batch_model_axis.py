"""Batch form: two models picked in "Compare models" run every condition on each, and Statistics pairs them."""

from __future__ import annotations

from typing import Any

from execugraph.batch.progress import wait_for
from execugraph.workflow.trial import TrialDeps
from standins.ollama_server import OllamaStandIn
from tests.ui.conftest import no_exception, texts
from ui.keys import Batch

FIB = "```python\ndef fib(n):\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\n```"
ARMS = ["single-oneshot@good:latest", "single-oneshot@bad:latest"]


def by_model(model: str, messages: list[dict[str, Any]], options: dict[str, Any]) -> str:
    return FIB if model.startswith("good") else "```python\ndef fib(n):\n    return -1\n```"


def test_two_models_from_the_form_run_as_paired_arms(app, db_store, worker_thread, monkeypatch):
    with OllamaStandIn(responder=by_model, models=["good", "bad"]) as server:
        monkeypatch.setenv("OLLAMA_HOST", server.url)
        worker_thread(TrialDeps)
        at = app("batch")
        at.multiselect(key=Batch.CONDITIONS).set_value(["single-oneshot"])
        at.number_input(key=Batch.SUBSET).set_value(2).run()
        at.multiselect(key=Batch.MODEL_AXIS).set_value(["ollama:good:latest"]).run()
        assert any("at least two models" in e for e in texts(at, "error")), texts(at, "error")
        assert at.button(key=Batch.LAUNCH).disabled
        at.multiselect(key=Batch.MODEL_AXIS).set_value(["ollama:good:latest", "ollama:bad:latest"]).run()
        no_exception(at)
        assert "2 problems x 2 conditions x 1 seed x 1 trial = **4 trials**" in " ".join(texts(at, "info"))
        at.button(key=Batch.LAUNCH).click().run()
        run_id = at.session_state[Batch.LAUNCHED]
        assert run_id is not None, texts(at, "error")
        assert wait_for(db_store, run_id, poll_s=0.2, timeout_s=180) == "done"
        at.run()  # the page once the batch is done (while it ran, the card panel may redraw mid-run)
        no_exception(at)
    run = db_store.get_run(run_id)
    assert list(run.config["conditions"]) == ARMS
    assert {a: c["default_model"] for a, c in run.config["conditions"].items()} == {
        ARMS[0]: "ollama:good:latest", ARMS[1]: "ollama:bad:latest"}
    trials = db_store.trials_for_run(run_id)
    assert sorted(t.condition for t in trials) == sorted(ARMS * 2)
    assert len({t.problem_id for t in trials}) == 2

    stats = app("statistics", runs=str(run_id))
    no_exception(stats)
    paired = stats.table[0].value
    row = paired.iloc[0]
    assert {row["A"], row["B"]} == set(ARMS) and str(row["n"]) == "2", paired  # the two models, paired by problem
