"""Static SVG and PDF of plotly figures, rendered by kaleido in the Debian chromium the browser tests use.

kaleido 1.x drives a headless chromium through choreographer; we hand it the
executable from `Settings.chromium_path` (BROWSER_PATH, default /usr/bin/chromium)
so it never looks for, or downloads, a browser of its own, and switch MathJax off
(it would be fetched from a CDN). One chromium serves every figure of a call.

The file is the figure as the page draws it (same template, `execugraph.figures.theme`), at a paper's
width; PDFs get the chart's title as their document title. `figure_files` renders a figure's SVG and PDF
together, once per figure JSON, so the dashboard's second download is served from memory, on one chromium
kept open between downloads (`warm`), so another chart's first download does not start a browser again.
"""

from __future__ import annotations

import asyncio
import hashlib
import html
import json
import logging
import os
import re
import signal
import threading
from collections import OrderedDict
from collections.abc import Callable, Coroutine, Mapping
from functools import partial
from pathlib import Path
from typing import Any, TypedDict

import plotly.graph_objects as go

from execugraph.figures.pdf_info import set_title
from execugraph.figures.theme import export_size
from execugraph.figures.warm import WarmRenderer

log = logging.getLogger("execugraph.figures")

FORMATS = ("svg", "pdf")
RENDER_TIMEOUT_S = 120
# chromium's start and kaleido's first page: kaleido waits for that page without a limit of its own, and in a test run
# chromium has been seen to never deliver it (the call then hung for good); so each call has a deadline, and a call
# that passes it is cancelled (its chromium closed) and made once more, with a fresh chromium
OPEN_TIMEOUT_S = 60.0
CLOSE_GRACE_S = 30.0
ATTEMPTS = 2
CACHED_FIGURES = 64  # figure JSON -> its files, most recently used kept


class FigureExportError(RuntimeError):
    """A figure could not be rendered; the message says what is missing."""


def _browser() -> str:
    from execugraph.configuration.settings import load_settings

    path = load_settings().chromium_path
    if not Path(path).is_file():
        raise FigureExportError(
            f"static figures need chromium at {path}: install it (apt-get install chromium) "
            "or point BROWSER_PATH at a chromium executable"
        )
    return path


class ImageOptions(TypedDict):
    """What kaleido renders a figure as."""

    format: str  # "svg", "pdf" or "png"
    width: int  # pixels
    height: int  # pixels


def _options(fig: go.Figure, fmt: str) -> ImageOptions:
    if fmt not in FORMATS:
        raise ValueError(f"unknown figure format {fmt!r}; use one of {', '.join(FORMATS)}")
    width, height = export_size(fig)
    return {"format": fmt, "width": width, "height": height}


def document_title(fig: go.Figure) -> str:
    """The chart's title as plain text (its HTML escapes and line breaks undone), for a PDF's metadata."""
    text = re.sub(r"<br\s*/?>", " ", str(fig.layout.title.text or ""), flags=re.I)
    text = html.unescape(re.sub(r"<[^>]+>", "", text))  # tags are markup; escaped text is the title's own
    return re.sub(r"\s+", " ", text).strip() or "ExecuGraph figure"


def _finish(fig: go.Figure, fmt: str, data: bytes) -> bytes:
    return set_title(data, document_title(fig)) if fmt == "pdf" else data


async def _calc_all(renderer: Any, jobs: list[tuple[go.Figure, str]]) -> list[bytes]:
    return [_finish(fig, fmt, bytes(await renderer.calc_fig(fig, opts=_options(fig, fmt)))) for fig, fmt in jobs]


async def _render_all(jobs: list[tuple[go.Figure, str]], browser: str, started: list[Any], opened: asyncio.Event,
                      ) -> list[bytes]:
    """The jobs in a chromium of their own. `started` gets the renderer before chromium starts (to end it if it
    stalls); `opened` is set once chromium is up with kaleido's page loaded."""
    import kaleido

    renderer = kaleido.Kaleido(path=browser, mathjax=False, timeout=RENDER_TIMEOUT_S)
    started.append(renderer)
    async with renderer:
        opened.set()
        return await _calc_all(renderer, jobs)


def _kill(renderers: list[Any]) -> None:
    """SIGKILL each renderer's chromium: choreographer starts it in a session of its own, so its group is all of it."""
    for renderer in renderers:
        process = getattr(renderer, "subprocess", None)
        if process is not None and process.poll() is None:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except OSError:  # already gone
                pass


