"""Statistics and Ablations keep their view in the URL: a link restores it, a change rewrites it, and a run
the link names that this database lacks is reported, never dropped silently."""

from __future__ import annotations

from tests.ui.conftest import no_exception
from ui.keys import ALL_PAIRS, Ablations, Statistics


def _warnings(at) -> list[str]:
    return [str(w.value) for w in at.warning]


def test_statistics_restores_runs_conditions_baseline_and_comparable_from_a_link(app, seeded_db):
    at = app("statistics", runs=str(seeded_db.batch), conditions="single-oneshot,multi-full",
             baseline="multi-full", comparable="0")
    no_exception(at)
    assert at.multiselect(key=Statistics.RUNS).value == [seeded_db.batch]
    assert at.multiselect(key=Statistics.CONDITIONS).value == ["single-oneshot", "multi-full"]
    assert at.selectbox(key=Statistics.COMPARE).value == "multi-full"
    assert at.toggle(key=Statistics.COMPARABLE_ONLY).value is False
    assert at.query_params["baseline"] == "multi-full" and at.query_params["comparable"] == "0"


def test_changing_the_baseline_updates_the_url(app, seeded_db):
    at = app("statistics", runs=str(seeded_db.batch))
    no_exception(at)
    assert at.query_params["runs"] == str(seeded_db.batch)
    assert "baseline" not in at.query_params  # four arms: all pairs by default, not written (no history entry)
    at.selectbox(key=Statistics.COMPARE).set_value("single-oneshot").run()
    assert at.query_params["baseline"] == "single-oneshot"
    assert at.selectbox(key=Statistics.COMPARE).value == "single-oneshot"  # the URL write does not undo the choice
    at.toggle(key=Statistics.COMPARABLE_ONLY).set_value(False).run()
    assert at.query_params["comparable"] == "0"
    at.selectbox(key=Statistics.COMPARE).set_value(ALL_PAIRS).run()
    assert at.query_params["baseline"] == "all"  # the URL held another value: it now names the choice


def test_an_unknown_run_in_the_link_is_named(app, seeded_db):
    at = app("statistics", runs=f"{seeded_db.batch},999")
    no_exception(at)
    assert any("#999" in w and "not found" in w for w in _warnings(at))
    assert at.multiselect(key=Statistics.RUNS).value == [seeded_db.batch]
    alone = app("statistics", runs="999")
    no_exception(alone)
    assert any("#999" in w for w in _warnings(alone))


def test_an_unknown_condition_or_baseline_in_the_link_is_named(app, seeded_db):
    at = app("statistics", runs=str(seeded_db.batch), conditions="nope", baseline="ghost")
    no_exception(at)
    warned = " ".join(_warnings(at))
    assert "nope" in warned and "ghost" in warned


def test_ablations_keeps_its_runs_in_the_url(app, seeded_db):
    at = app("ablations", runs=str(seeded_db.single))
    no_exception(at)
    assert at.multiselect(key=Ablations.RUNS).value == [seeded_db.single]
    at.multiselect(key=Ablations.RUNS).set_value([seeded_db.batch]).run()
    assert at.query_params["runs"] == str(seeded_db.batch)
    assert at.multiselect(key=Ablations.RUNS).value == [seeded_db.batch]
