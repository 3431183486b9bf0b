"""One figure, two renderings: the figure JSON a page draws (with `theme=None`) and the SVG/PDF it downloads
carry the same colours, titles and axis ranges; files are sized for a paper, PDFs titled, downloads cached."""

from __future__ import annotations

import html
import json
import re
import time
from pathlib import Path

import plotly.graph_objects as go
import pytest

from execugraph.figures import charts, static, theme
from execugraph.figures.pdf_info import read_title, set_title
from execugraph.figures.warm import WarmRenderer
from tests.ui.conftest import no_exception

CHROMIUM = Path("/usr/bin/chromium")
needs_chromium = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian chromium: apt-get install chromium")

RATES = [
    {"arm": "single-oneshot", "pass_rate": 0.5, "ci_lo": 0.3, "ci_hi": 0.6},
    {"arm": "multi-full", "pass_rate": 0.8, "ci_lo": 0.7, "ci_hi": 0.9},
]
CATEGORIES = [
    {"arm": "x", "category": "dp", "pass_rate": 0.5, "ci_lo": 0.2, "ci_hi": 0.7},
    {"arm": "y", "category": "dp", "pass_rate": 0.7, "ci_lo": 0.5, "ci_hi": 0.9},
]
ONE_CLASS = [{"arm": "a", "error_class": "wrong_answer", "share": 1.0, "count": 3}]


def _rgb(hex_colour: str) -> str:
    h = hex_colour.lstrip("#")
    return "rgb({}, {}, {})".format(*(int(h[i:i + 2], 16) for i in (0, 2, 4)))


def _svg_text(svg: str, cls: str) -> str | None:
    """The text of the element of class `cls`; a title broken into lines (tspans) read with one space per break."""
    found = re.search(rf'<text class="{cls}"[^>]*>(.*?)</text>', svg, re.S)
    if not found:
        return None
    lines = re.findall(r'<tspan class="line"[^>]*>(.*?)</tspan>', found.group(1), re.S) or [found.group(1)]
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", line)) for line in lines)


def _shown(title: str) -> str:
    """A spec title as it reads: plotly's `<br>` line breaks as spaces, entities decoded."""
    return html.unescape(title.replace("<br>", " "))


def _bar_fills(svg: str) -> list[str]:
    return re.findall(r'<g class="point"><path d="[^"]*" style="[^"]*fill: (rgb\([^)]*\))', svg)


def _y_range(svg: str) -> tuple[float, float]:
    """The y-axis range the SVG draws: tick values against their pixels, extended to the plot's edges."""
    ticks = [(float(v.replace("\u2212", "-")), float(p)) for p, v in
             re.findall(r'<g class="ytick"><text[^>]*translate\(0,([\d.]+)\)[^>]*>([^<]+)</text>', svg)]
    (v0, p0), (v1, p1) = ticks[0], ticks[-1]
    scale = (p1 - p0) / (v1 - v0)
    clip = re.search(r'<clipPath class="axesclip" id="clip[^"]*y"><rect x="0" y="([\d.]+)" width="[\d.]+" '
                     r'height="([\d.]+)"', svg)
    top, height = float(clip.group(1)), float(clip.group(2))
    return v0 + (top + height - p0) / scale, v0 + (top - p0) / scale


def _svg_size(svg: str) -> tuple[float, float]:
    found = re.search(r'<svg[^>]*width="([\d.]+)"[^>]*height="([\d.]+)"', svg)
    return float(found.group(1)), float(found.group(2))


def _expected_fills(spec: dict) -> list[str]:
    """Per bar point, the colour the figure JSON asks for: the trace's own (one, or one per bar: a condition's
    colour, `execugraph.figures.palette`), else the template's colorway."""
    colorway = spec["layout"]["template"]["layout"]["colorway"]
    fills = []
    for i, trace in enumerate(t for t in spec["data"] if t["type"] == "bar"):
        colour = (trace.get("marker") or {}).get("color") or colorway[i % len(colorway)]
        points = len(trace.get("y") or trace.get("x") or [])
        fills += [_rgb(c) for c in colour] if isinstance(colour, list) else [_rgb(colour)] * points  # per bar
    return fills


