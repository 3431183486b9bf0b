"""`python -m execugraph doctor` as a user runs it: real subprocess, real DB, Ollama reachable or not."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys

import pytest

from execugraph.configuration.settings import PROJECT_ROOT
from standins.ollama_server import OllamaStandIn

pytestmark = pytest.mark.integration


def doctor(tmp_path, host: str, *extra: str) -> subprocess.CompletedProcess:
    env = os.environ | {"OLLAMA_HOST": host, "EXECUGRAPH_DB": str(tmp_path / "doc.db")}
    return subprocess.run(
        [sys.executable, "-m", "execugraph", "doctor", *extra],
        cwd=PROJECT_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )


def closed_port_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}"


def test_unreachable_ollama_is_a_warning_with_the_fix(tmp_path):
    host = closed_port_url()
    result = doctor(tmp_path, host, "--no-load")
    assert result.returncode == 0, result.stdout + result.stderr  # the embedded default still works
    line = next(line for line in result.stdout.splitlines() if "] ollama:" in line)
    assert line.startswith("[WARN]") and f"not reachable at {host}" in line
    assert "ollama serve" in result.stdout and "OLLAMA_HOST" in result.stdout
    assert "[ok  ] database" in result.stdout and "doc.db" in result.stdout
    assert (tmp_path / "doc.db").exists()


def test_json_report_lists_models_and_sandbox_layers(tmp_path):
    with OllamaStandIn(models=["qwen2.5-coder:7b", "llama3.1:8b"]) as server:
        result = doctor(tmp_path, server.url, "--json")
    assert result.returncode == 0, result.stderr
    checks = {c["name"]: c for c in json.loads(result.stdout)}
    assert checks["ollama"]["level"] == "ok" and "qwen2.5-coder:7b" in checks["ollama"]["detail"]
    assert checks["embedded model"]["level"] == "ok" and "loaded" in checks["embedded model"]["detail"]
    assert checks["database"]["detail"].endswith("(schema " + checks["database"]["detail"].split("(schema ")[1])
    layers = [name for name in checks if name.startswith("sandbox: ")]
    assert len(layers) >= 5 and all(checks[n]["level"] in ("ok", "warn") for n in layers)


def test_unusable_database_fails_with_exit_1(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    env_db = str(blocker / "sub" / "runs.db")
    env = os.environ | {"OLLAMA_HOST": closed_port_url(), "EXECUGRAPH_DB": env_db}
    result = subprocess.run(
        [sys.executable, "-m", "execugraph", "doctor", "--no-load"],
        cwd=PROJECT_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert result.returncode == 1
    assert "[FAIL] database" in result.stdout and "EXECUGRAPH_DB" in result.stdout
