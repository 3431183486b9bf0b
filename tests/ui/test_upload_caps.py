"""Dashboard uploads have a size cap (EXECUGRAPH_UPLOAD_MAX_BYTES), checked again when the bytes arrive."""

from __future__ import annotations

import io
import json
import zipfile

from tests.ui.conftest import no_exception, texts
from ui.keys import Batch, Export

PROBLEM = {
    "id": "double",
    "statement": "Return twice x.",
    "entry_point": "double",
    "tests": [{"kind": "call", "expr": "double(2)", "expected": 4}],
}


def test_a_suite_over_the_upload_cap_is_refused_naming_the_cap(app, monkeypatch) -> None:
    monkeypatch.setenv("EXECUGRAPH_UPLOAD_MAX_BYTES", "1KiB")
    at = app("batch")
    at.selectbox(key=Batch.BENCHMARK).set_value("user").run()
    lines = "".join(json.dumps({**PROBLEM, "id": f"double_{i}"}) + "\n" for i in range(20))
    at.get("file_uploader")[0].upload("big.jsonl", lines.encode(), "application/jsonl")
    at.run()
    no_exception(at)
    errors = texts(at, "error")
    assert any("big.jsonl is" in e and "an uploaded suite may be at most 1 KiB" in e for e in errors), errors
    assert at.button(key=Batch.LAUNCH).disabled


def test_an_import_over_the_upload_cap_is_refused_before_reading(app, db_store, monkeypatch) -> None:
    monkeypatch.setenv("EXECUGRAPH_UPLOAD_MAX_BYTES", "2KiB")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:  # stored, not compressed: 5 KB on the wire
        archive.writestr("run/trials.jsonl", "x" * 5000)
    at = app("export")
    assert any("Uploads up to 2 KiB" in c for c in texts(at, "caption")), texts(at, "caption")
    at.get("file_uploader")[0].upload("big.zip", buffer.getvalue(), "application/zip")
    at.run()
    at.button(key=Export.IMPORT).click().run()
    no_exception(at)
    errors = texts(at, "error")
    assert any(e.startswith("Nothing was imported: big.zip is") and "at most 2 KiB" in e for e in errors), errors
    assert db_store.list_runs() == []
