"""The Batch form's "released after / before" dates: offered only when the benchmark's problems carry release dates
(an uploaded LiveCodeBench problem file), the plan counts only the problems in the window, an empty window blocks
the launch in one line, and a launched batch keeps the window in its run config (real store)."""

from __future__ import annotations

from datetime import date

from tests.support import livecodebench_files as lf
from tests.ui.conftest import no_exception, texts
from ui.keys import Batch
from ui.release_inputs import AFTER, BEFORE


def _keys(at) -> set[str]:
    return {d.key for d in at.date_input}


def test_the_window_is_offered_for_dated_problems_and_kept_with_the_launched_batch(app, db_store) -> None:
    at = app("batch")
    assert AFTER not in _keys(at)  # internal30 carries no release dates
    at.selectbox(key=Batch.BENCHMARK).set_value("livecodebench").run()
    at.get("file_uploader")[0].upload("problems.jsonl", (lf.FIXTURES / "problems.jsonl").read_bytes(),
                                      "application/jsonl")
    at.multiselect(key=Batch.CONDITIONS).set_value(["single-oneshot"])
    at.run()
    no_exception(at)
    assert {AFTER, BEFORE} <= _keys(at), (texts(at, "error"), texts(at, "info"))
    assert "4 problem(s) released 2024-03-30 .. 2024-09-01." in texts(at, "caption")
    assert any("4 problems x 1 condition" in i for i in texts(at, "info")), texts(at, "info")
    at.date_input(key=AFTER).set_value(date(2024, 9, 1)).run()
    assert any("no problem is released after 2024-09-01" in e for e in texts(at, "error")), texts(at, "error")
    assert at.button(key=Batch.LAUNCH).disabled
    at.date_input(key=AFTER).set_value(date(2024, 8, 1)).run()
    at.date_input(key=BEFORE).set_value(date(2024, 8, 31)).run()
    assert any("1 problem x 1 condition" in i for i in texts(at, "info")), texts(at, "info")
    at.button(key=Batch.LAUNCH).click().run()
    no_exception(at)
    run = db_store.get_run(at.session_state[Batch.LAUNCHED])
    assert (run.config["batch"]["released_after"], run.config["batch"]["released_before"]) == ("2024-08-01",
                                                                                             "2024-08-31")
    assert run.config["release_window"]["problems"] == 1
    assert [t.problem_id for t in db_store.trials_for_run(run.id)] == ["lcb_1999_A"]