def _compare(fig: go.Figure) -> str:
    """Render the JSON a page draws as SVG and check it against that JSON; returns the SVG."""
    spec_json = fig.to_json()
    spec = json.loads(spec_json)
    svg = static.to_image(spec_json, "svg").decode()
    assert _svg_text(svg, "gtitle") == _shown(spec["layout"]["title"]["text"])
    for axis, cls in (("yaxis", "ytitle"), ("xaxis", "xtitle")):
        title = ((spec["layout"].get(axis) or {}).get("title") or {}).get("text")
        if title:
            assert _svg_text(svg, cls) == _shown(title)
    assert sorted(_bar_fills(svg)) == sorted(_expected_fills(spec))
    wanted = (spec["layout"].get("yaxis") or {}).get("range")
    if wanted and "ytick" in svg:
        assert _y_range(svg) == pytest.approx(tuple(wanted), abs=0.5)
    assert theme.FONT_FAMILY.split(",")[0] in svg
    width, height = _svg_size(svg)
    assert (width, height) == (theme.PAPER_WIDTH_PX, fig.layout.height or theme.PAPER_HEIGHT_PX)
    for cls in ("xtitle", "ytitle", "gtitle"):  # every title inside the page, none cut off
        found = re.search(rf'class="{cls}"[^>]*? x="([\d.]+)" y="([\d.]+)"', svg)
        if found:
            assert 0 < float(found.group(1)) < width and 12 < float(found.group(2)) < height - 4
    return svg


def test_every_chart_carries_the_one_template():
    figures = [charts.rate_bars(RATES), charts.category_bars(CATEGORIES), charts.error_stacks(ONE_CLASS),
               charts.cost_accuracy([{**RATES[0], "mean_llm_calls": 2.0}]),
               charts.forest([{"label": "b vs a", "delta_pp": 5.0, "ci_lo": -1.0, "ci_hi": 9.0, "p_holm": 0.2}])]
    for fig in figures:
        layout = fig.layout.template.layout
        assert list(layout.colorway) == list(theme.COLORWAY)
        assert layout.font.family == theme.FONT_FAMILY and layout.paper_bgcolor == "white"
        assert layout.margin.b >= 60 and layout.xaxis.automargin  # room for the x-axis title


def test_value_labels_sit_above_the_error_bars_in_the_text_colour():
    fig = charts.rate_bars(RATES)
    assert fig.data[0].text is None  # no white label inside the bar
    labels = {a.text: a for a in fig.layout.annotations}
    assert labels["50%"].y == pytest.approx(60.0) and labels["80%"].y == pytest.approx(90.0)
    assert labels["50%"].yanchor == "bottom" and not labels["50%"].showarrow


def test_one_error_class_and_one_arm_still_have_a_legend():
    assert charts.error_stacks(ONE_CLASS).layout.showlegend is True
    assert charts.category_bars(CATEGORIES[:1]).layout.showlegend is True


def test_pdf_title_is_set_by_an_incremental_update_that_keeps_every_offset():
    original = (b"%PDF-1.4\n1 0 obj\n<</Title (Kaleido-fier)>>\nendobj\n2 0 obj\n<</Type /Catalog>>\nendobj\n"
                b"xref\n0 3\n0000000000 65535 f \n0000000009 00000 n \n0000000052 00000 n \n"
                b"trailer\n<</Size 3\n/Root 2 0 R\n/Info 1 0 R>>\nstartxref\n89\n%%EOF\n")
    assert read_title(original) == "Kaleido-fier"
    titled = set_title(original, "Pass rate (95% CI) – ü & (x)")
    assert titled.startswith(original)  # nothing rewritten
    assert read_title(titled) == "Pass rate (95% CI) – ü & (x)"
    xref_at = int(re.findall(rb"startxref\s+(\d+)", titled)[-1])
    assert titled[xref_at:].startswith(b"xref\n3 1\n")
    offset = int(titled[xref_at:].split(b"\n")[2][:10])
    assert titled[offset:].startswith(b"3 0 obj")
    assert b"/Prev 89" in titled and b"/Size 4" in titled
    assert set_title(b"%PDF-1.5 no classic trailer", "x") == b"%PDF-1.5 no classic trailer"


