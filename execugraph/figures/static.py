"""Static SVG and PDF of plotly figures, rendered by kaleido in the Debian chromium the browser tests use.

kaleido 1.x drives a headless chromium through choreographer; we hand it the
executable from `Settings.chromium_path` (BROWSER_PATH, default /usr/bin/chromium)
so it never looks for, or downloads, a browser of its own, and switch MathJax off
(it would be fetched from a CDN). One chromium serves every figure of a call.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import plotly.graph_objects as go

FORMATS = ("svg", "pdf")
DEFAULT_WIDTH = 900
DEFAULT_HEIGHT = 500
RENDER_TIMEOUT_S = 120


class FigureExportError(RuntimeError):
    """A figure could not be rendered; the message says what is missing."""


def _browser() -> str:
    from execugraph.settings import load_settings

    path = load_settings().chromium_path
    if not Path(path).is_file():
        raise FigureExportError(
            f"static figures need chromium at {path}: install it (apt-get install chromium) "
            "or point BROWSER_PATH at a chromium executable"
        )
    return path


def _options(fig: go.Figure, fmt: str) -> dict[str, Any]:
    if fmt not in FORMATS:
        raise ValueError(f"unknown figure format {fmt!r}; use one of {', '.join(FORMATS)}")
    layout = fig.layout
    return {"format": fmt, "width": layout.width or DEFAULT_WIDTH, "height": layout.height or DEFAULT_HEIGHT}


def _for_paper(fig: go.Figure) -> go.Figure:
    """A copy on a white background (the page's theme is not the paper's)."""
    copy = go.Figure(fig)
    copy.update_layout(template="plotly_white", paper_bgcolor="white", plot_bgcolor="white")
    return copy


async def _render_all(jobs: list[tuple[go.Figure, str]], browser: str) -> list[bytes]:
    import kaleido

    async with kaleido.Kaleido(path=browser, mathjax=False, timeout=RENDER_TIMEOUT_S) as renderer:
        return [bytes(await renderer.calc_fig(_for_paper(fig), opts=_options(fig, fmt))) for fig, fmt in jobs]


def render_many(jobs: list[tuple[go.Figure, str]]) -> list[bytes]:
    """Render (figure, format) jobs in one chromium; runs on its own thread so any caller's event loop is left alone."""
    browser = _browser()
    for fig, fmt in jobs:
        _options(fig, fmt)  # refuse an unknown format before starting a browser
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        try:
            return pool.submit(asyncio.run, _render_all(jobs, browser)).result(timeout=RENDER_TIMEOUT_S * (len(jobs) + 1))
        except FigureExportError:
            raise
        except Exception as exc:  # kaleido/choreographer raise their own types for a browser that will not start
            raise FigureExportError(f"chromium at {browser} could not render the figure: {exc}") from exc


def to_image(fig: go.Figure, fmt: str) -> bytes:
    """One figure as SVG or PDF bytes."""
    return render_many([(fig, fmt)])[0]


def write_figures(figures: Mapping[str, go.Figure], out_dir: Path, formats: tuple[str, ...] = FORMATS) -> list[Path]:
    """`<name>.svg` / `<name>.pdf` for every figure, all rendered by one chromium; returns the paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    jobs = [(fig, fmt) for fig in figures.values() for fmt in formats]
    names = [f"{name}.{fmt}" for name in figures for fmt in formats]
    written = []
    for name, data in zip(names, render_many(jobs), strict=True):
        path = out_dir / name
        path.write_bytes(data)
        written.append(path)
    return written
