"""The dashboard shows a hostile study's names (tests/support/hostile_study.py) as text: no Markdown element
that Streamlit renders (markdown, captions, alerts, expander and metric labels, st.table cells and headers) makes
an image, a link or raw HTML out of a folder name, problem id, category, model or family name, and no URL in
them is left for GFM to link. Each source is parsed by a CommonMark renderer, as Streamlit parses it."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt

from execugraph.publication import import_path
from execugraph.reproduce import REPORT_HTML, REPORT_MD, reproduce_path
from execugraph.safety.inert_text import BIDI_CONTROLS
from execugraph.store import Store
from tests.support import hostile_study as H
from tests.ui.conftest import no_exception
from ui.keys import Reproduce, Runs, Trace
from ui.reproduce_parts import Reproduced

MD = MarkdownIt("commonmark").enable(["table", "strikethrough"])
ACTING = {"image", "link_open", "html_inline", "html_block"}
MARKDOWN_KINDS = ("markdown", "caption", "info", "warning", "error", "success", "subheader", "title", "header")


@pytest.fixture
def hostile_runs(tmp_path: Path) -> list[int]:
    """The hostile study imported into this test's dashboard database; the run ids."""
    folder, _ = H.write_study(tmp_path / "hostile")
    with Store.open(str(tmp_path / "runs.db")) as store:
        return [run.id for run in import_path(store, folder).runs]


def _sources(at: Any) -> list[tuple[str, str]]:
    """Every string of the main area that Streamlit renders as Markdown, with what it is."""
    main = at.main
    found = [(kind, str(e.value)) for kind in MARKDOWN_KINDS for e in getattr(main, kind)]
    found += [("expander", e.label) for e in main.expander] + [("metric", m.label) for m in main.metric]
    for table in main.table:
        frame = table.value
        found += [("table header", str(c)) for c in frame.columns]
        found += [("table cell", str(v)) for v in frame.to_numpy().ravel()]
    return found


def _inert(at: Any) -> list[str]:
    """Fail on any Markdown source that would act; returns the sources (to check the data is shown at all)."""
    no_exception(at)
    sources = _sources(at)
    for kind, source in sources:
        tokens = [t for block in MD.parse(source) for t in [block, *(block.children or [])]]
        acting = sorted({t.type for t in tokens} & ACTING)
        assert not acting, (kind, source, acting)
        assert not re.search(r"(?i)https?://|www\.", source), (kind, source)  # GFM would link it
        assert not set(source) & BIDI_CONTROLS and "\x1b" not in source, (kind, source)
    return [source for _, source in sources]


def _shown(sources: list[str], text: str) -> bool:
    """Whether `text` is on the page, once the Markdown escapes are rendered."""
    return any(text in MD.renderInline(source).replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
               .replace("&quot;", '"').replace("\u2060", "") for source in sources)


def test_runs_page_shows_hostile_names_and_models_as_text(app, hostile_runs) -> None:
    at = app("runs")
    sources = []
    for run_id in hostile_runs:
        at.selectbox(key=Runs.DETAIL).set_value(run_id).run()
        sources += _inert(at)
    assert _shown(sources, H.MODELS["a"]) and _shown(sources, H.MODELS["b"].replace(H.OSC, "<U+001B>]0;owned<U+0007>"))


@pytest.mark.parametrize("page", ["statistics", "ablations"])
def test_analysis_pages_show_hostile_names_and_categories_as_text(app, hostile_runs, page) -> None:
    at = app(page, runs=",".join(map(str, hostile_runs)))
    sources = _inert(at)
    assert at.main.table, "the publication tables are drawn with st.table (Markdown cells)"
    assert _shown(sources, H.IMG_MD) and _shown(sources, H.SCRIPT)  # categories, shown as written


def test_trace_page_shows_an_imported_hostile_trial_as_text(app, hostile_runs) -> None:
    at = app("trace", run=str(hostile_runs[0]))
    for trial in at.selectbox(key=Trace.TRIAL).options[:4]:
        at.selectbox(key=Trace.TRIAL).set_value(int(trial.split()[0].lstrip("#"))).run()
        _inert(at)
        assert any(H.SCRIPT in c.value for c in at.main.code)  # program and stderr: verbatim, in code blocks


def test_the_reproduce_tab_shows_sentences_warnings_and_report_as_text(app, tmp_path, hostile_runs) -> None:
    folder, families = H.write_study(tmp_path / "again")
    out = tmp_path / "out"
    with Store.open(str(tmp_path / "runs.db")) as store:
        study, _ = reproduce_path(store, folder, out, families=families, figures=False, workers=1)
    done = Reproduced(name="study", archive=b"", html=(out / REPORT_HTML).read_text(),
                      markdown=(out / REPORT_MD).read_text(),
                      sentences=[(f["name"], [c["sentence"] for c in f["comparisons"]]) for f in study.data["families"]],
                      warnings=list(study.data["warnings"]), missing_figures=None, trials=0, runs=0)
    at = app("export", state={Reproduce.DONE: done})
    sources = _inert(at)
    assert _shown(sources, H.FAMILY_NAMES[0].split("\n")[0]) and _shown(sources, H.PROBLEMS[1])
