"""Per-problem CPU limits from a reference solution: each test's limit = max(floor, FACTOR x the reference's CPU).

Why: a limit in CPU seconds does not move with the load on the machine, but a fixed
number still says nothing about how heavy a test is, and machines differ in speed. Where
a reference solution exists (HumanEval's canonical solutions; a user suite's
`reference`), it runs RUNS times against the very suite a candidate meets (same
protocol, same sandbox policy, this machine), and the median CPU it needed on each test,
times FACTOR, is that test's limit, unless below the floor: the benchmark's own timeout,
else the condition's `test_timeout_s` (default 5), read as CPU seconds. A test the
reference does not pass keeps the floor, and so do suites that are not the problem's own
tests (model-written tests, the smoke test).

A calibration is measured once per sandbox policy and suite and kept in
`<cache dir>/calibration/<policy>/<key>.json` (the key is a digest of the suite the
sandbox runs); the first measurement stored wins, so every process on the machine, a
trial and its rescore alike, uses the same limits. The limits a trial ran under are
recorded on every test result (`cpu_limit_s`) and in its grade step (`time_limits`).
"""

from __future__ import annotations

import hashlib
import json
import os
import statistics
import tempfile
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from execugraph.domain.json_types import JsonObject
from execugraph.domain.problem import Problem
from execugraph.grading.rules import GradingSettings, Suite, SuiteTest, build_suite, cpu_floor

if TYPE_CHECKING:
    from sandbox import Limits, SuiteResult

FACTOR = 4.0  # a candidate may need this many times the reference's CPU on a test (EvalPlus's default factor)
RUNS = 3  # reference runs per calibration; the median per test is kept
REFERENCE_HEADROOM = 4.0  # the reference itself runs with CPU limits of this many floors


@dataclass(frozen=True)
class Calibration:
    """The reference's CPU seconds on each test of one suite (None: it did not pass that test)."""

    reference_cpu_s: tuple[float | None, ...]  # median CPU seconds per test; None where the reference failed it
    reference_digest: str  # digest of the reference program measured (a changed reference is measured again)
    runs: int = RUNS  # how many runs the medians are over

    def to_dict(self) -> JsonObject:
        """The calibration as its cache file holds it."""
        return {"reference_cpu_s": list(self.reference_cpu_s), "reference_digest": self.reference_digest,
                "runs": self.runs}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Calibration:
        """A calibration read back from its cache file (KeyError/TypeError/ValueError when it is not one)."""
        cpu = tuple(float(v) if isinstance(v, int | float) else None for v in data["reference_cpu_s"])
        return cls(cpu, str(data["reference_digest"]), int(data.get("runs", RUNS)))


@dataclass(frozen=True)
class TimeLimits:
    """The CPU limit of every test of one suite, and where it comes from."""

    floor_s: float  # the CPU limit per test before calibration (`rules.cpu_floor`)
    cpu_s: tuple[float, ...]  # each test's CPU limit
    reference_cpu_s: tuple[float | None, ...] | None = None  # None: no reference was measured
    factor: float = FACTOR  # a test's limit is this many times the reference's CPU (at least the floor)

    @classmethod
    def of(cls, floor: float, n_tests: int, calibration: Calibration | None = None) -> TimeLimits:
        if calibration is None or len(calibration.reference_cpu_s) != n_tests:
            return cls(floor, (floor,) * n_tests)
        limits = tuple(floor if r is None else max(floor, FACTOR * r) for r in calibration.reference_cpu_s)
        return cls(floor, limits, calibration.reference_cpu_s)

    @property
    def calibrated(self) -> bool:
        return self.reference_cpu_s is not None

    def record(self) -> JsonObject:
        """What a trial records about its limits (its grade step's `time_limits`, a JSON column)."""
        out: JsonObject = {"cpu_floor_s": self.floor_s, "cpu_s": list(self.cpu_s), "calibrated": self.calibrated}
        if self.reference_cpu_s is not None:
            out.update(factor=self.factor, reference_cpu_s=[None if r is None else round(r, 6)
                                                            for r in self.reference_cpu_s])
        return out


def reference_program(problem: Problem) -> str | None:
    """The problem's reference solution: its own `reference`, else the one its benchmark's entry keeps, else None."""
    if problem.reference.strip():
        return problem.reference
    from execugraph.plugins import registry

    entry = registry().benchmarks.get(problem.benchmark)
    if entry is None or entry.reference is None:
        return None
    try:
        return entry.reference(problem.id)
    except (KeyError, LookupError, OSError):
        return None


def _digest(value: object) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=repr).encode("utf-8")).hexdigest()


