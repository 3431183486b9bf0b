"""What a candidate leaves in its job directory never reaches the next job's verdict.

Each case runs on a one-worker pool, so the job after the hostile one lands on the
very worker (or its replacement) that had to clean up: it must pass, and find its
job directory empty.
"""

from __future__ import annotations

import logging
import os

import pytest

from sandbox import Limits, SandboxPool
from sandbox import pool as pool_module

pytestmark = pytest.mark.integration

CALL_F = {"entry_point": "f", "tests": [{"kind": "call", "args": [], "expected": 1}]}
CORRECT = "def f():\n    return 1\n"
LISTING = "import os\ndef f():\n    return sorted(os.listdir(os.environ['TMPDIR']))\n"
LIMITS = Limits(timeout_s=10.0)

DEEP_TREE = """
import os
def f():
    os.chdir(os.environ["TMPDIR"])
    for _ in range(3000):
        os.mkdir("d")
        os.chdir("d")
    with open("leaf", "w") as out:
        out.write("x")
    return 1
"""

LOCKED_DIRS = """
import os
def f():
    top = os.path.join(os.environ["TMPDIR"], "locked")
    os.makedirs(os.path.join(top, "inner", "deeper"))
    for name in ("a", "b"):
        with open(os.path.join(top, "inner", name), "w") as out:
            out.write("x")
    os.chmod(os.path.join(top, "inner", "deeper"), 0)
    os.chmod(os.path.join(top, "inner"), 0)
    os.chmod(top, 0o500)
    return 1
"""

SYMLINKS_OUT = """
import os
def f():
    job = os.environ["TMPDIR"]
    os.symlink({outside!r}, os.path.join(job, "out"))
    os.makedirs(os.path.join(job, "nest"))
    os.symlink({outside!r}, os.path.join(job, "nest", "out"))
    os.symlink({marker!r}, os.path.join(job, "marker"))
    return 1
"""

MANY_FILES = """
import os
def f():
    top = os.path.join(os.environ["TMPDIR"], "many")
    os.mkdir(top)
    for i in range(20000):
        open(os.path.join(top, str(i)), "w").close()
    return 1
"""


@pytest.fixture(scope="module")
def pool():
    with SandboxPool(workers=1) as shared:
        yield shared


def _next_job_is_clean(pool: SandboxPool) -> None:
    """The job after the hostile one passes, and its directory starts empty."""
    result = pool.run_suite(CORRECT, CALL_F, LIMITS)
    assert result.verdict == "passed", (result.error, result.tests[0].got)
    listing = pool.run_suite(LISTING, {"entry_point": "f", "tests": [{"kind": "call", "args": [], "expected": []}]})
    assert listing.verdict == "passed", listing.tests[0].got


def test_a_3000_deep_tree_does_not_spoil_the_next_job(pool):
    result = pool.run_suite(DEEP_TREE, CALL_F, LIMITS)
    assert result.verdict == "passed", (result.error, result.tests[0].got)
    _next_job_is_clean(pool)


def test_directories_made_unreadable_are_removed(pool):
    result = pool.run_suite(LOCKED_DIRS, CALL_F, LIMITS)
    assert result.verdict == "passed", (result.error, result.tests[0].got)
    _next_job_is_clean(pool)


def test_symlinks_to_outside_are_removed_and_never_followed(pool, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep").write_text("host data")
    marker = tmp_path / "marker"
    marker.write_text("host marker")
    os.chmod(tmp_path, 0o755)  # a worker running jobs as nobody must be able to reach the targets, were it to follow
    code = SYMLINKS_OUT.format(outside=str(outside), marker=str(marker))
    result = pool.run_suite(code, CALL_F, LIMITS)
    assert result.verdict == "passed", (result.error, result.tests[0].got)
    _next_job_is_clean(pool)
    assert (outside / "keep").read_text() == "host data" and marker.read_text() == "host marker"


def test_a_tree_too_big_to_remove_in_time_retires_the_worker_not_the_next_job(monkeypatch, caplog):
    monkeypatch.setattr(pool_module, "CLEANUP_LIMIT_S", 0.001)  # read when each worker starts
    with SandboxPool(workers=1) as small, caplog.at_level(logging.WARNING, logger="sandbox.pool"):
        (before,) = small.worker_pids()
        result = small.run_suite(MANY_FILES, CALL_F, LIMITS)
        assert result.verdict == "passed", (result.error, result.tests[0].got)
        monkeypatch.setattr(pool_module, "CLEANUP_LIMIT_S", 10.0)  # the replacement cleans normally
        _next_job_is_clean(small)
        assert small.worker_pids() != [before], "the worker that could not clean up ran the next job"
    retired = [r.getMessage() for r in caplog.records if "replaced before its next job" in r.getMessage()]
    assert retired and "JobDirStuck" in retired[0], [r.getMessage() for r in caplog.records]
