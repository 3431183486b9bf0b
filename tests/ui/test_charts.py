"""Plotly figure builders: given rows, the figure carries the right traces, values and error bars."""

from __future__ import annotations

import plotly.graph_objects as go
import pytest

from execugraph.figures import charts

STEPS = [
    {
        "seq": 1,
        "node": "planner",
        "attempt": 0,
        "start_s": 0.0,
        "duration_s": 2.0,
        "llm_calls": 1,
        "tokens_in": 10,
        "tokens_out": 5,
        "cache_hits": 0,
    },
    {
        "seq": 2,
        "node": "generator",
        "attempt": 0,
        "start_s": 2.1,
        "duration_s": 3.0,
        "llm_calls": 1,
        "tokens_in": 20,
        "tokens_out": 9,
        "cache_hits": 1,
    },
    {
        "seq": 3,
        "node": "generator",
        "attempt": 1,
        "start_s": 5.2,
        "duration_s": None,
        "llm_calls": 0,
        "tokens_in": 0,
        "tokens_out": 0,
        "cache_hits": 0,
    },
]


def test_step_timeline_has_one_bar_per_step_grouped_by_agent():
    fig = charts.step_timeline(STEPS, highlight_seq=2)
    assert isinstance(fig, go.Figure) and [t.name for t in fig.data] == ["planner", "generator"]
    generator = fig.data[1]
    assert list(generator.base) == [2.1, 5.2] and list(generator.x) == [3.0, 0.001]  # an unfinished step stays visible
    assert list(generator.marker.line.width) == [3, 0]  # the highlighted step is outlined
    assert list(fig.layout.yaxis.categoryarray) == [
        "#1 planner (attempt 0)",
        "#2 generator (attempt 0)",
        "#3 generator (attempt 1)",
    ]


def test_rate_bars_carry_asymmetric_confidence_intervals_in_percent():
    fig = charts.rate_bars(
        [
            {"arm": "a", "pass_rate": 0.5, "ci_lo": 0.3, "ci_hi": 0.6},
            {"arm": "b", "pass_rate": None, "ci_lo": None, "ci_hi": None},
        ]
    )
    bar = fig.data[0]
    assert list(bar.x) == ["a"] and list(bar.y) == [50.0]
    assert list(bar.error_y.array) == pytest.approx([10.0]) and list(bar.error_y.arrayminus) == pytest.approx([20.0])


def test_category_bars_group_arms_per_category():
    rows = [
        {"arm": "x", "category": "dp", "pass_rate": 1.0, "ci_lo": 1.0, "ci_hi": 1.0},
        {"arm": "y", "category": "dp", "pass_rate": 0.25, "ci_lo": 0.0, "ci_hi": 0.5},
        {"arm": "y", "category": "graph", "pass_rate": 0.5, "ci_lo": 0.25, "ci_hi": 0.75},
    ]
    fig = charts.category_bars(rows)
    assert fig.layout.barmode == "group" and [t.name for t in fig.data] == ["x", "y"]
    assert list(fig.data[1].x) == ["dp", "graph"] and list(fig.data[1].y) == [25.0, 50.0]


def test_forest_marks_significance_and_draws_the_no_effect_line():
    rows = [
        {"label": "b - a", "delta_pp": 10.0, "ci_lo": 2.0, "ci_hi": 18.0, "p_holm": 0.01},
        {"label": "c - a", "delta_pp": -3.0, "ci_lo": -9.0, "ci_hi": 4.0, "p_holm": 0.4},
    ]
    fig = charts.forest(rows)
    point = fig.data[0]
    assert list(point.x) == [10.0, -3.0] and list(point.error_x.array) == [8.0, 7.0]
    assert list(point.error_x.arrayminus) == [8.0, 6.0]
    assert list(point.marker.color) == ["#d81b60", "#546e7a"]
    assert any(shape.x0 == 0 and shape.x1 == 0 for shape in fig.layout.shapes)


def test_retry_curve_cost_accuracy_error_stacks_and_heatmap():
    curve = charts.retry_curve(
        [
            {"retry_budget": 0, "pass_rate": 0.2, "mean_llm_calls": 1.0},
            {"retry_budget": 3, "pass_rate": 0.5, "mean_llm_calls": 2.5},
        ]
    )
    assert list(curve.data[0].y) == [20.0, 50.0] and curve.data[1].yaxis == "y2"
    points = [{"arm": "a", "pass_rate": 0.4, "mean_llm_calls": 1.0, "mean_tokens": 300.0, "mean_wallclock_s": 2.0}]
    assert list(charts.cost_accuracy(points, "tokens").data[0].x) == [300.0]
    stacks = charts.error_stacks(
        [
            {"arm": "a", "error_class": "timeout", "count": 2, "share": 0.5},
            {"arm": "a", "error_class": "wrong_answer", "count": 2, "share": 0.5},
        ]
    )
    assert stacks.layout.barmode == "stack" and [t.name for t in stacks.data] == ["timeout", "wrong_answer"]
    heat = charts.heatmap(["r1", "r2"], ["c1"], [[0.5], [None]], title="t", colour_title="%", percent=True)
    assert [list(row) for row in heat.data[0].z] == [[50.0], [None]]
    bars = charts.score_bars([{"rank": 1, "name": "BFS", "score": 0.8}])
    assert list(bars.data[0].y) == ["1. BFS"]
