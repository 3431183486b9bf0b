"""A worker's warm-up builds the HTTP clients of its configured OpenAI-compatible server, so a batch's first
clients for that server load no SSL context between the batch's start and its first call."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys

from execugraph.configuration.settings import PROJECT_ROOT

CHILD = r"""
import json, ssl, sys
from execugraph.configuration.conditions import resolve_condition
from execugraph.providers.clients import preload, warm_models
from execugraph.workflow.trial import TrialDeps

assert preload(["openai"]) == ["openai"]
loads = []
original = ssl.SSLContext.load_verify_locations

def counting(self, *args, **kwargs):
    loads.append(1)
    return original(self, *args, **kwargs)

ssl.SSLContext.load_verify_locations = counting
configs = [resolve_condition(c, default_model="openai:m") for c in ("single-oneshot", "multi-full")]
configured = warm_models(configs, None), len(loads)
other = warm_models(configs, TrialDeps(openai_base_url=sys.argv[1])), len(loads) - configured[1]
print(json.dumps({"configured": configured, "other": other}))
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_the_configured_server_s_clients_load_no_ssl_context_after_the_warm_up(tmp_path) -> None:
    configured, other = (f"http://127.0.0.1:{free_port()}/v1" for _ in range(2))  # never contacted
    env = dict(os.environ, EXECUGRAPH_OPENAI_BASE_URL=configured, EXECUGRAPH_CACHE_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", CHILD, other], cwd=PROJECT_ROOT, env=env, capture_output=True,
                         text=True, timeout=300, check=False)
    assert out.returncode == 0, out.stderr[-2000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["configured"] == [2, 0]  # two clients (the explainer's decoding differs), no SSL context loaded
    assert result["other"][0] == 2 and result["other"][1] > 0  # a server the warm-up did not know: loaded then
