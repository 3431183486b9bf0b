"""The Batch form's "released after" date starts at the latest training cutoff of the chosen models in the
model-cutoff table (migration 0009, edited on Statistics), with a caption naming where it came from; a date the user
picked stays when the models change (real store, the LiveCodeBench problem fixture)."""

from __future__ import annotations

from datetime import date

from execugraph.store.model_cutoffs import set_model_cutoff
from tests.support import livecodebench_files as lf
from tests.ui.conftest import no_exception, texts
from ui.keys import Batch
from ui.release_inputs import AFTER


def _dated_form(at) -> None:  # noqa: ANN001
    at.selectbox(key=Batch.BENCHMARK).set_value("livecodebench").run()
    at.get("file_uploader")[0].upload("problems.jsonl", (lf.FIXTURES / "problems.jsonl").read_bytes(),
                                      "application/jsonl")
    at.run()
    no_exception(at)


def test_a_stored_cutoff_becomes_the_default_and_a_picked_date_stays(app, db_store) -> None:
    at = app("batch")
    model = at.session_state[Batch.DEFAULT_MODEL]
    set_model_cutoff(db_store, model, "2024-05-31")
    set_model_cutoff(db_store, "ollama:later-model:7b", "2024-08-15")
    _dated_form(at)
    assert at.date_input(key=AFTER).value == date(2024, 5, 31)
    assert any(f"defaults to 2024-05-31: the training cutoff of {model} in the model-cutoff table" in c
               for c in texts(at, "caption")), texts(at, "caption")

    at.multiselect(key=Batch.MODEL_AXIS).set_value([model, "ollama:later-model:7b"]).run()  # the later cutoff wins
    no_exception(at)
    assert at.date_input(key=AFTER).value == date(2024, 8, 15)
    assert any("ollama:later-model:7b" in c and "the latest of 2 known" in c for c in texts(at, "caption"))

    at.date_input(key=AFTER).set_value(date(2024, 6, 1)).run()  # the user's own date is kept from now on
    at.multiselect(key=Batch.MODEL_AXIS).set_value([]).run()
    no_exception(at)
    assert at.date_input(key=AFTER).value == date(2024, 6, 1)


def test_no_known_cutoff_leaves_the_date_empty(app) -> None:
    at = app("batch")
    _dated_form(at)
    assert at.date_input(key=AFTER).value is None
    assert any("No training cutoff of" in c and "no default" in c for c in texts(at, "caption")), texts(at, "caption")
