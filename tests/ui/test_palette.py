"""One colour per condition and per failure class on every chart and in its download (issue 41), and a fixed
axis for deltas that are all 0 pp."""

from __future__ import annotations

import pytest

from execugraph.figures import charts, palette
from execugraph.figures.static import to_image
from tests.support.dashboard import CHROMIUM


def _rate(arm: str, rate: float = 0.5, category: str = "dp") -> dict[str, object]:
    return {"arm": arm, "category": category, "pass_rate": rate, "ci_lo": rate / 2, "ci_hi": (1 + rate) / 2,
            "mean_llm_calls": 2.0, "mean_tokens": 100.0, "mean_wallclock_s": 1.0}


def test_a_condition_has_one_colour_whichever_charts_and_arms_it_is_drawn_with():
    colour = palette.condition_colour("multi-full")
    assert palette.condition_colour("e1 #3 · multi-full") == colour  # an arm named after its run
    assert colour != palette.condition_colour("single-oneshot")
    one = charts.rate_bars([_rate("single-oneshot"), _rate("multi-full")])
    other = charts.rate_bars([_rate("multi-full"), _rate("multi-rag"), _rate("single-oneshot")])
    assert dict(zip(one.data[0].x, one.data[0].marker.color, strict=True)) == {
        "single-oneshot": palette.condition_colour("single-oneshot"), "multi-full": colour}
    assert dict(zip(other.data[0].x, other.data[0].marker.color, strict=True))["multi-full"] == colour
    groups = charts.category_bars([_rate("multi-rag"), _rate("multi-full", category="graph")])
    assert {t.name: t.marker.color for t in groups.data}["multi-full"] == colour
    points = charts.cost_accuracy([_rate("multi-full"), _rate("single-retry")])
    assert list(points.data[0].marker.color)[0] == colour
    unknown = palette.condition_colour("my-own-condition")
    assert unknown == palette.condition_colour("my-own-condition") and unknown.startswith("#")


def test_a_failure_class_has_one_colour_whichever_classes_share_the_chart():
    rows = [{"arm": "a", "error_class": c, "count": 1, "share": 0.5} for c in ("wrong_answer", "timeout")]
    first = {t.name: t.marker.color for t in charts.error_stacks(rows).data}
    second = {t.name: t.marker.color for t in charts.error_stacks(rows[1:]).data}
    assert first["timeout"] == second["timeout"] == palette.failure_colour("timeout")
    assert first["wrong_answer"] != first["timeout"]


def test_deltas_all_at_zero_get_a_fixed_axis_not_minus_one_to_one():
    rows = [{"label": "b - a", "delta_pp": 0.0, "ci_lo": 0.0, "ci_hi": 0.0, "p_holm": 1.0}]
    assert tuple(charts.forest(rows).layout.xaxis.range) == (-10.0, 10.0)
    wide = [{"label": "b - a", "delta_pp": 30.0, "ci_lo": 10.0, "ci_hi": 50.0, "p_holm": 0.01}]
    assert charts.forest(wide).layout.xaxis.range is None  # real deltas keep the automatic range
    matrix = charts.delta_matrix([{"a": "x", "b": "y", "delta_pp": 0.0, "p_holm": 1.0}], ["x", "y"], title="t")
    assert (matrix.data[0].zmin, matrix.data[0].zmax) == (-10.0, 10.0)


@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian chromium: apt-get install -y chromium")
def test_the_svg_download_carries_the_same_condition_colours():
    fig = charts.rate_bars([_rate("multi-rag"), _rate("multi-full")])
    svg = to_image(fig, "svg").decode()
    for condition in ("multi-rag", "multi-full"):
        hex_colour = palette.condition_colour(condition).lstrip("#")
        rgb = ", ".join(str(int(hex_colour[i:i + 2], 16)) for i in (0, 2, 4))
        assert f"rgb({rgb})" in svg, condition
