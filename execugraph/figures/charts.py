"""Plotly figures for the dashboard and the publication export: pure functions from plain rows to `go.Figure`.

No streamlit here, so every chart is unit-tested on its own (given rows, the
figure carries the right traces, values and error bars) and the same figure is
drawn on a page and written as SVG/PDF (`execugraph.figures.static`). Arms are
named (`execugraph.domain.run_names`) and always sit on categorical axes, so a run
called "8" is never placed at x = 8. Plotly reads a subset of HTML (`<a href>`,
`<br>`) and `$math$` in every label, so each chart's text (names, categories,
titles) is made literal once, by `inert_text`, as the figure is built.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import wraps
from typing import Any

import plotly.graph_objects as go

from execugraph.agents.nodes import colour_of
from execugraph.figures.chart_rows import CostPoint, ForestRow, MatrixPair, RetrievalHit, RetryPoint, StepBar
from execugraph.figures.palette import condition_colour, condition_colours, failure_colour
from execugraph.figures.theme import MARGIN, NOTE_COLOUR, NOTE_MARGIN_B, TOP_LEGEND, fit_title, styled
from execugraph.safety.inert_text import chart_text
from execugraph.stats.report_rows import ArmRateRow, CategoryRow, ErrorRow, FamilyRow

_TRACE_TEXT = ("name", "x", "y", "text", "hovertext", "customdata")


def significant_at_alpha(p_holm: float | None) -> bool:
    """`verdicts.compare.significant`, imported on first use: `compare` loads SciPy, which Trace's step timeline (the
    only chart of that page) never needs."""
    from execugraph.verdicts.compare import significant

    return significant(p_holm)


def _literal(value: Any) -> Any:
    if isinstance(value, str):
        return chart_text(value)
    if isinstance(value, list | tuple):
        return [_literal(v) for v in value]
    return value


def inert_text(build: Callable[..., go.Figure]) -> Callable[..., go.Figure]:
    """Every string a chart shows (trace names, categories, text, titles, tick labels) as literal text, and the
    one template (`theme.TEMPLATE`) set on the figure, so page and file look the same."""

    @wraps(build)
    def built(*args: Any, **kwargs: Any) -> go.Figure:
        fig = build(*args, **kwargs)
        for trace in fig.data:
            for prop in _TRACE_TEXT:
                if prop in trace and trace[prop] is not None:
                    trace[prop] = _literal(trace[prop])
        layout = fig.layout
        if layout.title.text is not None:
            layout.title.text = chart_text(layout.title.text)
            fit_title(fig)
        for name in [k for k in layout.to_plotly_json() if k.startswith(("xaxis", "yaxis"))]:
            axis = layout[name]
            if axis.title.text is not None:
                axis.title.text = chart_text(axis.title.text)
            for prop in ("categoryarray", "ticktext"):
                if axis[prop] is not None:
                    axis[prop] = _literal(axis[prop])
        return styled(fig)

    return built


ERROR_BAR = {"color": "#424242", "thickness": 1.5, "width": 5}  # dark on every bar colour
PERCENT_AXIS = {"title": "pass rate (%)", "range": [0, 112], "tickvals": [0, 20, 40, 60, 80, 100]}  # room for labels


def _pct(x: float | None) -> float | None:
    return None if x is None else 100.0 * x


NO_DATA = "no graded trials"


def has_data(row: Mapping[str, object]) -> bool:
    """Whether a row has a rate to draw: a pass rate, and graded trials where the row says how many."""
    return row.get("pass_rate") is not None and row.get("graded", 1) != 0


def add_note(fig: go.Figure, text: str | None) -> go.Figure:
    """Write `text` (literal) under the plot: what a chart left out, and why."""
    if text:
        fig.add_annotation(text=chart_text(text), xref="paper", yref="paper", x=0, y=0, xanchor="left",
                           yanchor="top", yshift=-50, showarrow=False, font={"size": 11, "color": NOTE_COLOUR},
                           align="left")
        grow = NOTE_MARGIN_B - MARGIN["b"]  # a figure with a set height keeps its plot area
        fig.update_layout(margin={"b": NOTE_MARGIN_B},
                          height=fig.layout.height + grow if fig.layout.height else None)
    return fig


def no_data_note(names: Sequence[Any], what: str = "left out") -> str | None:
    """'No graded trials (left out): a, b', or None when nothing was left out."""
    names = list(dict.fromkeys(str(n) for n in names))
    return f"{NO_DATA.capitalize()} ({what}): {', '.join(names)}" if names else None


@inert_text
def step_timeline(steps: Sequence[StepBar], highlight_seq: int | None = None) -> go.Figure:
    """A Gantt-style timeline: one bar per step from its start offset for its duration (seconds)."""
    fig = go.Figure()
    for node in dict.fromkeys(s["node"] for s in steps):
        mine = [s for s in steps if s["node"] == node]
        fig.add_trace(
            go.Bar(
                name=node,
                orientation="h",
                y=[f"#{s['seq']} {s['node']} (attempt {s['attempt']})" for s in mine],
                x=[max(s["duration_s"] or 0.0, 0.001) for s in mine],
                base=[s["start_s"] for s in mine],
                marker={
                    "color": colour_of(node),  # each node declares its colour (execugraph.agents.nodes)
                    "line": {"width": [3 if s["seq"] == highlight_seq else 0 for s in mine], "color": "#d50000"},
                },
                customdata=[[s["llm_calls"], s["tokens_in"] + s["tokens_out"], s["cache_hits"]] for s in mine],
                hovertemplate="%{y}<br>start %{base:.2f}s, %{x:.2f}s<br>LLM calls %{customdata[0]}, "
                "tokens %{customdata[1]}, cache hits %{customdata[2]}<extra></extra>",
            )
        )
    fig.update_layout(
        title="Agent steps",
        xaxis_title="seconds since the first step",
        barmode="overlay",
        yaxis={
            "autorange": "reversed",
            "type": "category",
            "categoryarray": [f"#{s['seq']} {s['node']} (attempt {s['attempt']})" for s in steps],
        },
        height=max(240, 130 + 32 * len(steps)),
    )
    return fig


@inert_text
def rate_bars(rows: Sequence[ArmRateRow], *, x: str = "arm", title: str = "Pass rate (95% CI)") -> go.Figure:
    """Bars of pass rate in percent with asymmetric CI error bars; rows have pass_rate, ci_lo, ci_hi in [0, 1].

    Rows without graded trials (no pass rate, or `graded` 0) are left out, named under the chart: never a 0% bar.
    """
    empty = [r[x] for r in rows if not has_data(r)]
    rows = [r for r in rows if has_data(r)]
    rates = [_pct(r["pass_rate"]) for r in rows]
    fig = go.Figure(
        go.Bar(
            x=[str(r[x]) for r in rows],
            y=rates,
            marker={"color": condition_colours(str(r[x]) for r in rows)} if x == "arm" else None,
            error_y={
                **ERROR_BAR,
                "type": "data",
                "symmetric": False,
                "array": [_pct(r["ci_hi"] - r["pass_rate"]) for r in rows],
                "arrayminus": [_pct(r["pass_rate"] - r["ci_lo"]) for r in rows],
            },
            hovertemplate="%{x}: %{y:.1f}%<extra></extra>",
        )
    )
    fig.update_layout(
        title=title,
        xaxis={"type": "category", "automargin": True},
        yaxis=PERCENT_AXIS,
    )
    add_note(fig, no_data_note(empty))  # the note first: annotations[0], as on every chart
    return value_labels(fig, [str(r[x]) for r in rows], rates, [_pct(r["ci_hi"]) for r in rows])



def value_labels(fig: go.Figure, xs: Sequence[str], values: Sequence[float | None],
                 tops: Sequence[float | None]) -> go.Figure:
    """Each bar's value written above the top of its error bar, in the text colour: never white on a light
    bar, never crossed by the error bar."""
    for x, value, top in zip(xs, values, tops, strict=True):
        if value is not None:
            fig.add_annotation(x=chart_text(x), y=max(value, top if top is not None else value), text=f"{value:.0f}%",
                               showarrow=False, yanchor="bottom", yshift=2, font={"size": 11})
    return fig


@inert_text
def category_bars(rows: Sequence[CategoryRow]) -> go.Figure:
    """Grouped bars: one group per category, one bar per arm, each with its CI (arms without graded trials named)."""
    empty = [r["arm"] for r in rows if not has_data(r)]
    rows = [r for r in rows if has_data(r)]
    fig = go.Figure()
    for arm in dict.fromkeys(r["arm"] for r in rows):
        mine = [r for r in rows if r["arm"] == arm]
        fig.add_trace(
            go.Bar(
                name=str(arm),
                x=[r["category"] for r in mine],
                y=[_pct(r["pass_rate"]) for r in mine],
                marker={"color": condition_colour(str(arm))},  # the arm's colour on every page and download
                error_y={
                    **ERROR_BAR,
                    "type": "data",
                    "symmetric": False,
                    "array": [_pct(r["ci_hi"] - r["pass_rate"]) for r in mine],
                    "arrayminus": [_pct(r["pass_rate"] - r["ci_lo"]) for r in mine],
                },
            )
        )
    fig.update_layout(
        title="Pass rate by category (95% CI)",
        barmode="group",
        showlegend=True,  # one arm is still named
        xaxis={"type": "category"},
        yaxis={"title": "pass rate (%)", "range": [0, 105]},
    )
    return add_note(fig, no_data_note(empty))


ZERO_DELTA_PP = 10.0  # the half-width of a delta axis whose deltas are all about 0
FOREST_ROW_PX = 28
FOREST_MAX_ROWS = 40  # beyond this many pairs the matrix (delta_matrix) reads better than a forest


@inert_text
def forest(
    rows: Sequence[FamilyRow | ForestRow],
    *,
    label: str = "label",
    title: str = "Paired deltas (95% CI)",
    note: str | None = None,
) -> go.Figure:
    """A forest plot: each delta (percentage points) as a point with its CI, a zero line for no effect.

    Rows stay about 28 px apart whatever their number, labels on a categorical axis with room made for them;
    `note` says under the plot what was left out (comparisons with an arm that has no graded trials).
    """
    labels = [str(r[label]) for r in rows]
    significant = [significant_at_alpha(r.get("p_holm")) for r in rows]
    fig = go.Figure(
        go.Scatter(
            x=[r["delta_pp"] for r in rows],
            y=labels,
            mode="markers",
            marker={"size": 10, "color": ["#d81b60" if s else "#546e7a" for s in significant], "symbol": "diamond"},
            error_x={
                "type": "data",
                "symmetric": False,
                "array": [r["ci_hi"] - r["delta_pp"] for r in rows],
                "arrayminus": [r["delta_pp"] - r["ci_lo"] for r in rows],
            },
            customdata=[[r.get("n"), r.get("p_holm")] for r in rows],
            hovertemplate="%{y}: %{x:+.1f} pp (n %{customdata[0]}, Holm p %{customdata[1]:.4f})<extra></extra>",
        )
    )
    fig.add_vline(x=0, line_dash="dash", line_color="#9e9e9e")
    reach = max([abs(v) for r in rows for v in (r["delta_pp"], r["ci_lo"], r["ci_hi"]) if v is not None] or [0.0])
    fig.update_layout(
        title=title,
        # all deltas (and CIs) at about 0 pp: a fixed +-10 pp axis, not Plotly's -1..1 for a zero-width range
        xaxis={"title": "delta (percentage points)", **({"range": [-ZERO_DELTA_PP, ZERO_DELTA_PP]}
                                                         if reach < ZERO_DELTA_PP / 2 else {})},
        height=max(220, 110 + FOREST_ROW_PX * len(rows)),
        yaxis={"autorange": "reversed", "type": "category", "automargin": True, "tickfont": {"size": 12}},
    )
    return add_note(fig, note)


@inert_text
def delta_matrix(
    pairs: Sequence[FamilyRow | MatrixPair], arms: Sequence[str], *, title: str, note: str | None = None
) -> go.Figure:
    """All pairs as an arms x arms matrix: cell (row b, column a) is b - a in pp, blank when not compared."""
    index = {name: i for i, name in enumerate(arms)}
    z: list[list[float | None]] = [[None] * len(arms) for _ in arms]
    text: list[list[str]] = [[""] * len(arms) for _ in arms]
    for p in pairs:
        a, b = index[p["a"]], index[p["b"]]
        star = "*" if significant_at_alpha(p.get("p_holm")) else ""
        z[b][a], text[b][a] = p["delta_pp"], f"{p['delta_pp']:+.0f}{star}"
        z[a][b], text[a][b] = -p["delta_pp"], f"{-p['delta_pp']:+.0f}{star}"
    limit = max([abs(v) for row in z for v in row if v is not None] or [0.0])
    limit = limit if limit > 1e-9 else ZERO_DELTA_PP  # all 0 pp: a fixed scale, not -1..1
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=list(arms),
            y=list(arms),
            text=text,
            texttemplate="%{text}",
            colorscale="RdBu",
            zmid=0,
            zmin=-limit,
            zmax=limit,
            colorbar={"title": "pp"},
            hovertemplate="%{y} minus %{x}: %{z:+.1f} pp<extra></extra>",
            hoverongaps=False,
        )
    )
    side = max(320, 120 + 30 * len(arms))
    fig.update_layout(
        title=title,
        height=side,
        xaxis={"type": "category", "automargin": True, "tickangle": -45},
        yaxis={"type": "category", "autorange": "reversed", "automargin": True},
    )
    return add_note(fig, note)


SERIES_COLOURS = ("#1e88e5", "#d81b60", "#43a047", "#fb8c00", "#8e24aa", "#00897b", "#6d4c41", "#546e7a")


@inert_text
def retry_curve(rows: Sequence[RetryPoint], *, note: str | None = None) -> go.Figure:
    """Pass rate against retry budget, one line per series (benchmark, condition, model), mean LLM calls dotted
    on a second axis.

    Only budgets of one series are joined; a budget without graded trials is a gap, not 0%, named under the
    chart with `note` (e.g. the series that are not sweeps); a series with one point is drawn without a line.
    """
    fig = go.Figure()
    empty = []
    groups: dict[str, list[RetryPoint]] = {}
    for r in rows:
        groups.setdefault(str(r.get("series") or "all arms"), []).append(r)
    for i, (series, mine) in enumerate(groups.items()):
        mine = sorted(mine, key=lambda r: r["retry_budget"])
        colour = SERIES_COLOURS[i % len(SERIES_COLOURS)]
        drawn = [r for r in mine if has_data(r)]
        empty += [f"{series} at budget {r['retry_budget']}" for r in mine if not has_data(r)]
        mode = "lines+markers" if len(drawn) >= 2 else "markers"
        budgets = [r["retry_budget"] for r in mine]
        names = [", ".join(str(n) for n in r.get("names") or r.get("arms") or []) for r in mine]
        fig.add_trace(go.Scatter(
            x=budgets, y=[_pct(r["pass_rate"]) if has_data(r) else None for r in mine], mode=mode,
            name=f"{series}: pass rate (%)" if len(groups) > 1 else "pass rate (%)", legendgroup=series,
            line={"color": colour}, marker={"color": colour}, customdata=names,
            hovertemplate="budget %{x}: %{y:.1f}% (%{customdata})<extra></extra>",
        ))
        fig.add_trace(go.Scatter(
            x=budgets, y=[r.get("mean_llm_calls") if has_data(r) else None for r in mine], mode=mode,
            name=f"{series}: mean LLM calls" if len(groups) > 1 else "mean LLM calls", legendgroup=series,
            yaxis="y2", line={"dash": "dot", "color": colour}, marker={"color": colour, "symbol": "circle-open"},
        ))
    ticks = sorted({r["retry_budget"] for r in rows})
    fig.update_layout(
        title="Retry budget: accuracy and cost",
        xaxis={"title": "retry budget", "tickmode": "array", "tickvals": ticks, "ticktext": [str(b) for b in ticks]},
        yaxis={"title": "pass rate (%)", "range": [0, 105]},
        yaxis2={"title": "LLM calls per trial", "overlaying": "y", "side": "right", "rangemode": "tozero",
                "tickformat": ".1f", "showgrid": False},
        legend=TOP_LEGEND,  # the right margin holds the second axis
        margin={**MARGIN, "t": 110},
    )
    notes = [n for n in (no_data_note(empty, "not drawn"), note) if n]
    return add_note(fig, "; ".join(notes) or None)


COST_METRICS = {"LLM calls": "mean_llm_calls", "tokens": "mean_tokens", "seconds": "mean_wallclock_s"}


def label_sides(xs: Sequence[float | None]) -> list[str]:
    """Each point's label side: the leftmost point's label runs right and the rightmost's left, so neither is drawn
    over the y-axis ticks or past the plot (a centred "single-oneshot" covered the "20" tick); the rest centred."""
    present = [x for x in xs if x is not None]
    if len(present) < 2 or min(present) == max(present):
        return ["top center"] * len(xs)
    low, high = min(present), max(present)
    return ["top right" if x == low else "top left" if x == high else "top center" for x in xs]


@inert_text
def cost_accuracy(points: Sequence[CostPoint], metric: str = "LLM calls") -> go.Figure:
    """Each arm as a point: mean cost per trial (x) against pass rate (y); arms without graded trials are named."""
    column = COST_METRICS[metric]
    empty = [p.get("name") or p["arm"] for p in points if not has_data(p)]
    points = [p for p in points if has_data(p)]
    fig = go.Figure(
        go.Scatter(
            x=[p.get(column) for p in points],
            y=[_pct(p["pass_rate"]) for p in points],
            text=[str(p.get("name") or p["arm"]) for p in points],
            mode="markers+text",
            textposition=label_sides([p.get(column) for p in points]),
            cliponaxis=False,  # a label near the edge is drawn whole
            marker={"size": 12, "color": condition_colours(str(p["arm"]) for p in points)},
            hovertemplate="%{text}: %{y:.1f}% at %{x:.2f}<extra></extra>",
        )
    )
    fig.update_layout(
        title=f"Cost vs accuracy ({metric} per trial)",
        xaxis_title=f"mean {metric} per trial",
        yaxis={"title": "pass rate (%)", "range": [0, 105]},
    )
    return add_note(fig, no_data_note(empty))


@inert_text
def error_stacks(rows: Sequence[ErrorRow]) -> go.Figure:
    """Stacked bars per arm: the share of failed trials in each error class (the error taxonomy)."""
    fig = go.Figure()
    for error_class in dict.fromkeys(r["error_class"] for r in rows):
        mine = [r for r in rows if r["error_class"] == error_class]
        fig.add_trace(
            go.Bar(
                name=str(error_class),
                marker={"color": failure_colour(str(error_class))},  # a failure class keeps its colour everywhere
                x=[str(r["arm"]) for r in mine],
                y=[_pct(r["share"]) for r in mine],
                customdata=[r["count"] for r in mine],
                hovertemplate="%{x}: %{y:.0f}% (%{customdata} trials)<extra>" + chart_text(error_class) + "</extra>",
            )
        )
    fig.update_layout(
        title="Why trials failed (share of failures)",
        barmode="stack",
        showlegend=True,  # a single error class is still named
        xaxis={"type": "category"},
        yaxis={"title": "share of failed trials (%)", "range": [0, 100]},
    )
    return fig


@inert_text
def heatmap(
    rows_labels: Sequence[str],
    column_labels: Sequence[str],
    values: Sequence[Sequence[float | None]],
    *,
    title: str,
    colour_title: str,
    percent: bool = False,
) -> go.Figure:
    """A labelled heatmap (missing cells blank); `percent` scales 0-1 values to percent."""
    z = [[None if v is None else (100.0 * v if percent else v) for v in row] for row in values]
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=list(column_labels),
            y=list(rows_labels),
            colorscale="Viridis",
            colorbar={"title": colour_title},
            # percentages keep one fixed 0-100 scale: an all-0% table drew a -0.5..0.5 colour bar
            zmin=0.0 if percent else None,
            zmax=100.0 if percent else None,
            hovertemplate="%{y} / %{x}: %{z:.2f}<extra></extra>",
            hoverongaps=False,
        )
    )
    fig.update_layout(
        title=title,
        height=max(260, 120 + 22 * len(rows_labels)),
        yaxis={"type": "category", "autorange": "reversed"},
        xaxis={"type": "category"},
    )
    return fig


@inert_text
def score_bars(hits: Sequence[RetrievalHit]) -> go.Figure:
    """Retrieved techniques as horizontal bars of cosine similarity, best first."""
    fig = go.Figure(
        go.Bar(
            x=[h["score"] for h in hits],
            y=[f"{h['rank']}. {h['name']}" for h in hits],
            orientation="h",
            text=[f"{h['score']:.2f}" for h in hits],
            hovertemplate="%{y}: %{x:.3f}<extra></extra>",
        )
    )
    fig.update_layout(
        title="Similarity to the query",
        xaxis={"title": "cosine similarity", "range": [0, 1]},
        yaxis={"autorange": "reversed", "type": "category"},
        height=max(200, 110 + 30 * len(hits)),
    )
    return fig
