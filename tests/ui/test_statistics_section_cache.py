"""Statistics' verdict-set sensitivity and contamination-window sections are built once per database, data version
and inputs: a rerun that changes none of them does not call their builders again (counted through
`ui.section_cache.BUILDS`), and a new trial in a compared run builds them afresh (real store, the imported
LiveCodeBench fixture)."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from execugraph.publication import import_path
from execugraph.store import Store
from tests.support import livecodebench_files as lf
from tests.ui.conftest import no_exception
from ui import section_cache
from ui.window_parts import RELEASED_AFTER


def _window_rows(at) -> list[dict]:  # noqa: ANN001
    (table,) = [t for t in at.table if "n (window)" in str(t.value.columns.tolist())]
    return table.value.to_dict("records")


def test_a_rerun_reuses_both_sections_and_new_data_rebuilds_them(app, tmp_path: Path) -> None:
    with Store.open(str(tmp_path / "runs.db")) as store:
        ids = [run.id for run in import_path(store, lf.FIXTURES / "output").runs]
    at = app("statistics", runs=",".join(map(str, ids)))
    no_exception(at)
    assert any("Verdict-set sensitivity" in h.value for h in at.subheader)
    at.date_input(key=RELEASED_AFTER).set_value(date(2024, 8, 1)).run()
    no_exception(at)
    shown = _window_rows(at)
    built = dict(section_cache.BUILDS)
    assert built.get("sensitivity", 0) >= 1 and built.get("window", 0) >= 1, built

    at.run()  # nothing changed: both sections come from the cache
    no_exception(at)
    assert dict(section_cache.BUILDS) == built
    assert _window_rows(at) == shown

    with Store.open(str(tmp_path / "runs.db")) as store:  # a new finished trial in a compared run
        trial = store.create_trial(ids[0], "late_problem", store.trials_for_run(ids[0])[0].condition, 0, 0)
        store.finish_trial(trial, status="done", passed=True, tests_passed=1, tests_total=1)
    at.run()
    no_exception(at)
    assert section_cache.BUILDS["sensitivity"] == built["sensitivity"] + 1
    assert section_cache.BUILDS["window"] == built["window"] + 1
