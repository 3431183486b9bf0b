"""Issue 30 point 2: the rest of Statistics' and Ablations' selections live in the URL (the flipped-problems
pair, the reference arm, the cost measure); a link restores them, an unknown value is named, and a default
is not written into a URL that lacks it (so arriving from a link adds no browser-history entry)."""

from __future__ import annotations

from tests.ui.conftest import no_exception
from ui.keys import Ablations, Statistics


def _warned(at) -> str:
    return " ".join(str(w.value) for w in at.warning)


def test_arriving_with_only_runs_writes_no_defaults(app, seeded_db):
    at = app("statistics", runs=str(seeded_db.batch))
    no_exception(at)
    assert dict(at.query_params) == {"runs": [str(seeded_db.batch)]} or set(at.query_params) == {"runs"}
    abl = app("ablations", runs=str(seeded_db.batch))
    no_exception(abl)
    assert set(abl.query_params) == {"runs"}


def test_statistics_pair_from_a_link_and_back_to_the_url(app, seeded_db):
    at = app("statistics", runs=str(seeded_db.batch))
    names = at.selectbox(key=Statistics.PAIR).options
    at.selectbox(key=Statistics.PAIR).set_value(names[-1]).run()
    assert at.query_params["pair"] == names[-1]
    again = app("statistics", runs=str(seeded_db.batch), pair=names[-1])
    no_exception(again)
    assert again.selectbox(key=Statistics.PAIR).value == names[-1]
    ghost = app("statistics", runs=str(seeded_db.batch), pair="ghost vs nobody")
    no_exception(ghost)
    assert "ghost vs nobody" in _warned(ghost)


def test_ablations_reference_and_cost_from_a_link(app, seeded_db):
    at = app("ablations", runs=str(seeded_db.batch), reference="single-oneshot", cost="tokens")
    no_exception(at)
    assert at.selectbox(key=Ablations.REFERENCE).value == "single-oneshot"
    assert at.radio(key=Ablations.COST_METRIC).value == "tokens"
    at.radio(key=Ablations.COST_METRIC).set_value("seconds").run()
    assert at.query_params["cost"] == "seconds" and at.query_params["reference"] == "single-oneshot"
    at.selectbox(key=Ablations.REFERENCE).set_value("single-retry").run()
    assert at.query_params["reference"] == "single-retry"


def test_ablations_names_unknown_reference_cost_and_runs(app, seeded_db):
    at = app("ablations", runs=str(seeded_db.batch), reference="ghost", cost="dollars")
    no_exception(at)
    warned = _warned(at)
    assert "ghost" in warned and "dollars" in warned
    alone = app("ablations", runs="999")
    no_exception(alone)
    assert "#999" in _warned(alone)
