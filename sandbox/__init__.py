"""Isolated execution of untrusted candidate programs against test suites.

Standalone (standard library only; never imports execugraph). One warm
worker per core forks one hardened process tree per job; verdicts are
computed in the calling process from plain data. See README.md for the suite
format, the CLI, the isolation layers and what they do not cover.

What lives where (imports run down this list, never back up):
- host side: `pool` (SandboxPool, the default pool), `suite` (format and
  validation), `scoring` and `compare` (raw statuses -> verdicts),
  `results` (SuiteResult, TestResult), `limits`, `cli`;
- worker: `worker` (WorkerEnv, prepared once per worker, and the request
  loop), `job` (JobRunner: one suite's tests), `job_io` (the job's processes,
  the poll loop, each test's CPU and wall clocks, how they end), `env`
  (JobEnv: the few things a job needs from its worker), `procs` (spawn, Proc
  records, the subreaper's Reaper), `cputime` (the job's CPU seconds, read
  from its cgroup or /proc);
- inside job processes: `child` (the candidate, stdio and judge roles),
  `hardening` (the per-process layers), `landlock`, `seccomp`,
  `namespaces`, `cgroups`, `syscalls`, `preload`;
- shared: `frames` (the wire format) and `codec` (plain-data values).

Names are resolved lazily so that the worker process, which imports
`sandbox.worker`, does not also load the host-side pool machinery (smaller
worker, cheaper fork per job).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    "POLICY_VERSION": "sandbox.scoring",
    "VERDICTS": "sandbox.results",
    "Limits": "sandbox.limits",
    "SandboxPool": "sandbox.pool",
    "SandboxUnavailable": "sandbox.pool",
    "SuiteError": "sandbox.suite",
    "SuiteResult": "sandbox.results",
    "TestResult": "sandbox.results",
    "default_pool": "sandbox.pool",
    "isolation_report": "sandbox.pool",
    "load_suite_file": "sandbox.suite",
    "parse_suite": "sandbox.suite",
    "run_suite": "sandbox.pool",
}
__all__ = [
    "POLICY_VERSION",
    "VERDICTS",
    "Limits",
    "SandboxPool",
    "SandboxUnavailable",
    "SuiteError",
    "SuiteResult",
    "TestResult",
    "default_pool",
    "isolation_report",
    "load_suite_file",
    "parse_suite",
    "run_suite",
]

if TYPE_CHECKING:
    from sandbox.limits import Limits
    from sandbox.pool import SandboxPool, SandboxUnavailable, default_pool, isolation_report, run_suite
    from sandbox.results import VERDICTS, SuiteResult, TestResult
    from sandbox.scoring import POLICY_VERSION
    from sandbox.suite import SuiteError, load_suite_file, parse_suite


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'sandbox' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
