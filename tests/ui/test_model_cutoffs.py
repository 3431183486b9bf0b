"""The Statistics page's model-cutoff table: rows added, changed and removed are kept in the real store (migration
0009), a bad row is refused in one line naming the row and field with nothing stored lost, and the later cutoff of
the compared runs' models becomes the default "released after" date (imported LiveCodeBench fixture runs)."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from execugraph.publication import import_path
from execugraph.stats.intervals import rate_interval
from execugraph.store import Store
from execugraph.store.model_cutoffs import model_cutoffs, set_model_cutoff
from tests.support import livecodebench_files as lf
from tests.ui.conftest import no_exception, texts
from ui.cutoff_parts import CUTOFF, MODEL, REMOVE, REMOVE_BUTTON, SAVE
from ui.window_parts import RELEASED_AFTER


def _imported(tmp_path: Path) -> str:
    with Store.open(str(tmp_path / "runs.db")) as store:
        return ",".join(str(run.id) for run in import_path(store, lf.FIXTURES / "output").runs)


def _stored(tmp_path: Path) -> dict[str, str]:
    with Store.open(str(tmp_path / "runs.db")) as store:
        return model_cutoffs(store)


def test_cutoffs_edited_in_the_table_are_stored_and_refused_rows_lose_nothing(app, tmp_path: Path) -> None:
    at = app("statistics", runs=_imported(tmp_path))
    no_exception(at)
    assert at.text_input(key=MODEL).value == "ModelA"  # the first compared model without a cutoff
    at.date_input(key=CUTOFF).set_value(date(2024, 8, 20))
    at.button(key=SAVE).click().run()
    no_exception(at)
    assert _stored(tmp_path) == {"ModelA": "2024-08-20"}
    at.text_input(key=MODEL).set_value("ModelB")
    at.date_input(key=CUTOFF).set_value(None)
    at.button(key=SAVE).click().run()
    assert [e.value for e in at.error] == [
        "Model training cutoffs: ModelB: field 'training cutoff': None is not a date in YYYY-MM-DD form"]
    assert _stored(tmp_path) == {"ModelA": "2024-08-20"}  # nothing stored is lost
    at.date_input(key=CUTOFF).set_value(date(2024, 5, 1))
    at.button(key=SAVE).click().run()
    at.text_input(key=MODEL).set_value("ModelA")
    at.date_input(key=CUTOFF).set_value(date(2024, 8, 25))
    at.button(key=SAVE).click().run()
    assert _stored(tmp_path) == {"ModelA": "2024-08-25", "ModelB": "2024-05-01"}
    (table,) = [t for t in at.table if "training cutoff" in str(t.value.columns.tolist())]
    assert table.value["training cutoff"].tolist() == ["2024-08-25", "2024-05-01"]
    at.multiselect(key=REMOVE).set_value(["ModelB"]).run()
    at.button(key=REMOVE_BUTTON).click().run()
    no_exception(at)
    assert _stored(tmp_path) == {"ModelA": "2024-08-25"}


def test_the_later_cutoff_of_the_runs_models_is_the_default_released_after(app, tmp_path: Path) -> None:
    runs = _imported(tmp_path)
    with Store.open(str(tmp_path / "runs.db")) as store:
        set_model_cutoff(store, "ModelA", "2024-08-01")
        set_model_cutoff(store, "ModelB", "2024-03-01")
        set_model_cutoff(store, "another-model", "2025-01-01")  # not compared here: not the default
    at = app("statistics", runs=runs)
    no_exception(at)
    assert at.date_input(key=RELEASED_AFTER).value == date(2024, 8, 1)
    (row,) = [t for t in at.table if "n (window)" in str(t.value.columns.tolist())][0].value.to_dict("records")
    assert row["n (window)"] == "3"  # lcb_3400, lcb_3401 and lcb_1999_A were released after 2024-08-01
    assert "3 problem(s) released after 2024-08-01; every problem has a release date." in texts(at, "caption")


def test_the_page_shows_each_models_rate_by_difficulty_and_platform(app, tmp_path: Path) -> None:
    at = app("statistics", runs=_imported(tmp_path))
    no_exception(at)
    (platform,) = [t.value for t in at.table if "platform" in t.value.columns.tolist()]
    (difficulty,) = [t.value for t in at.table if "difficulty" in t.value.columns.tolist()]
    assert set(platform["platform"]) == {"atcoder", "codeforces", "leetcode"}
    assert set(difficulty["difficulty"]) == {"easy", "medium", "hard"}
    rows = {(r["arm"].split(" #")[0], r["platform"]): r for r in platform.to_dict("records")}
    lo, hi = rate_interval([1, 2], [2, 2])  # lcb_3400 1/2 and lcb_3401 2/2 samples: Wilson on 2 problems
    assert rows[("ModelA", "leetcode")] == {"arm": rows[("ModelA", "leetcode")]["arm"], "platform": "leetcode",
                                            "pass rate": "75.0%", "95% CI": f"{100 * lo:.1f}% .. {100 * hi:.1f}%",
                                            "n": "2", "trials": "3/4"}
    assert any("Wilson" in c for c in texts(at, "caption"))
