"""Resource limits for one sandbox job, validated once so the worker can trust them.

Time is counted in CPU seconds of the job's processes, read by the worker from
outside them (the job cgroup's CPU usage, else /proc of every job process plus
what the worker reaped), so a verdict does not depend on what else runs on the
machine. Programs that sleep, block or stop themselves are ended by a budget
of blocked time close to the CPU limit (time waiting for a CPU is excused);
the wall clock, several times the CPU limit plus a constant, is the last resort.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

MIB = 1 << 20
CODE_FILE_MAX_BYTES = 1 * MIB  # a program read from a file (`python -m sandbox check --code`)
SUITE_FILE_MAX_BYTES = 16 * MIB  # a suite JSON file (`--tests`, `load_suite_file`)
# backstop = WALL_FACTOR x CPU limit + WALL_GRACE_S: a program at its CPU limit still ends by CPU when it gets
# a tenth of a core (8 busy loops and 2 sandbox workers on 2 cores leave it about a fifth)
WALL_FACTOR = 10.0
WALL_GRACE_S = 10.0
# blocked budget = BLOCKED_FACTOR x CPU limit + BLOCKED_GRACE_S of time in which no job task ran or waited for a CPU
# (sleeping, waiting on a lock or input, stopped): ends such programs close to their limit, whatever the load
BLOCKED_FACTOR = 1.0
BLOCKED_GRACE_S = 0.5


def wall_backstop(cpu_s: float, factor: float = WALL_FACTOR, grace_s: float = WALL_GRACE_S) -> float:
    """The wall-clock backstop that goes with a CPU limit of `cpu_s` seconds."""
    return factor * cpu_s + grace_s


def backstop_in(limits: Mapping[str, Any], cpu_s: float) -> float:
    """The backstop for a CPU limit of `cpu_s` under the rule of a `Limits.to_dict()` (what the worker receives)."""
    return wall_backstop(cpu_s, float(limits.get("wall_factor", WALL_FACTOR)),
                         float(limits.get("wall_grace_s", WALL_GRACE_S)))


def blocked_budget(cpu_s: float, factor: float | None = BLOCKED_FACTOR, grace_s: float = BLOCKED_GRACE_S) -> float:
    """Seconds a test with a CPU limit of `cpu_s` may spend blocked (infinite when the budget is switched off)."""
    return math.inf if factor is None else factor * cpu_s + grace_s


def blocked_in(limits: Mapping[str, Any], cpu_s: float) -> float:
    """The blocked-time budget for a CPU limit of `cpu_s` under the rule of a `Limits.to_dict()`."""
    factor = limits.get("blocked_factor", BLOCKED_FACTOR)
    return blocked_budget(cpu_s, None if factor is None else float(factor),
                          float(limits.get("blocked_grace_s", BLOCKED_GRACE_S)))


@dataclass(frozen=True)
class Limits:
    """What one candidate may consume while its suite runs.

    `timeout_s` is the time limit per test in CPU seconds of the job's
    processes (every thread and child counts); a test may set its own
    (`cpu_limit_s` in the suite). Loading the candidate gets the same
    allowance. Each test also has a wall-clock backstop of
    `wall_factor x its CPU limit + wall_grace_s`, which ends programs that
    sleep, block or are stopped (`WallTimeLimit`, distinct from a CPU
    `CpuTimeLimit`). `memory_mb` is memory the job may add on top of the warm
    worker it was forked from: it bounds each process's address space growth
    (RLIMIT_AS) and, where a memory cgroup is writable, the whole job's
    process tree. `output_bytes` caps stdout and stderr of each job process;
    `result_bytes` caps one serialised return value. `suite_timeout_s`
    optionally caps the CPU seconds of the whole job (with its own backstop);
    tests not started by then fail as timeouts. Time in which no job task
    runs or waits for a CPU (sleeping, blocked, stopped) is charged against
    `blocked_factor x the CPU limit + blocked_grace_s` (`BlockedTimeLimit`), so
    blocked programs end near their limit instead of at the backstop;
    `blocked_factor=None` leaves them to the backstop. With
    `stop_after_timeout` the tests after one that timed out are not run
    (`NotRun`): a blocked or spinning program costs one limit, not one per test.
    """

    timeout_s: float = 5.0
    memory_mb: int = 512
    output_bytes: int = 1 * MIB
    result_bytes: int = 16 * MIB
    max_processes: int = 32
    max_open_files: int = 256
    file_bytes: int = 16 * MIB
    suite_timeout_s: float | None = None
    wall_factor: float = WALL_FACTOR
    wall_grace_s: float = WALL_GRACE_S
    blocked_factor: float | None = BLOCKED_FACTOR
    blocked_grace_s: float = BLOCKED_GRACE_S
    stop_after_timeout: bool = True

    def __post_init__(self) -> None:
        def positive(name: str, value: Any, kind: type) -> None:
            if isinstance(value, bool) or not isinstance(value, kind | int):
                raise ValueError(f"Limits.{name} must be a number, got {value!r}")
            if not math.isfinite(value) or value <= 0:
                raise ValueError(f"Limits.{name} must be positive and finite, got {value!r}")

        positive("timeout_s", self.timeout_s, float)
        for name in ("memory_mb", "output_bytes", "result_bytes", "max_processes", "max_open_files", "file_bytes"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(f"Limits.{name} must be an integer, got {value!r}")
            positive(name, value, int)
        if self.max_processes < 2:
            raise ValueError(f"Limits.max_processes must be at least 2, got {self.max_processes}")
        if self.max_open_files < 16:
            raise ValueError(f"Limits.max_open_files must be at least 16, got {self.max_open_files}")
        if self.suite_timeout_s is not None:
            positive("suite_timeout_s", self.suite_timeout_s, float)
        positive("wall_grace_s", self.wall_grace_s, float)
        positive("wall_factor", self.wall_factor, float)
        if self.wall_factor < 1:
            raise ValueError(f"Limits.wall_factor must be at least 1 (a backstop above the CPU limit), "
                             f"got {self.wall_factor!r}")
        if self.blocked_factor is not None:
            positive("blocked_factor", self.blocked_factor, float)
        grace = self.blocked_grace_s
        if isinstance(grace, bool) or not isinstance(grace, float | int) or not math.isfinite(grace) or grace < 0:
            raise ValueError(f"Limits.blocked_grace_s must be a finite number >= 0, got {grace!r}")
        if not isinstance(self.stop_after_timeout, bool):
            raise ValueError(f"Limits.stop_after_timeout must be True or False, got {self.stop_after_timeout!r}")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def cpu_s(self) -> float:
        """The default CPU limit per test (the same number as `timeout_s`, named for what it counts)."""
        return float(self.timeout_s)

    @property
    def wall_timeout_s(self) -> float:
        """The wall-clock backstop per test at the default CPU limit."""
        return self.wall_for(self.timeout_s)

    def wall_for(self, cpu_s: float) -> float:
        """The wall-clock backstop for a test whose CPU limit is `cpu_s`."""
        return wall_backstop(cpu_s, self.wall_factor, self.wall_grace_s)

    def blocked_for(self, cpu_s: float) -> float:
        """The blocked-time budget for a test whose CPU limit is `cpu_s` (inf when switched off)."""
        return blocked_budget(cpu_s, self.blocked_factor, self.blocked_grace_s)

    def job_budget_s(self, n_tests: int, cpu_limits: Sequence[float] | None = None) -> float:
        """Longest a job may take in the worker (wall clock): loading plus every test's backstop, or the suite's."""
        limits = list(cpu_limits) if cpu_limits is not None else [self.timeout_s] * n_tests
        budget = self.wall_for(self.timeout_s) + sum(self.wall_for(c) for c in limits)
        if self.suite_timeout_s is not None:
            budget = min(budget, self.wall_for(self.suite_timeout_s) + self.wall_for(self.timeout_s))
        return budget

    def describe(self) -> dict[str, Any]:
        """The time limits in force, as `check` and the dashboard show them."""
        suite = self.suite_timeout_s
        return {
            "cpu_s_per_test": self.cpu_s,
            "wall_backstop_s_per_test": self.wall_timeout_s,
            "wall_rule": f"{self.wall_factor:g} x CPU limit + {self.wall_grace_s:g} s",
            "suite_cpu_s": suite,
            "suite_wall_backstop_s": self.wall_for(suite) if suite is not None else None,
            "blocked_s_per_test": self.blocked_for(self.timeout_s) if self.blocked_factor is not None else None,
            "blocked_rule": (f"{self.blocked_factor:g} x CPU limit + {self.blocked_grace_s:g} s"
                             if self.blocked_factor is not None else "off: the wall-clock backstop alone"),
            "stop_after_timeout": self.stop_after_timeout,
        }