class Calibrator:
    """Calibrations measured on this machine: remembered in process and in the cache directory."""

    def __init__(self, directory: Path | None = None) -> None:
        if directory is None:
            from execugraph.configuration.settings import load_settings

            directory = load_settings().cache_dir / "calibration"
        self.directory = Path(directory)
        self._memo: dict[str, Calibration] = {}
        self._lock = threading.Lock()
        self._measuring = threading.Lock()

    def _path(self, policy: str, key: str) -> Path:
        return self.directory / policy / f"{key}.json"

    def get(self, policy: str, key: str) -> Calibration | None:
        with self._lock:
            found = self._memo.get(key)
        if found is not None:
            return found
        try:
            found = Calibration.from_dict(json.loads(self._path(policy, key).read_text(encoding="utf-8")))
        except (OSError, ValueError, KeyError, TypeError):
            return None
        with self._lock:
            return self._memo.setdefault(key, found)

    def put(self, policy: str, key: str, calibration: Calibration, *, replace: bool = False) -> Calibration:
        """Store `calibration` unless one is already stored (then that one is returned): the first one wins."""
        path = self._path(policy, key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile("w", dir=path.parent, delete=False, suffix=".tmp") as fh:
                json.dump(calibration.to_dict(), fh)
            try:
                if replace:
                    os.replace(fh.name, path)
                else:
                    os.link(fh.name, path)  # fails when another process stored one first
            except FileExistsError:
                pass
            finally:
                if os.path.exists(fh.name):
                    os.unlink(fh.name)
        except OSError:
            with self._lock:
                return self._memo.setdefault(key, calibration)  # an unwritable cache: this process only
        with self._lock:
            self._memo.pop(key, None)
        return self.get(policy, key) or calibration


_default: Calibrator | None = None
_default_lock = threading.Lock()


def default_calibrator() -> Calibrator:
    """The process's calibrator on `<EXECUGRAPH_CACHE_DIR>/calibration` (a new one when that setting changes)."""
    from execugraph.configuration.settings import load_settings

    global _default
    directory = load_settings().cache_dir / "calibration"
    with _default_lock:
        if _default is None or _default.directory != directory:
            _default = Calibrator(directory)
        return _default


class _Plan(NamedTuple):
    """One suite to calibrate: its cache key, the suite, the reference (None: none, or not the problem's tests)."""

    key: str
    suite: Suite
    reference: str | None
    problem: Problem
    settings: GradingSettings


class _Todo(NamedTuple):
    """A reference to measure on one suite, under limits of its own."""

    reference: str
    suite: Suite
    limits: Limits
    digest: str  # of the reference program


def calibrate_many(pool: Any, items: Sequence[tuple[Problem, list[SuiteTest], GradingSettings]],
                   calibrator: Calibrator | None = None) -> list[TimeLimits]:
    """The time limits of each (problem, tests, settings), measuring references not measured yet in one batch."""
    from sandbox import POLICY_VERSION

    calibrator = calibrator or default_calibrator()
    policy = str(POLICY_VERSION)
    plans: list[_Plan] = []
    for problem, tests, settings in items:
        suite = build_suite(problem, tests, settings.protocol)
        own = bool(tests) and all(test in problem.tests for test in tests)  # model-written tests keep the floor
        reference = reference_program(problem) if own else None
        plans.append(_Plan(_digest([policy, suite]), suite, reference, problem, settings))
    if _unmeasured(calibrator, policy, plans):
        with calibrator._measuring:  # concurrent trials of one problem measure it once; the others wait for it
            _measure(pool, calibrator, policy, _unmeasured(calibrator, policy, plans))
    out = []
    for key, suite, _reference, problem, settings in plans:
        found = calibrator.get(policy, key)  # also without a reference at hand: measured earlier on this machine
        out.append(TimeLimits.of(cpu_floor(problem, settings), len(suite["tests"]), found))
    return out


def _unmeasured(calibrator: Calibrator, policy: str, plans: list[_Plan]) -> dict[str, _Todo]:
    """key -> (reference, suite, limits for the reference, its digest) for suites whose reference is not measured."""
    from sandbox import Limits

    todo: dict[str, _Todo] = {}
    for key, suite, reference, problem, settings in plans:
        if reference is None or key in todo:
            continue
        known = calibrator.get(policy, key)
        if known is None or known.reference_digest != _digest(reference):
            limits = Limits(timeout_s=REFERENCE_HEADROOM * cpu_floor(problem, settings), memory_mb=settings.memory_mb,
                            stop_after_timeout=False)  # every test measured
            todo[key] = _Todo(reference, suite, limits, _digest(reference))
    return todo


def _measure(pool: Any, calibrator: Calibrator, policy: str, todo: dict[str, _Todo]) -> None:
    """Run every reference RUNS times (in parallel) and store the median CPU per test it passed."""
    from sandbox import SuiteError

    jobs, owners = [], []
    for key, (reference, suite, limits, _ref) in todo.items():
        jobs += [(reference, suite, limits)] * RUNS
        owners += [key] * RUNS
    try:
        results = pool.run_many(jobs) if jobs and hasattr(pool, "run_many") else []
    except (SuiteError, ValueError):
        results = []  # a malformed suite: grading reports it; no calibration
    measured: dict[str, list[SuiteResult]] = {}
    for key, result in zip(owners, results, strict=False):
        measured.setdefault(key, []).append(result)
    for key, runs in measured.items():
        per_test = []
        for index in range(len(runs[0].tests)):
            passed = [r.tests[index].cpu_s for r in runs if r.tests[index].passed]
            per_test.append(statistics.median(passed) if passed else None)
        stale = calibrator.get(policy, key) is not None
        calibrator.put(policy, key, Calibration(tuple(per_test), todo[key].digest, len(runs)), replace=stale)


def calibrate(pool: Any, problem: Problem, tests: list[SuiteTest], settings: GradingSettings,
              calibrator: Calibrator | None = None) -> TimeLimits:
    """The time limits of one suite (see `calibrate_many`)."""
    return calibrate_many(pool, [(problem, tests, settings)], calibrator)[0]
