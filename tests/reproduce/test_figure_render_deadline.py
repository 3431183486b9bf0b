"""Static figures never wait for good: a chromium that starts but never answers (seen in a test run: kaleido waited
for its first page forever, and `reproduce` with it) is closed at the deadline, tried once more, then named."""

from __future__ import annotations

import time
from pathlib import Path

import plotly.graph_objects as go
import pytest

from execugraph.figures import static

pytestmark = pytest.mark.integration


def _running(marker: str) -> list[int]:
    """Pids whose command line holds `marker` (the fake browser's path)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker in (entry / "cmdline").read_bytes().decode(errors="replace"):
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def test_a_chromium_that_never_answers_ends_in_a_clear_error(tmp_path, monkeypatch, caplog) -> None:
    fake = tmp_path / "silent-chromium"
    fake.write_text("#!/bin/sh\nexec sleep 300\n")  # starts, never speaks the DevTools protocol
    fake.chmod(0o755)
    monkeypatch.setenv("BROWSER_PATH", str(fake))
    monkeypatch.setattr(static, "OPEN_TIMEOUT_S", 3.0)  # the start's own deadline: the render allowance is far off
    monkeypatch.setattr(static, "CLOSE_GRACE_S", 10.0)
    started = time.monotonic()
    with pytest.raises(static.FigureExportError,
                       match=r"stalled rendering 3 figure\(s\), 2 times: chromium's start did not end within 3 s"):
        static.render_many([(go.Figure(), "svg")] * 3)
    assert time.monotonic() - started < 2 * (3 + 10) + 10
    assert "starting it again" in caplog.text  # the second try had a fresh chromium
    deadline = time.monotonic() + 15
    while _running(str(fake)) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _running(str(fake)) == []  # each stalled chromium was closed, not left behind
