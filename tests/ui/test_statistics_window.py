"""The Statistics page's "released after" date: each comparison of two LiveCodeBench models shown on all problems
beside the same comparison on the problems released after the date (real store, the imported fixture)."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from execugraph.publication import import_path
from execugraph.store import Store
from tests.support import livecodebench_files as lf
from tests.ui.conftest import no_exception, texts
from ui.window_parts import RELEASED_AFTER


def test_the_windowed_comparison_sits_beside_the_full_one(app, tmp_path: Path) -> None:
    with Store.open(str(tmp_path / "runs.db")) as store:
        ids = [run.id for run in import_path(store, lf.FIXTURES / "output").runs]
    at = app("statistics", runs=",".join(map(str, ids)))
    no_exception(at)
    assert "Pick a date" in " ".join(texts(at, "caption"))
    at.date_input(key=RELEASED_AFTER).set_value(date(2024, 8, 1)).run()
    no_exception(at)
    (table,) = [t for t in at.table if "n (window)" in str(t.value.columns.tolist())]
    row = table.value.iloc[0]
    assert (row["n (all)"], row["delta pp (all)"]) == ("4", "-12.5")
    assert (row["n (window)"], row["delta pp (window)"], row["holds"]) == ("3", "+0.0", "NO")
    shown = " ".join(texts(at, "markdown"))
    assert "on the 3 released after 2024-08-01" in shown and "the direction changes" in shown
    assert "3 problem(s) released after 2024-08-01; every problem has a release date." in texts(at, "caption")
