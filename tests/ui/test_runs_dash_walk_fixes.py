"""What the issue-41 walk of the screenshots found and these fixes hold: the cost-vs-accuracy labels stay off the
y-axis ticks, the Runs table groups tokens like the run detail does, and the run detail's tables keep a short
pass-rate label (at 800 px the long one pushed the value past the table's edge)."""

from __future__ import annotations

from execugraph.figures import charts
from tests.ui.conftest import no_exception
from ui.keys import Runs


def _point(arm: str, calls: float, rate: float = 0.5, category: str = "dp") -> dict[str, object]:
    return {"arm": arm, "category": category, "pass_rate": rate, "ci_lo": rate / 2, "ci_hi": (1 + rate) / 2,
            "mean_llm_calls": calls, "mean_tokens": 100.0 * calls, "mean_wallclock_s": calls}


def test_the_edge_points_of_cost_vs_accuracy_label_inwards():
    fig = charts.cost_accuracy([_point("multi-rag", 7.7), _point("single-oneshot", 1.0), _point("single-retry", 1.8),
                                _point("multi-full", 7.5)])
    sides = dict(zip(fig.data[0].text, fig.data[0].textposition, strict=True))
    assert sides == {"single-oneshot": "top right", "multi-rag": "top left", "single-retry": "top center",
                     "multi-full": "top center"}
    alone = charts.cost_accuracy([_point("multi-full", 2.0)])
    assert list(alone.data[0].textposition) == ["top center"]
    assert charts.label_sides([1.0, None, 1.0]) == ["top center"] * 3


def test_the_runs_table_groups_tokens_and_calls(app, seeded_db):
    at = app("runs")
    no_exception(at)
    table = at.dataframe[0]
    config = {c["label"]: c for c in (_column(table, name) for name in ("tokens", "llm_calls", "pass_rate"))}
    assert config["tokens"]["type_config"]["format"] == config["LLM calls"]["type_config"]["format"] == "localized"
    assert config["pass rate"]["type_config"]["type"] == "text"  # 33.3% or —, not a bar left blank
    row = list(table.value["id"]).index(seeded_db.batch)
    assert table.value["pass_rate"][row].lstrip("\u2007").count(".") == 1  # one decimal, as the run detail


def _column(table, name: str) -> dict:  # noqa: ANN001 - an AppTest Dataframe
    """The column config the page sent for one column."""
    import json

    return json.loads(table.proto.columns)[name]


def test_the_run_details_pass_rate_column_has_a_short_label(app, seeded_db):
    at = app("runs", state={Runs.DETAIL: seeded_db.batch})
    no_exception(at)
    for table in (at.dataframe[1], at.dataframe[2]):
        assert _column(table, "pass_rate")["label"] == "pass rate"
