"""A reproduction's outputs are the study's, not the database's: the same study (tests/support/published_study.py,
zipped) reproduced (a) by the CLI on a fresh database, (b) by the CLI on a database that already holds it and an
unrelated run (so every id shifts), and (c) by the dashboard's Reproduce tab (AppTest, uploads and button) on that
same database once more (every rescore reused) gives the same reproduce.json (versions, timing and `local` aside),
the same tables and the same report, names runs by folder (never `#id`), and carries the study's own warnings
(subset_sum is an internal-30 problem whose records say `apps-introductory`) in all three."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

from execugraph.configuration.settings import DATA_DIR
from execugraph.publication import import_path
from execugraph.store import Store
from tests.support import published_study as S

pytestmark = pytest.mark.integration

PROJECT = Path(__file__).resolve().parents[2]
APP = str(PROJECT / "app.py")
UNRELATED = DATA_DIR / "fixtures" / "reference_layout" / "published-demo" / "e2_he_so"
LOCAL_ONLY = ("versions", "timing", "local")
FILED = "subset_sum carry source 'apps-introductory' but are internal30 problems; filed under internal30"
DB_ID = re.compile(r"#\d|\brun_id\b|already imported")


def _zip(folder: Path, target: Path) -> Path:
    with zipfile.ZipFile(target, "w") as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                archive.write(path, f"{folder.name}/{path.relative_to(folder).as_posix()}")
    return target


def _cli(db: Path, results: Path, dataset: Path, out: Path) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "execugraph", "--db", str(db), "reproduce", str(results),
                           "--dataset", str(dataset), "--out", str(out), "--no-figures", "--workers", "2", "--quiet"],
                          capture_output=True, text=True, timeout=600, cwd=PROJECT)
    assert done.returncode == 0, done.stderr
    return done


def _dashboard(db: Path, results: Path, dataset: Path, out: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """Upload, untick the figures, press Reproduce on the Export / Import page; unpack its zip into `out`."""
    from streamlit.testing.v1 import AppTest

    from execugraph.configuration.settings import load_settings
    from ui import reproduce_job
    from ui.keys import Reproduce

    monkeypatch.setenv("EXECUGRAPH_DB", str(db))
    monkeypatch.setenv("EXECUGRAPH_CACHE_DIR", str(out.parent / "cache"))
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")
    monkeypatch.setattr("ui.resources.start_worker", lambda url: True)
    at = AppTest.from_file(APP, default_timeout=300)
    at.run()
    at.switch_page("pages/export.py").run()
    at.file_uploader(key=Reproduce.RESULTS).set_value((results.name, results.read_bytes(), "application/zip")).run()
    at.file_uploader(key=Reproduce.DATASET).set_value((dataset.name, dataset.read_bytes(), "application/jsonl")).run()
    at.checkbox(key=Reproduce.FIGURES).uncheck().run()
    at.button(key=Reproduce.RUN).click().run()
    job = reproduce_job.current(load_settings().db_url)  # it runs in the background: wait for it, then redraw
    assert job is not None and job.wait(600), "the reproduction did not finish"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert job.state == "done", (job.error, job.issues)
    done = at.session_state[Reproduce.DONE]
    with zipfile.ZipFile(io.BytesIO(done.archive)) as archive:
        archive.extractall(out)
    return done


def _portable(out: Path) -> dict[str, Any]:
    """reproduce.json less what may differ (software versions, timing, this database's `local` facts)."""
    data = json.loads((out / "reproduce.json").read_text())
    return {k: v for k, v in data.items() if k not in LOCAL_ONLY}


def _report(out: Path, name: str) -> str:
    return re.sub(r"Versions: [^<\n]*", "Versions: -", (out / name).read_text())


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    root = tmp_path_factory.mktemp("portable")
    folder, dataset = S.write_study(root)
    return root, _zip(folder, root / "study.zip"), dataset


def test_a_study_reproduces_to_the_same_outputs_on_any_database(inputs, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    root, results, dataset = inputs
    fresh, used = tmp_path / "fresh.db", tmp_path / "used.db"
    outs = {name: tmp_path / name for name in ("fresh", "used", "dashboard")}
    terminal = {"fresh": _cli(fresh, results, dataset, outs["fresh"])}
    with Store.open(str(used)) as store:  # an unrelated run first, then the study: every id shifts by one
        import_path(store, UNRELATED)
        first = import_path(store, results)
        assert [r.id for r in first.runs] == list(range(2, 8)) and first.notes == []
    terminal["used"] = _cli(used, results, dataset, outs["used"])
    done = _dashboard(used, results, dataset, outs["dashboard"], monkeypatch)

    local = {name: json.loads((out / "reproduce.json").read_text())["local"] for name, out in outs.items()}
    assert [r["run_id"] for r in local["fresh"]["runs"]] == list(range(1, 7))
    assert [r["run_id"] for r in local["used"]["runs"]] == list(range(2, 8))
    for name in ("used", "dashboard"):  # what the database already held: said locally, not in the report
        assert local[name]["import_notes"] == [f"{arm}: already imported as run {i + 2}; not duplicated"
                                               for i, arm in enumerate(S.ARMS)]
    assert all(r["reused_earlier_rescore"]["standalone"] for r in local["dashboard"]["runs"])
    assert local["fresh"]["import_notes"] == [] and "reproduce: warning: e1_so: " + FILED in terminal["fresh"].stderr
    assert "reproduce: note: e1_so: already imported as run 2; not duplicated" in terminal["used"].stderr
    assert "e1_so: already imported as run 2; not duplicated" in done.notes

    reference = _portable(outs["fresh"])
    for name in ("used", "dashboard"):
        assert _portable(outs[name]) == reference, name
    assert [r["name"] for r in reference["runs"]] == list(S.ARMS)
    assert reference["families"][0]["runs"] == ["e1_so", "e2_sr", "e3_mf", "e4_bo5"]
    assert reference["families"][0]["comparisons"][0]["sentence"].startswith("e2_sr vs e1_so (delta = ")
    filed = [w for w in reference["warnings"] if FILED in w]
    assert [w.split(":")[0] for w in filed] == ["e1_so", "e2_sr", "e3_mf", "e4_bo5"]
    assert done.warnings == reference["warnings"]

    tables = sorted(p.name for p in (outs["fresh"] / "tables").iterdir())
    assert len([t for t in tables if t.endswith(".csv")]) == len(reference["tables"]) > 10
    for name in ("used", "dashboard"):
        assert sorted(p.name for p in (outs[name] / "tables").iterdir()) == tables
        for table in tables:
            assert (outs[name] / "tables" / table).read_bytes() == (outs["fresh"] / "tables" / table).read_bytes(), \
                (name, table)
        for report in ("report.md", "report.html"):
            assert _report(outs[name], report) == _report(outs["fresh"], report), (name, report)

    md = (outs["fresh"] / "report.md").read_text()
    assert FILED in md[md.index("## Warnings"):md.index("## Runs")]
    texts = {"reproduce.json": json.dumps(reference), "report.md": md,
             "report.html": re.sub(r"<style>.*?</style>", "", (outs["fresh"] / "report.html").read_text(), flags=re.S),
             **{t: (outs["fresh"] / "tables" / t).read_text() for t in tables}}
    for where, text in texts.items():
        assert not DB_ID.search(text), (where, DB_ID.search(text))


def _figures(db: Path, results: Path, dataset: Path, unrelated: bool) -> dict[str, str]:
    """Every figure of a reproduction (as plotly JSON) and its caption, on the database at `db`."""
    from execugraph.publication.source import read_input
    from execugraph.reproduce import StudyInputs, load_dataset, run_study

    with Store.open(str(db)) as store:
        if unrelated:
            import_path(store, UNRELATED)
        with read_input(results) as fileset:
            study = run_study(store, StudyInputs(fileset, load_dataset(dataset.read_bytes(), dataset.name)),
                              workers=2)
    drawn = {name: fig.to_json() for figures in study.family_figures for name, fig in figures.items()}
    return {**drawn, **{f"caption {name}": text for name, text in study.figure_captions.items()}}


def test_figures_name_runs_by_the_study_too(inputs, tmp_path: Path) -> None:
    _root, results, dataset = inputs
    fresh = _figures(tmp_path / "fresh.db", results, dataset, unrelated=False)
    shifted = _figures(tmp_path / "shifted.db", results, dataset, unrelated=True)
    assert shifted == fresh
    assert len(fresh) >= 20 and any("e4_bo5" in text for text in fresh.values())
    assert not [name for name, text in fresh.items() if re.search(r" #\d", text)]
