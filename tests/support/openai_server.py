"""A real OpenAI-compatible server for tests: llama-cpp-python's `llama_cpp.server` on loopback.

It serves the project's embedded SmolLM2-135M GGUF under the alias `smollm2`, so the
`openai:smollm2` provider spec talks to a real server over the real OpenAI client. Started as
its own process (like vLLM or llama-server would be), with few threads because the test
machines are small, and ready once GET /v1/models lists the model.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

ALIAS = "smollm2"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class LlamaCppServer:
    """`python -m llama_cpp.server` with the embedded model; use as a context manager."""

    def __init__(self, *, api_key: str | None = None, threads: int = 1, log: Path | None = None,
                 ready_timeout_s: float = 180.0) -> None:
        self.api_key = api_key
        self.threads = threads
        self.log = log
        self.ready_timeout_s = ready_timeout_s
        self.port = free_port()
        self.process: subprocess.Popen | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def command(self) -> list[str]:
        from execugraph.providers.llm import embedded_model_path

        args = [sys.executable, "-m", "llama_cpp.server", "--model", str(embedded_model_path()),
                "--model_alias", ALIAS, "--host", "127.0.0.1", "--port", str(self.port),
                "--n_threads", str(self.threads), "--n_threads_batch", str(self.threads), "--n_ctx", "4096"]
        if self.api_key:
            args += ["--api_key", self.api_key]
        return args

    def start(self) -> LlamaCppServer:
        out = open(self.log, "w") if self.log else subprocess.DEVNULL  # noqa: SIM115 - closed in stop()
        self._out = out
        self.process = subprocess.Popen(self.command(), stdout=out, stderr=subprocess.STDOUT,
                                        env=os.environ | {"PYTHONUNBUFFERED": "1"})
        self._wait_ready()
        return self

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.ready_timeout_s
        request = urllib.request.Request(f"{self.base_url}/models")
        if self.api_key:
            request.add_header("Authorization", f"Bearer {self.api_key}")
        last: Exception | None = None
        while time.monotonic() < deadline:
            assert self.process is not None
            if self.process.poll() is not None:
                raise RuntimeError(f"llama_cpp.server exited with {self.process.returncode} (log: {self.log})")
            try:
                with urllib.request.urlopen(request, timeout=2) as response:
                    ids = [m["id"] for m in json.load(response)["data"]]
                if ALIAS in ids:
                    return
            except (OSError, ValueError, KeyError, urllib.error.URLError) as exc:
                last = exc
            time.sleep(0.25)
        self.stop()
        raise RuntimeError(f"llama_cpp.server not ready within {self.ready_timeout_s:.0f} s: {last}")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        out = getattr(self, "_out", None)
        if out not in (None, subprocess.DEVNULL):
            out.close()

    def __enter__(self) -> LlamaCppServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
