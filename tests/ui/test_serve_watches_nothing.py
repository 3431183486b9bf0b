"""`make run`'s server (`python -m ui.serve`) polls no file: Streamlit's st.App would poll each config.toml every
200 ms on threads of its own, about 1% of a core on an idle dashboard, whatever `server.fileWatcherType` says."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.dashboard import free_port, wait_healthy
from tests.ui.conftest import PROJECT_ROOT

pytestmark = pytest.mark.integration


def test_a_served_dashboard_nobody_opened_runs_one_thread(tmp_path: Path) -> None:
    port = free_port()
    env = dict(os.environ, EXECUGRAPH_DB=str(tmp_path / "runs.db"), EXECUGRAPH_CACHE_DIR=str(tmp_path / "cache"),
               OLLAMA_HOST="http://127.0.0.1:9")
    server = subprocess.Popen([sys.executable, "-m", "ui.serve", "--host", "127.0.0.1", "--port", str(port)],
                              cwd=PROJECT_ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        wait_healthy(f"http://127.0.0.1:{port}", server)
        time.sleep(1.0)  # a poller would have started with the server; give it the time of several polls
        threads = sorted(os.listdir(f"/proc/{server.pid}/task"))
        assert threads == [str(server.pid)], f"the idle server runs {len(threads)} threads: a file watcher is back?"
    finally:
        server.terminate()
        server.wait(30)
