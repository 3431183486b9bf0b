"""Build a test resource once per test run, shared by every pytest-xdist process, instead of once per process.

The first process to ask builds it under the run's common temporary folder (the parent of each process's own
basetemp) while holding a file lock; the others wait on the lock and reuse the folder and the JSON it recorded.
Without xdist the resource lives in this process's basetemp, exactly like a session fixture's.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

DONE = "built.json"


def built_once(factory: pytest.TempPathFactory, name: str, build: Callable[[Path], dict]) -> tuple[Path, dict]:
    """`build(folder)` fills an empty folder and returns JSON-able facts about it; returns (folder, those facts).

    Callers must treat the folder as read-only (copy what a test changes): other processes share it."""
    base = factory.getbasetemp()
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    folder = root / f"built-once-{name}"
    with (root / f"built-once-{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            done = folder / DONE
            if done.is_file():
                return folder, json.loads(done.read_text())
            shutil.rmtree(folder, ignore_errors=True)  # what a build that failed halfway left
            folder.mkdir()
            facts = build(folder)
            partial = folder / f"{DONE}.partial"
            partial.write_text(json.dumps(facts))
            partial.replace(done)  # written last: a build that failed halfway is redone, never reused
            return folder, facts
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
