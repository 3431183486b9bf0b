"""With optional layers switched off (as on a host without root, cgroups, Landlock or seccomp) the sandbox
still runs, still enforces what remains, reports exactly what is missing, and verdicts still cannot be forged."""

from __future__ import annotations

import json
import time

import pytest

from sandbox import Limits, SandboxPool
from sandbox.worker import DISABLEABLE_LAYERS

pytestmark = pytest.mark.integration

CALL_F = {"entry_point": "f", "tests": [{"kind": "call", "args": [], "expected": 1}]}
SHORT = Limits(timeout_s=0.5, memory_mb=256)
JOB_LAYERS = {
    "cgroups": ("cgroup_memory", "cgroup_pids", "cgroup_cpu"),
    "landlock": ("landlock_fs", "landlock_tcp", "landlock_scope"),
    "seccomp": ("seccomp",),
    "unprivileged_uid": ("unprivileged_uid",),
    "network_namespace": ("network_namespace",),
    "mount_namespace": ("mount_namespace",),
}


@pytest.fixture(scope="module")
def bare_pool():
    with SandboxPool(workers=1, disable=DISABLEABLE_LAYERS) as pool:
        yield pool


def test_disabled_layers_are_reported_unavailable_with_a_reason(bare_pool):
    result = bare_pool.run_suite("def f():\n    return 1\n", CALL_F)
    assert result.passed
    for option, layers in JOB_LAYERS.items():
        for layer in layers:
            assert result.isolation[layer] == "unavailable: disabled by configuration", (
                option,
                layer,
                result.isolation[layer],
            )
    for layer in ("process_group", "rlimits", "no_new_privs", "clean_environment", "output_caps", "verdict_channel"):
        assert result.isolation[layer] == "active", layer


@pytest.mark.parametrize(
    ("code", "verdict"),
    [
        ("def f():\n    while True:\n        pass\n", "timeout"),
        ("def f():\n    return len(bytearray(4 << 30))\n", "memory_limit"),
        ("def f():\n    while True:\n        print('x' * 4096)\n", "output_limit"),
        ("import os\ndef f(x=None):\n    os._exit(0)\n", "runtime_error"),
        ("class A:\n    def __eq__(self, o):\n        return True\ndef f():\n    return A()\n", "wrong_answer"),
        (
            "import sys\ndef f():\n    sys.modules['sandbox.child']._answer = lambda *a: {'ok': True}\n    return 0\n",
            "wrong_answer",
        ),
    ],
    ids=["cpu-spin", "alloc-4gib", "stdout-flood", "os-exit", "always-equal", "patch-harness"],
)
def test_remaining_limits_and_forgery_protection_hold(bare_pool, code, verdict):
    assert bare_pool.run_suite(code, CALL_F, SHORT).verdict == verdict


def test_each_layer_can_be_switched_off_alone():
    with SandboxPool(workers=1) as pool:
        baseline = pool.run_suite("def f():\n    return 1\n", CALL_F).isolation
    for option, layers in JOB_LAYERS.items():
        with SandboxPool(workers=1, disable=[option]) as pool:
            result = pool.run_suite("def f():\n    return 1\n", CALL_F)
        assert result.passed, option
        for layer in layers:
            assert result.isolation[layer].startswith("unavailable: "), (option, layer)
        others = [layer for group, names in JOB_LAYERS.items() if group != option for layer in names]
        assert {layer: result.isolation[layer] for layer in others} == {layer: baseline[layer] for layer in others}, (
            option
        )


def test_unknown_layer_names_are_rejected():
    with pytest.raises(ValueError, match="unknown layers"):
        SandboxPool(workers=1, disable=["firewall"])


ESCAPEE = """
import os, time
def f():
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.setsid()  # leaves the job's process group: only possible without seccomp
        os.write(w, str(os.getsid(0)).encode())
        time.sleep(600)
        os._exit(0)
    return [pid, int(os.read(r, 32))]
"""


@pytest.mark.parametrize("disable", [("seccomp",), ("seccomp", "cgroups")], ids=["cgroup-sweep", "subreaper-sweep"])
def test_a_process_that_left_the_process_group_still_dies_with_the_job(disable):
    with SandboxPool(workers=1, disable=disable) as pool:
        result = pool.run_suite(ESCAPEE, CALL_F, Limits(timeout_s=3.0))
        escaped, session = json.loads(result.tests[0].got)
        assert result.verdict == "wrong_answer"
        assert session == escaped, "the child did not get its own session"
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and _alive(escaped):
            time.sleep(0.05)
        assert not _alive(escaped), f"process {escaped} outlived its job"


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/status") as f:
            return "State:\tZ" not in f.read()
    except FileNotFoundError:
        return False