@needs_chromium
def test_each_chart_renders_the_same_both_ways():
    figures = {
        "rates": charts.rate_bars(RATES),
        "categories": charts.add_note(charts.category_bars(CATEGORIES), "No graded trials (left out): z"),
        "errors": charts.error_stacks(ONE_CLASS),
        "forest": charts.forest([{"label": "b vs a", "delta_pp": 5.0, "ci_lo": -1.0, "ci_hi": 9.0,
                                  "p_holm": 0.2}]),
        "cost": charts.cost_accuracy([{**RATES[0], "mean_llm_calls": 2.0}]),
    }
    svgs = {name: _compare(fig) for name, fig in figures.items()}
    assert "wrong_answer" in re.sub(r"<[^>]+>", " ", svgs["errors"].split('class="legend"', 1)[1])
    assert 'class="legend"' in svgs["categories"]
    pdf = static.to_image(figures["rates"].to_json(), "pdf")
    assert pdf.startswith(b"%PDF") and read_title(pdf) == "Pass rate (95% CI)"
    box = [float(v) for v in re.search(rb"/MediaBox\s*\[([^\]]*)\]", pdf).group(1).split()]
    assert box[2:] == pytest.approx([0.75 * theme.PAPER_WIDTH_PX, 0.75 * theme.PAPER_HEIGHT_PX], abs=1)  # the SVG's page


@needs_chromium
def test_downloads_are_rendered_once_per_figure_json(monkeypatch):
    """Counted, not timed: the real renderer runs once for the SVG and the PDF, and not again for an equal figure."""
    real, batches = static._render_warm, []
    monkeypatch.setattr(static, "_render_warm", lambda jobs: batches.append(len(jobs)) or real(jobs))
    fig = charts.rate_bars([{**RATES[0], "arm": f"cache-{time.time_ns()}"}])
    svg = static.to_image(fig.to_json(), "svg")
    assert svg.lstrip().startswith(b"<") and b"<svg" in svg
    assert static.to_image(fig.to_json(), "pdf").startswith(b"%PDF")  # made with the SVG, in the same chromium
    assert static.to_image(go.Figure(fig), "svg") == svg
    assert batches == [len(static.FORMATS)]


@needs_chromium
def test_the_page_draws_with_theme_none_and_its_json_exports_alike(app, seeded_db):
    at = app("ablations")
    no_exception(at)
    drawn = at.main.get("plotly_chart")
    assert drawn and all(c.proto.theme == "" for c in drawn)  # Streamlit does not restyle them
    for element in drawn:
        _compare(go.Figure(json.loads(element.proto.spec)))


@needs_chromium
def test_the_warm_renderer_serves_several_figures_then_closes_when_idle():
    renderer = WarmRenderer(idle_close_s=0.5)
    opts = {"format": "svg", "width": 300, "height": 200}
    try:
        first = renderer.render(str(CHROMIUM), lambda k: k.calc_fig(charts.rate_bars(RATES), opts=opts), 120)
        started = time.perf_counter()
        second = renderer.render(str(CHROMIUM), lambda k: k.calc_fig(charts.error_stacks(ONE_CLASS), opts=opts), 120)
        warm = time.perf_counter() - started
        assert b"<svg" in bytes(first) and b"wrong_answer" in bytes(second) and renderer.is_open
        assert warm < 2.0  # no second chromium start
        deadline = time.monotonic() + 10
        while renderer.is_open and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not renderer.is_open  # no browser held by a dashboard nobody exports from
    finally:
        renderer.close()


def test_a_renderer_that_fails_is_closed_and_says_so(tmp_path):
    renderer = WarmRenderer(idle_close_s=5)
    with pytest.raises(Exception):  # noqa: B017 - kaleido/choreographer raise their own types
        renderer.render(str(tmp_path / "no-chromium"), lambda k: k.calc_fig(go.Figure()), 30)
    assert not renderer.is_open
