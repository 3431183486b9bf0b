"""Shared, cached resources for the dashboard: settings, the store, health, worker, retriever, reports.

`st.cache_resource` holds only thread-safe shared objects (the Store with its
connection pool, the Retriever with its model and index), keyed by the database
URL or library path so a process serving several databases (or a test suite)
never mixes them up. `st.cache_data` holds small derived values keyed by ids
plus a cheap fingerprint of the data, so a report is recomputed exactly when
the trials behind it change.

Test seam: `start_worker` (replace it to run batches in-process). The technique
library is the database's (`library()`), so a test's database holds its edits.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import streamlit as st

from execugraph.configuration.settings import Settings, load_settings
from execugraph.providers.health import Check, run_checks
from execugraph.store import Store, StoreUnavailableError, open_store
from ui import keys

if TYPE_CHECKING:
    from execugraph.stats.report_model import StatsReport


def settings() -> Settings:
    """Settings from the environment (cheap; read on every call so a changed EXECUGRAPH_DB is honoured)."""
    return load_settings()


@st.cache_resource(show_spinner=False)
def _store(db_url: str) -> Store:
    return open_store(db_url, "write")


@st.cache_resource(show_spinner=False)
def _viewer_store(db_url: str) -> Store:
    from ui.access import VIEWER_NOTE

    return open_store(db_url, "read", note=VIEWER_NOTE)


def store() -> Store:
    """One thread-safe Store (engine + pool) per database URL and server process; a read-only one for viewers.

    A database that cannot be used stops the page with the same one sentence the CLI prints.
    """
    from ui.access import current_role

    current = settings()
    try:
        if current_role(current) == "viewer":
            return _viewer_store(current.db_url)
        return _store(current.db_url)
    except StoreUnavailableError as exc:
        st.error(f"The run database cannot be used: {exc}.", icon=":material/database:")
        st.stop()


def upload_limit_mb() -> int:
    """The per-file upload cap in MiB for `st.file_uploader` (the bytes are checked again on arrival)."""
    return max(1, -(-settings().upload_max_bytes // 1024**2))


def db_url() -> str:
    """The database URL exactly as the CLI and worker spell it (the worker lock is keyed on it)."""
    return store().engine.url.render_as_string(hide_password=False)


@st.cache_data(ttl=30, show_spinner=False)
def _health(url: str, ollama_host: str, openai_base_url: str = "", model_loaded: bool = False) -> list[Check]:
    return run_checks(load_settings(url), load_model=False)


def _embedded_loaded() -> bool:
    """Whether this server process holds the embedded model (cheap: no load, no wait)."""
    from execugraph.providers.embedded import find_model_file, held  # not `llm`: it imports LangChain

    path = find_model_file()
    return not isinstance(path, str) and held(str(path))


def health() -> list[Check]:
    """Provider, database and sandbox checks, refreshed at most every 30 s and as soon as the embedded model
    loads (its state is part of the cache key, so the line never says it is still to load once it is)."""
    s = settings()
    return _health(s.db_url, s.ollama_host, s.openai_base_url, _embedded_loaded())


def start_worker(url: str) -> bool:
    """Start the background batch worker for `url` unless one is alive (the seam tests replace)."""
    from execugraph.batch.worker_process import ensure_worker
    from ui import worker_exit

    pid = ensure_worker(url)
    if pid is not None:
        worker_exit.started(url, pid)  # stopped with this server unless it is running a batch
    return pid is not None


@st.cache_resource(show_spinner=False)
def _autostarted(url: str) -> bool:
    return start_worker(url)


def ensure_background_worker() -> bool:
    """Make sure a worker serves this database; runs once per server process and database."""
    return _autostarted(db_url())


# What the pages import beyond the router: LangGraph (runner), SciPy (statistics, power), plotly, publication.
WARM_MODULES = (
    "scipy.stats",
    "execugraph.stats",
    "execugraph.stats.tables",
    "execugraph.figures.report_figures",
    "execugraph.batch.runner",
    "execugraph.publication",
    "ui.batch_parts",
    "ui.export_parts",
    "ui.statistics_parts",
    "ui.trace_parts",
    "ui.trace_body",  # the Trace page below its header: plotly, pandas, the step drawers
    "execugraph.agents.nodes",  # the agents' registry that Trace's step view reads (LangGraph with it)
)


@st.cache_resource(show_spinner=False)
def warm_up() -> threading.Thread:
    """Import the pages' heavy modules on a background thread, once per server process.

    Importing LangGraph and SciPy takes seconds; without this the first visit to Batch or Statistics after a
    start waits for them. A page that needs a module first simply waits on Python's import lock.
    """

    def run() -> None:
        for name in WARM_MODULES:
            try:
                importlib.import_module(name)
            except Exception:  # noqa: BLE001 - the page that needs it reports the error properly
                continue

    thread = threading.Thread(target=run, name="execugraph-warm-up", daemon=True)
    thread.start()
    return thread


def preload_chart_frontend() -> None:
    """Once per browser session, draw a blank 10-pixel chart at the foot of the sidebar.

    The browser loads the plotly frontend (a few MB of JavaScript) the first time a chart is shown;
    on a busy 2-core machine that took over a second, paid by whichever page drew the first chart.
    Drawn with the first page of a session, the load happens while that page is read instead.
    """
    if st.session_state.get(keys.CHART_FRONTEND_LOADED):
        return
    st.session_state[keys.CHART_FRONTEND_LOADED] = True
    import plotly.graph_objects as go

    blank = go.Figure(layout={"height": 10, "margin": {"l": 0, "r": 0, "t": 0, "b": 0},
                              "xaxis": {"visible": False}, "yaxis": {"visible": False}})
    with st.sidebar:
        st.plotly_chart(blank, height=10, config={"staticPlot": True, "displayModeBar": False},
                        key="shared.chart_frontend")


def worker_alive() -> bool:
    """Whether some process currently holds this database's worker lock."""
    from execugraph.batch.worker_process import worker_alive as alive

    return alive(db_url())


