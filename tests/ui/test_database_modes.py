"""The dashboard on a database it cannot use, on one it may only read, and the Export page's privacy switch.

A corrupt database shows the CLI's sentence on every page instead of a
traceback. A database on read-only storage (a real read-only bind mount, so
the whole dashboard runs in a child process under it) is browsed normally,
while every page that would write says so and no worker is started.
(AppTest runs the router, app.py, on the first page only; after a page switch
each page opens the store itself, so both paths are covered.)
"""

from __future__ import annotations

import io
import json
import os
import socket
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.support import db_files
from tests.support.readonly import read_only_argv, unavailable_reason
from tests.ui.conftest import APP, APP_TIMEOUT_S, PAGES, PROJECT_ROOT, no_exception, texts
from ui.keys import Export


def test_a_corrupt_database_is_one_sentence_on_every_page(app, tmp_path: Path, monkeypatch) -> None:
    broken = tmp_path / "broken.db"
    db_files.write_bytes(broken, b"definitely not SQLite " * 100)
    monkeypatch.setenv("EXECUGRAPH_DB", str(broken))
    for page in ("synthesize", "runs", "export"):  # the app stops before any page would open the store
        at = app(page)
        no_exception(at)
        errors = texts(at, "error")
        assert len(errors) == 1 and str(broken) in errors[0] and "corrupt" in errors[0], (page, errors)
        assert "Traceback" not in errors[0]


def test_the_export_page_leaves_the_host_out_unless_asked(app, seeded_db) -> None:
    at = app("export", runs=str(seeded_db.batch))
    hosts = []
    for include in (False, True):
        at.checkbox(key=Export.INCLUDE_HOST).set_value(include).run()
        at.button(key=Export.PREPARE).click().run()
        no_exception(at)
        (prepared_for, data, _names) = at.session_state[Export.BUNDLE]
        assert prepared_for[1] is include
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            hosts.append(json.loads(archive.read("runs.jsonl").splitlines()[0])["host"])
    assert hosts == ["", socket.gethostname()]


_DASHBOARD = """
import json, sys
from streamlit import config
config.set_option("server.address", "127.0.0.1")  # what .streamlit/config.toml gives a real server
from streamlit.testing.v1 import AppTest
import ui.resources
started = []
ui.resources.start_worker = lambda url: started.append(url) or True
at = AppTest.from_file(sys.argv[1], default_timeout=float(sys.argv[2]))
report = {}
for page in sys.argv[3:]:
    if report:
        at.switch_page(f"pages/{page}.py")
    at.run()
    report[page] = {
        "exception": [str(e.value) for e in at.exception],
        "error": [str(e.value) for e in at.error],
        "info": [str(e.value) for e in at.info],
        "dataframes": len(at.dataframe),
    }
report["started"] = started
print(json.dumps(report))
"""


def test_the_dashboard_reads_a_database_on_read_only_storage(seeded_template, tmp_path: Path) -> None:
    reason = unavailable_reason()
    if reason:
        pytest.skip(reason)
    source, _ids = seeded_template
    shelf = tmp_path / "shelf"
    shelf.mkdir()
    db_files.copy_database(source, shelf / "runs.db")
    script = tmp_path / "dashboard.py"
    script.write_text(_DASHBOARD)
    env = os.environ | {
        "EXECUGRAPH_DB": str(shelf / "runs.db"),
        "EXECUGRAPH_CACHE_DIR": str(tmp_path / "cache"),
        "OLLAMA_HOST": "http://127.0.0.1:9",
        "PYTHONPATH": str(PROJECT_ROOT),
    }
    argv = [sys.executable, str(script), APP, str(APP_TIMEOUT_S), *PAGES]
    done = subprocess.run(
        read_only_argv(shelf, argv), cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report.pop("started") == [], "no worker is started for a read-only database"
    for page, seen in report.items():
        assert seen["exception"] == [], (page, seen["exception"])
        assert not [e for e in seen["error"] if "read-only" in e or "readonly" in e], (page, seen["error"])
    # the router says it once above every page (AppTest runs it on the first page only)
    assert any(i.startswith("Read-only mode:") and "nothing can be recorded" in i for i in report["synthesize"]["info"])
    assert any("Synthesizing is disabled" in i for i in report["synthesize"]["info"])
    assert any("Launching a batch is disabled" in i for i in report["batch"]["info"])
    assert any("Importing is disabled" in i for i in report["export"]["info"])
    assert report["runs"]["dataframes"] >= 1 and report["statistics"]["exception"] == []
    assert sorted(p.name for p in shelf.iterdir()) == ["runs.db"], "nothing was written beside the database"
