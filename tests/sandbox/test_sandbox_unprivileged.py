"""The sandbox started by an unprivileged user: root-only layers are reported unavailable, the rest still hold.

Runs a real host process as `nobody` (via util-linux `setpriv`), with any
Python >= 3.11 that user can execute; skipped where that is impossible.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]
SCRIPT = """
import json, sys
sys.path.insert(0, sys.argv[1])
from sandbox import SandboxPool, Limits
call = {"entry_point": "f", "tests": [{"kind": "call", "args": [], "expected": 1}]}
programs = [
    "def f():\\n    return 1\\n",
    "def f():\\n    while True:\\n        pass\\n",
    "def f():\\n    return len(bytearray(4 << 30))\\n",
    "import os\\ndef f():\\n    os.execv('/bin/sh', ['sh'])\\n",
    "def f():\\n    return open('/etc/shadow').read()\\n",
    "class A:\\n    def __eq__(self, o):\\n        return True\\ndef f():\\n    return A()\\n",
    # mode-000 directories and a 3,000-deep tree: without root the worker must reopen them to empty the job dir
    "import os\\ndef f():\\n    os.chdir(os.environ['TMPDIR'])\\n    os.makedirs('a/b/c')\\n"
    "    open('a/b/c/g', 'w').close()\\n    os.chmod('a/b/c', 0)\\n    os.chmod('a/b', 0)\\n    os.chmod('a', 0o500)\\n"
    "    for _ in range(3000):\\n        os.mkdir('d')\\n        os.chdir('d')\\n    return 1\\n",
    "import os\\ndef f():\\n    return 1 if os.listdir(os.environ['TMPDIR']) == [] else 0\\n",
]
with SandboxPool(workers=1) as pool:
    results = [pool.run_suite(code, call, Limits(timeout_s=1.0)) for code in programs]
print(json.dumps({"verdicts": [r.verdict for r in results], "isolation": results[0].isolation}))
"""


def _unprivileged_python() -> list[str] | None:
    setpriv = shutil.which("setpriv")
    if os.geteuid() != 0 or setpriv is None:
        return None
    prefix = [setpriv, "--reuid=nobody", "--regid=nogroup", "--clear-groups"]
    for python in dict.fromkeys([sys.executable, shutil.which("python3"), "/usr/bin/python3"]):
        if not python:
            continue
        probe = subprocess.run(
            [
                *prefix,
                python,
                "-c",
                "import os, sys; assert sys.version_info >= (3, 11) and os.access(sys.executable, os.X_OK)",
            ],
            cwd="/",
            capture_output=True,
        )
        if probe.returncode == 0:
            return [*prefix, python]
    return None


@pytest.fixture
def readable_sandbox() -> Iterator[Path]:
    """A copy of the sandbox package that `nobody` can read: the checkout itself may sit in a private
    (0700) directory, such as a fresh clone made under `mktemp -d`, where that user cannot reach it."""
    base = Path(tempfile.mkdtemp(prefix="execugraph-sandbox-"))
    try:
        shutil.copytree(REPO / "sandbox", base / "sandbox", ignore=shutil.ignore_patterns("__pycache__"))
        for path in [base, *base.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        yield base
    finally:
        shutil.rmtree(base, ignore_errors=True)


def test_sandbox_started_without_root_degrades_honestly(readable_sandbox: Path):
    command = _unprivileged_python()
    if command is None:
        pytest.skip("needs root, util-linux setpriv and a Python >= 3.11 that the nobody user can run")
    probe = subprocess.run([*command, "-c", "import sys; sys.path.insert(0, sys.argv[1]); import sandbox",
                            str(readable_sandbox)], cwd="/", capture_output=True, text=True, timeout=60)
    if probe.returncode != 0:
        pytest.skip(f"the nobody user cannot read {readable_sandbox} (is the temp directory private?)")
    done = subprocess.run([*command, "-c", SCRIPT, str(readable_sandbox)], cwd="/", capture_output=True, text=True,
                          timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["verdicts"] == [
        "passed",
        "timeout",
        "memory_limit",
        "sandbox_violation",
        "runtime_error",
        "wrong_answer",
        "passed",
        "passed",
    ]
    isolation = report["isolation"]
    assert isolation["unprivileged_uid"] == "unavailable: the worker is not root, so it cannot switch user"
    assert isolation["cgroup_memory"].startswith("unavailable: ") and isolation["cgroup_pids"].startswith(
        "unavailable: "
    )
    for layer in ("seccomp", "landlock_fs", "no_new_privs", "rlimits", "process_group", "verdict_channel"):
        assert isolation[layer] == "active", (layer, isolation[layer])
    assert all(v == "active" or v.startswith("unavailable: ") for v in isolation.values())
