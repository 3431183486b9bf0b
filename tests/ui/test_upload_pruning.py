"""Uploaded suites stay while a run names them and go a day after nobody does."""

from __future__ import annotations

import os
import time

import pytest

from execugraph.batch.control import enqueue_batch
from execugraph.batch.spec import BatchSpec
from ui.views.uploads import UNREFERENCED_GRACE_S, keep_upload, prune_uploads

pytestmark = pytest.mark.integration

SUITE = (b'{"id": "d", "statement": "Double x.", "entry_point": "double", '
         b'"tests": [{"kind": "call", "expr": "double(2)", "expected": 4}]}\n')


def test_only_old_uploads_that_no_run_names_are_deleted(sqlite_store, tmp_path) -> None:
    folder = tmp_path / "uploads"
    used = keep_upload(SUITE, "used.jsonl", folder)
    enqueue_batch(sqlite_store, BatchSpec(benchmark="user", benchmark_options={"path": str(used)},
                                          conditions=["single-oneshot"]))
    orphan = keep_upload(SUITE.replace(b"Double", b"Twice"), "orphan.jsonl", folder)
    fresh = keep_upload(SUITE.replace(b"Double", b"Two times"), "fresh.jsonl", folder)
    old = time.time() - UNREFERENCED_GRACE_S - 60
    for path in (used, orphan):
        os.utime(path, (old, old))
    removed = prune_uploads(folder, sqlite_store)
    assert removed == [orphan]
    assert used.exists() and fresh.exists() and not orphan.exists()
    keep_upload(SUITE, "used.jsonl", folder)  # uploaded again: kept, and its grace period restarts
    assert time.time() - used.stat().st_mtime < 60
