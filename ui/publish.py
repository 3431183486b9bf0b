"""Downloads for a paper: every chart as SVG or PDF, and the report's tables as LaTeX, CSV or Markdown.

The files are made only when a button is pressed (Streamlit's deferred download
data), so a page that shows ten charts does not start chromium ten times per rerun.
A chart is drawn with `theme=None` and exported from the same figure JSON, so the
file looks like the page; one press renders both formats, kept per figure JSON.
"""

from __future__ import annotations

import io
import zipfile
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import streamlit as st

from execugraph.figures.static import to_image
from execugraph.safety.inert_text import md_text
from ui import resources

if TYPE_CHECKING:  # the statistics tables load SciPy: imported where a table is made, not by a page that only plots
    from execugraph.stats.tables import Table

MIME = {"svg": "image/svg+xml", "pdf": "application/pdf"}
TABLE_FORMATS = {"LaTeX": "latex", "CSV": "csv", "Markdown": "markdown"}


def static_export_ready() -> str | None:
    """None when figures can be exported, else why not (no chromium where the settings say)."""
    path = resources.settings().chromium_path
    return None if Path(path).is_file() else f"needs chromium at {path} (apt-get install chromium, or set BROWSER_PATH)"


def figure_downloads(fig: Any, *, key: str, name: str) -> None:
    """SVG and PDF buttons under a chart, made from the figure JSON the page draws."""
    problem = static_export_ready()
    spec = fig.to_json()
    row = st.container(horizontal=True, gap="small")
    for fmt in ("svg", "pdf"):
        row.download_button(
            fmt.upper(),
            data=partial(to_image, spec, fmt),
            file_name=f"{name}.{fmt}",
            mime=MIME[fmt],
            key=f"{key}.{fmt}",
            on_click="ignore",
            type="tertiary",
            icon=":material/download:",
            disabled=problem is not None,
            help=problem or f"this chart as {fmt.upper()}, as drawn here (the first file of a chart takes a few seconds)",
        )


def plot(fig: Any, *, key: str) -> None:
    """A chart drawn as built (`theme=None`: Streamlit leaves our template alone, so the files match)."""
    st.plotly_chart(fig, key=key, theme=None)


def chart(fig: Any, *, key: str, name: str) -> None:
    """A plotly chart with its SVG and PDF downloads."""
    plot(fig, key=key)
    figure_downloads(fig, key=key, name=name)


def tables_zip(tables: list[Table], fmt: str) -> bytes:
    """The tables as files (`paired.tex`, ... and `tables.tex`) in one zip, in a fixed order."""
    from execugraph.stats.table_format import table_files

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in table_files(tables, fmt).items():
            archive.writestr(zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0)), text)
    return buffer.getvalue()


STATIC_TABLE_ROWS = 40  # up to this many rows a plain table (text one can select and copy); beyond, a scrolling grid


def literal_rows(rows: list[dict[str, Any]]) -> list[dict[str, str]]:
    """Rows for `st.table`, which reads every cell and header as Markdown: each one shown as written."""
    return [{md_text(k): md_text("" if v is None else v) for k, v in row.items()} for row in rows]


def table_view(table: Table, *, key: str) -> None:
    """A publication table as the page shows it: the same text the downloads hold, and its notes."""
    rows = table.display_rows()
    if len(rows) <= STATIC_TABLE_ROWS:
        st.table(literal_rows(rows or [{c.title: "" for c in table.columns}]), hide_index=True)
    else:
        st.dataframe(rows, hide_index=True, key=key)
    for note in table.notes:
        st.caption(md_text(note))


def tables_download(report: dict, *, key: str, stem: str) -> None:
    """A format choice and one button that downloads every publication table of the report."""
    from execugraph.stats.all_tables import publication_tables

    tables = publication_tables(report)
    row = st.container(horizontal=True, vertical_alignment="bottom")  # wraps: a narrow column cut the label
    label = row.selectbox("Table format", list(TABLE_FORMATS), key=f"{key}.format", width=180)
    fmt = TABLE_FORMATS[label]
    row.download_button(
        f"Download the tables for a paper ({label}, {len(tables)} tables, zip)",
        data=partial(tables_zip, tables, fmt),
        file_name=f"{stem}-tables-{fmt}.zip",
        mime="application/zip",
        key=key,
        on_click="ignore",
        icon=":material/table_view:",
        help=md_text(", ".join(t.title for t in tables)) + ". The same numbers as `python -m execugraph report`.",
    )
