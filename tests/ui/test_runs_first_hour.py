"""Runs page (issue 41): the compared numbers come first, run detail never opens on a rescore child, the
heatmap keeps a 0-100% colour range, and the summary metrics sit in one wrapping row of content-wide metrics."""

from __future__ import annotations

import json

from execugraph.configuration.settings import DATA_DIR
from execugraph.figures import charts
from execugraph.publication import import_path
from execugraph.verdicts import rescore_run
from tests.ui.conftest import no_exception
from ui.keys import Runs
from ui.run_parts import FIRST_COLUMNS

FIXTURE = DATA_DIR / "fixtures" / "reference_layout" / "grid-demo"


def test_the_compared_numbers_are_the_first_columns_after_the_name(app, seeded_db):
    at = app("runs", state={Runs.DETAIL: seeded_db.batch})
    no_exception(at)
    order = list(at.dataframe[0].proto.column_order)
    assert tuple(order[:5]) == FIRST_COLUMNS == ("name", "pass_rate", "llm_calls", "tokens", "wall_clock"), order
    assert "id" not in order and "created" in order
    heatmaps = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    heat = [f["data"][0] for f in heatmaps if f["data"][0]["type"] == "heatmap"]
    assert heat and (heat[0]["zmin"], heat[0]["zmax"]) == (0.0, 100.0)  # the detail's condition x category map


def test_an_all_zero_heatmap_keeps_the_0_to_100_percent_colour_range():
    heat = charts.heatmap(["a", "b"], ["x", "y"], [[0.0, 0.0], [0.0, 0.0]], title="t", colour_title="%", percent=True)
    assert (heat.data[0].zmin, heat.data[0].zmax) == (0.0, 100.0)
    plain = charts.heatmap(["a"], ["x"], [[0.3]], title="t", colour_title="score")
    assert plain.data[0].zmin is None and plain.data[0].zmax is None  # a score scale still fits its data


def test_run_detail_opens_the_newest_run_of_its_own_not_an_automatic_rescore_and_draws_its_heatmap(app, db_store):
    from sandbox import SandboxPool

    runs = {r.name.split("/")[-1]: r.id for r in import_path(db_store, FIXTURE).runs}
    with SandboxPool(workers=2) as pool:
        child = rescore_run(db_store, runs["e1_so"], pool=pool, protocol="standalone").run_id
    assert child > max(runs.values())  # the newest run with finished trials is the rescore
    at = app("runs")
    no_exception(at)
    shown = at.session_state[Runs.DETAIL]
    assert shown != child and shown in runs.values(), (shown, child, runs)
    assert db_store.get_run(shown).parent_run_id is None
    labels = [m.label for m in at.metric]
    assert labels[0] == "Graded" and any(label.startswith("Pass rate") for label in labels)