def render_many(jobs: list[tuple[go.Figure, str]]) -> list[bytes]:
    """Render (figure, format) jobs in one chromium; runs on its own thread so any caller's event loop is left alone.

    A chromium that is not up with kaleido's page within OPEN_TIMEOUT_S, or has not finished within that plus
    RENDER_TIMEOUT_S per job, is killed and the jobs are rendered once more in a fresh one; a second stall raises
    FigureExportError, so a caller never waits for good."""
    browser = _browser()
    for fig, fmt in jobs:
        _options(fig, fmt)  # refuse an unknown format before starting a browser
    limit_s = OPEN_TIMEOUT_S + RENDER_TIMEOUT_S * len(jobs)
    for attempt in range(1, ATTEMPTS + 1):
        started: list[Any] = []
        try:
            return _bounded(partial(_render_all, jobs, browser, started), limit_s, partial(_kill, started))
        except FigureExportError:
            raise
        except TimeoutError as exc:
            if attempt == ATTEMPTS:
                raise FigureExportError(f"chromium at {browser} stalled rendering {len(jobs)} figure(s), {ATTEMPTS} "
                                        f"times: {exc}") from exc
            log.warning("chromium stalled rendering %d figure(s) (%s); starting it again", len(jobs), exc)
        except Exception as exc:  # kaleido/choreographer raise their own types for a browser that will not start
            raise FigureExportError(f"chromium at {browser} could not render the figure: {exc}") from exc
    raise AssertionError("unreachable")


def _bounded(work: Callable[[asyncio.Event], Coroutine[Any, Any, list[bytes]]], limit_s: float,
             on_timeout: Callable[[], None]) -> list[bytes]:
    """`await work(opened)` on a fresh event loop in a daemon thread, with two deadlines: `opened` set within
    OPEN_TIMEOUT_S, the whole within `limit_s`. Past one, the work is cancelled, `on_timeout` ends its chromium and
    TimeoutError says which. A cancellation that itself stalls is not waited for beyond CLOSE_GRACE_S (the thread is
    a daemon, so it cannot keep the process alive either)."""
    outcome: dict[str, Any] = {}

    async def within() -> list[bytes]:
        loop = asyncio.get_running_loop()
        opened = asyncio.Event()
        started = loop.time()
        task = asyncio.ensure_future(work(opened))
        while not task.done():
            phase, limit = ("chromium's start", OPEN_TIMEOUT_S) if not opened.is_set() else ("rendering", limit_s)
            left = started + limit - loop.time()
            if left <= 0:  # cancelled here, whatever kaleido turns the cancellation into (choreographer: "failed")
                task.cancel()
                on_timeout()
                await asyncio.gather(task, return_exceptions=True)
                raise TimeoutError(f"{phase} did not end within {limit:.0f} s")
            await asyncio.wait({task}, timeout=min(left, 0.25))
        return task.result()

    def run() -> None:
        try:
            outcome["value"] = asyncio.run(within())
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
            outcome["error"] = exc

    thread = threading.Thread(target=run, name="execugraph-figures", daemon=True)
    thread.start()
    thread.join(limit_s + CLOSE_GRACE_S)
    if thread.is_alive():
        raise TimeoutError(f"rendering did not end within {limit_s + CLOSE_GRACE_S:.0f} s")
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


_WARM = WarmRenderer()


def _render_warm(jobs: list[tuple[go.Figure, str]]) -> list[bytes]:
    """Like `render_many`, on the renderer kept open between calls (`execugraph.figures.warm`)."""
    browser = _browser()
    try:
        return _WARM.render(browser, lambda renderer: _calc_all(renderer, jobs), RENDER_TIMEOUT_S * (len(jobs) + 1))
    except Exception as exc:  # kaleido/choreographer raise their own types for a browser that will not start
        raise FigureExportError(f"chromium at {browser} could not render the figure: {exc}") from exc


_CACHE: OrderedDict[str, dict[str, bytes]] = OrderedDict()
_CACHE_LOCK = threading.Lock()


def figure_key(fig: go.Figure | str) -> str:
    """A digest of the figure's JSON (what the page draws), keys sorted: equal figures share their files."""
    spec = json.loads(fig if isinstance(fig, str) else fig.to_json())
    return hashlib.sha256(json.dumps(spec, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def figure_files(fig: go.Figure | str) -> dict[str, bytes]:
    """format -> bytes for every format, rendered together in one chromium and kept for the next call."""
    key = figure_key(fig)
    with _CACHE_LOCK:
        if key in _CACHE:
            _CACHE.move_to_end(key)
            return _CACHE[key]
    figure = go.Figure(fig) if not isinstance(fig, str) else go.Figure(json.loads(fig))
    files = dict(zip(FORMATS, _render_warm([(figure, fmt) for fmt in FORMATS]), strict=True))
    with _CACHE_LOCK:
        _CACHE[key] = files
        while len(_CACHE) > CACHED_FIGURES:
            _CACHE.popitem(last=False)
    return files


def to_image(fig: go.Figure | str, fmt: str) -> bytes:
    """One figure (or its JSON) as SVG or PDF bytes (see `figure_files`)."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown figure format {fmt!r}; use one of {', '.join(FORMATS)}")
    return figure_files(fig)[fmt]


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
