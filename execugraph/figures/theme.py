"""The one look every chart has, on the page and in the SVG/PDF: colours, fonts, margins, legend, paper size.

The dashboard draws figures with `theme=None`, so Streamlit does not restyle them, and the static export
renders the same figure JSON: what is set here is what both show. The colours are Streamlit's own chart
palette (blue, light blue, red, ...), so the charts still look at home on the page.
"""

from __future__ import annotations

import copy

import plotly.graph_objects as go
import plotly.io as pio

COLORWAY = (
    "#0068c9", "#83c9ff", "#ff2b2b", "#ffabab", "#29b09d",
    "#7defa1", "#ff8700", "#ffd16a", "#6d3fc0", "#d5dae5",
)
TEXT_COLOUR = "#31333f"
NOTE_COLOUR = "#616161"
# DejaVu Sans is what Debian's chromium has; Verdana (its look-alike) and Arial where a browser lacks it.
FONT_FAMILY = "DejaVu Sans, Verdana, Arial, sans-serif"
FONT = {"family": FONT_FAMILY, "size": 12, "color": TEXT_COLOUR}
MARGIN = {"l": 70, "r": 30, "t": 60, "b": 60, "pad": 2}
NOTE_MARGIN_B = 110  # room under the x-axis title for a note on what the chart left out
LEGEND = {"orientation": "v", "x": 1.02, "y": 1, "xanchor": "left", "yanchor": "top",
          "bgcolor": "rgba(255,255,255,0)", "font": {"size": 11}}
# Above the plot, under the title, for a chart whose right margin holds a second axis (give it margin t=110).
TOP_LEGEND = {"orientation": "h", "x": 0, "y": 1.02, "xanchor": "left", "yanchor": "bottom", "font": {"size": 11}}

# A title line's most characters: two charts side by side on an 800 px screen get about 280 px each, which holds
# about 34 characters of the 15 px title font; longer titles break at spaces (the same lines on page and in file).
TITLE_LINE_CHARS = 34
TITLE_LINE_PX = 19  # what each further title line adds to the top margin

# A paper's text width (7 in at 96 px/in): one column of a one-column article, `figure*` in two columns.
PAPER_WIDTH_PX = 672
PAPER_HEIGHT_PX = 420


def _template() -> go.layout.Template:
    base = copy.deepcopy(pio.templates["plotly_white"])
    axis = {"automargin": True, "title": {"standoff": 8}, "linecolor": "#bdbdbd", "ticks": "outside",
            "tickcolor": "#bdbdbd"}
    base.layout.update(
        colorway=list(COLORWAY),
        font=FONT,
        title={"font": {"size": 15, "color": TEXT_COLOUR}, "x": 0, "xanchor": "left", "xref": "container",
               "y": 1, "yanchor": "top", "yref": "container", "pad": {"t": 14, "l": 10}},
        margin=MARGIN,
        legend=LEGEND,
        paper_bgcolor="white",
        plot_bgcolor="white",
        xaxis=axis,
        yaxis=axis,
        hoverlabel={"font": {"family": FONT_FAMILY}},
    )
    return base


TEMPLATE = _template()


def wrapped_title(text: str, width: int = TITLE_LINE_CHARS) -> tuple[str, int]:
    """`text` broken at spaces into lines of at most `width` characters (a longer word keeps its own line), joined
    with plotly's `<br>`; and the number of lines. Escaped text is safe to break: entities hold no space."""
    lines: list[str] = []
    for word in text.split(" "):
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return "<br>".join(lines), len(lines)


def fit_title(fig: go.Figure) -> None:
    """Break a long title into lines and give each further line room in the top margin."""
    text = fig.layout.title.text
    if not text or "<br>" in text:
        return
    fig.layout.title.text, lines = wrapped_title(text)
    if lines > 1:
        top = fig.layout.margin.t if fig.layout.margin.t is not None else MARGIN["t"]
        fig.layout.margin.t = top + TITLE_LINE_PX * (lines - 1)


def styled(fig: go.Figure) -> go.Figure:
    """`fig` with the template set explicitly (so the figure JSON carries it to the page and to the file)."""
    fig.update_layout(template=TEMPLATE)
    return fig


def export_size(fig: go.Figure) -> tuple[int, int]:
    """Width and height of the static file: the paper's text width, the figure's own height where it sets one."""
    return int(fig.layout.width or PAPER_WIDTH_PX), int(fig.layout.height or PAPER_HEIGHT_PX)
