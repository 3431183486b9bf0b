"""A real WorkerEnv (built in its own process, as the pool builds it) is what JobRunner expects: a `JobEnv`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]

# WorkerEnv points descriptors 0 and 1 at /dev/null, so the script reports on stderr.
SCRIPT = r"""
import os
import sys
sys.path.insert(0, sys.argv[1])
from sandbox.env import JobEnv
from sandbox.limits import Limits
from sandbox.procs import kill_now
from sandbox.worker import DISABLEABLE_LAYERS, WorkerEnv

env = WorkerEnv({"disable": list(DISABLEABLE_LAYERS)})
try:
    members = sorted(n for n, v in vars(JobEnv).items() if not n.startswith("_") and (callable(v) or isinstance(v, property)))
    assert members == ["cgroups", "cpu_meter", "devnull", "plan", "reaper", "sweep_after_job", "take_warm"], members
    missing = [name for name in members if not hasattr(env, name)]
    assert not missing and isinstance(env, JobEnv), f"WorkerEnv lacks {missing}"
    limits = Limits().to_dict()
    env.prefork(limits)
    warm = env.take_warm(limits)
    assert warm is not None and not warm.dead, "the pre-forked process was not handed over"
    assert env.take_warm(limits) is None, "the pre-forked process was handed over twice"
    pid = warm.pid
    kill_now(warm, env.reaper)
    env.sweep_after_job()
    try:
        os.kill(pid, 0)
        raise AssertionError(f"process {pid} outlived kill_now")
    except ProcessLookupError:
        pass
finally:
    env.close()
sys.stderr.write("worker env ok\n")
"""


def test_worker_env_satisfies_the_job_env_protocol() -> None:
    done = subprocess.run(
        [sys.executable, "-S", "-s", "-B", "-c", SCRIPT, str(REPO)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd="/",
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stderr.strip().endswith("worker env ok"), done.stderr[-3000:]