@st.cache_data(ttl=30, show_spinner=False)
def _model_choices(ollama_host: str, openai_base_url: str) -> tuple[list[str], str | None]:
    from ui.views import model_choices as choices

    return choices(ollama_host, openai_base_url)


def model_choices(ollama_host: str, openai_base_url: str | None = None) -> tuple[list[str], str | None]:
    """Pickable model specs (embedded, Ollama's, the OpenAI-compatible server's) and, when no server answers,
    why (cached 30 s)."""
    return _model_choices(ollama_host, openai_base_url or settings().openai_base_url)


def library() -> Any:
    """This database's technique library (the shipped seed plus its edits), read afresh on every call."""
    from execugraph.store.technique_library import current_library

    return current_library(store())


@st.cache_resource(show_spinner="Loading the embedding model and the technique index...", max_entries=4)
def _retriever(digest: str, _library: Any) -> Any:
    from execugraph.retrieval import get_retriever

    return get_retriever(_library.techniques, source=_library.ref.describe())


def retriever(current: Any = None) -> Any:
    """The process-wide Retriever on this database's library, one per library digest (loads the model once)."""
    current = current if current is not None else library()
    return _retriever(current.ref.digest, current)


def fingerprint(run_ids: Sequence[int]) -> tuple:
    """Trial counts of the runs: changes whenever a trial is added or finishes."""
    from ui.views import trial_counts

    counts = trial_counts(store(), list(run_ids))
    return tuple(sorted((k, tuple(sorted(v.items()))) for k, v in counts.items()))


@st.cache_data(show_spinner="Computing statistics...", max_entries=32)
def _report(
    url: str,
    run_ids: tuple[int, ...],
    conditions: tuple[str, ...],
    baseline: str | None,
    comparable_only: bool,
    data_version: tuple,
    cost: str = "tokens",
) -> StatsReport:
    from execugraph.stats import build_report
    from execugraph.stats.family import Family

    family = Family(baseline=baseline, comparable_only=comparable_only)
    return build_report(_store(url), [str(r) for r in run_ids], list(conditions) or None, family=family, cost=cost)


def report(
    run_ids: Sequence[int],
    conditions: Sequence[str] = (),
    *,
    baseline: str | None = None,
    comparable_only: bool = True,
    cost: str = "tokens",
) -> StatsReport:
    """`execugraph.stats.build_report` for these runs and comparison family, cached until their trials change;
    `cost` model-time also compares model time (read only then)."""
    ids, conds = tuple(run_ids), tuple(conditions)
    return _report(settings().db_url, ids, conds, baseline, comparable_only, fingerprint(ids), cost)


@st.cache_data(show_spinner=False, max_entries=32)
def _arms(url: str, run_ids: tuple[int, ...], conditions: tuple[str, ...], data_version: tuple) -> list[tuple[str, str]]:
    from execugraph.stats.loading import plan_report_arms

    specs = plan_report_arms(_store(url), [str(r) for r in run_ids], list(conditions) or None)
    return [(spec.label, spec.name or spec.label) for spec in specs]


def arms(run_ids: Sequence[int], conditions: Sequence[str] = ()) -> list[tuple[str, str]]:
    """(label, name) of the arms a report on these runs compares, known before any statistic is computed."""
    ids = tuple(run_ids)
    return _arms(settings().db_url, ids, tuple(conditions), fingerprint(ids))


@st.cache_data(show_spinner="Loading the benchmark...", max_entries=8)
def benchmark_problems(name: str) -> list[Any]:
    """A named suite's problems (BenchmarkError says what is missing)."""
    from execugraph.benchmarks import load_benchmark

    return load_benchmark(name)


@st.cache_data(show_spinner="Checking the uploaded file...", max_entries=8)
def parse_upload(benchmark: str, data: bytes, name: str) -> list[Any]:
    """Problems from an uploaded suite, validated once per distinct file content."""
    from ui.views import parse_upload as parse

    return parse(benchmark, data, name)
