"""Resource limits for one sandbox job, validated once so the worker can trust them."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

MIB = 1 << 20
CODE_FILE_MAX_BYTES = 1 * MIB  # a program read from a file (`python -m sandbox check --code`)
SUITE_FILE_MAX_BYTES = 16 * MIB  # a suite JSON file (`--tests`, `load_suite_file`)


@dataclass(frozen=True)
class Limits:
    """What one candidate may consume while its suite runs.

    `timeout_s` is wall-clock time per test (loading the candidate gets the same
    allowance). `memory_mb` is memory the job may add on top of the warm
    worker it was forked from: it bounds each process's address space growth
    (RLIMIT_AS) and, where a memory cgroup is writable, the whole job's
    process tree. `output_bytes` caps stdout and stderr of each job process;
    `result_bytes` caps one serialised return value. `suite_timeout_s`
    optionally caps the whole job; tests not started by then fail as timeouts.
    """

    timeout_s: float = 5.0
    memory_mb: int = 512
    output_bytes: int = 1 * MIB
    result_bytes: int = 16 * MIB
    max_processes: int = 32
    max_open_files: int = 256
    file_bytes: int = 16 * MIB
    suite_timeout_s: float | None = None

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

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def job_budget_s(self, n_tests: int) -> float:
        """Longest a job may take in the worker: loading plus every test, or the suite cap."""
        budget = self.timeout_s * (n_tests + 1)
        if self.suite_timeout_s is not None:
            budget = min(budget, self.suite_timeout_s + self.timeout_s)
        return budget
