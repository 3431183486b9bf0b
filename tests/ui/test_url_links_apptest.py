"""Issue 30 point 2 (AppTest): a link's unknown runs stay in the URL (named until the user removes them), a page
reached without a link writes nothing on arrival and names its runs with the first change, and the Statistics
page's replay arms and verdict set live in the URL like its other selections."""

from __future__ import annotations

import random

from tests.ui.conftest import no_exception
from tests.ui.test_one_comparison_engine import build_family
from ui.keys import Statistics
from ui.protocol_parts import EVERY_SET, VERDICTS
from ui.sequential_parts import BASE, OTHER


def _warned(at) -> str:
    return " ".join(str(w.value) for w in at.warning)


def test_an_unknown_run_stays_in_the_link_until_removed(app, seeded_db):
    at = app("statistics", runs=f"{seeded_db.batch},999")
    no_exception(at)
    assert at.multiselect(key=Statistics.RUNS).value == [seeded_db.batch]
    assert at.query_params["runs"] == f"{seeded_db.batch},999"  # reported, never dropped
    assert "#999" in _warned(at) and "kept in the link" in _warned(at)
    at.multiselect(key=Statistics.RUNS).set_value([seeded_db.batch, seeded_db.single]).run()
    assert at.query_params["runs"] == f"{seeded_db.batch},{seeded_db.single},999"
    assert "#999" in _warned(at)  # still named on a later run, not only on arrival
    at.button(key=f"{Statistics.RUNS}.forget").click().run()
    no_exception(at)
    assert at.query_params["runs"] == f"{seeded_db.batch},{seeded_db.single}"
    assert "#999" not in _warned(at)


def test_a_link_naming_only_unknown_runs_keeps_them(app, seeded_db):
    at = app("statistics", runs="999,abc")
    no_exception(at)
    assert at.multiselect(key=Statistics.RUNS).value == []
    assert at.query_params["runs"] == "999,abc"
    assert "#999" in _warned(at) and "abc" in _warned(at)


def test_arriving_without_a_link_writes_nothing_and_the_first_change_names_the_runs(app, seeded_db):
    at = app("statistics")
    no_exception(at)
    shown = at.multiselect(key=Statistics.RUNS).value
    assert shown and "runs" not in at.query_params  # arrival: no query-string write, no history entry
    at.selectbox(key=Statistics.COMPARE).set_value("single-oneshot").run()
    no_exception(at)
    assert at.query_params["baseline"] == "single-oneshot"
    assert at.query_params["runs"] == ",".join(map(str, shown))  # the deferred runs written with the change


def test_replay_arms_from_a_link_and_back_to_the_url(app, seeded_db):
    at = app("statistics", runs=str(seeded_db.batch), replay="multi-full", replay_vs="single-oneshot")
    no_exception(at)
    assert at.selectbox(key=BASE).value == "multi-full" and at.selectbox(key=OTHER).value == "single-oneshot"
    at.selectbox(key=OTHER).set_value("multi-rag").run()
    assert at.query_params["replay"] == "multi-full" and at.query_params["replay_vs"] == "multi-rag"
    bare = app("statistics", runs=str(seeded_db.batch))
    assert "replay" not in bare.query_params and "replay_vs" not in bare.query_params  # defaults not written
    ghost = app("statistics", runs=str(seeded_db.batch), replay="ghost", replay_vs="nobody")
    no_exception(ghost)
    assert "ghost" in _warned(ghost) and "nobody" in _warned(ghost)
    assert ghost.selectbox(key=BASE).value == ghost.selectbox(key=BASE).options[0]


def test_the_verdict_set_from_a_link_picks_the_columns_beside_as_run(app, db_store):
    ids = build_family(db_store, random.Random(3))
    runs = ",".join(map(str, ids))
    at = app("statistics", runs=runs)
    no_exception(at)
    picker = at.selectbox(key=VERDICTS)
    assert picker.value == EVERY_SET and picker.options[1:] and "verdicts" not in at.query_params
    every = next(d.value for d in at.dataframe if "same conclusion" in d.value.columns)
    assert any("standalone" in c for c in every.columns) and any("with-prompt" in c for c in every.columns)

    linked = app("statistics", runs=runs, verdicts="with-prompt")
    no_exception(linked)
    assert linked.selectbox(key=VERDICTS).value == "with-prompt"
    table = next(d.value for d in linked.dataframe if "holds under with-prompt" in d.value.columns)
    assert not any("standalone" in c for c in table.columns) and "p Holm as run" in table.columns
    assert any("keep the as run conclusion" in str(m.value) for m in linked.markdown)
    linked.selectbox(key=VERDICTS).set_value(EVERY_SET).run()
    assert linked.query_params["verdicts"] == EVERY_SET  # the link named another set: it now names this one

    ghost = app("statistics", runs=runs, verdicts="ghost")
    no_exception(ghost)
    assert "ghost" in _warned(ghost) and ghost.selectbox(key=VERDICTS).value == EVERY_SET


def test_a_verdict_set_the_runs_do_not_have_is_named_and_kept(app, seeded_db):
    at = app("statistics", runs=str(seeded_db.batch), verdicts="with-prompt")
    no_exception(at)
    assert "with-prompt" in _warned(at) and at.query_params["verdicts"] == "with-prompt"
