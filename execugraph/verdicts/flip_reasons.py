"""Why a rescored verdict differs from the recorded one, in words a reader can check.

A flip is only informative with its cause: the tests changed (n then, m now), the grading
protocol changed, the sandbox policy changed (a module the old harness refused), a
timeout (which limit ended it, CPU or the wall-clock backstop, and how much of its limit
the program used on the other side), a published trial that was never graded, a custom
judge we do not have. `explain` lists every cause that applies, most telling first;
when none does, it says the program behaved differently under identical grading.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from execugraph.domain.json_types import JsonObject
from execugraph.grading.limit_use import closest, first_timeout, limit_use, timeout_kind

_REFUSED_IMPORT = re.compile(
    r"(import of \S+ is not allowed|ModuleNotFoundError[^\n]*|ImportError[^\n]*|not allowed[^\n]*import[^\n]*)"
)
UNKNOWN_PROTOCOL = "unknown"
# The words every table and report shows for a cause `explain` gives (the causes are named here and only here).
CAUSE_LABELS = {
    "not_graded_then": "never graded then",
    "suite_changed": "suite differs",
    "protocol_changed": "protocol differs",
    "policy_changed": "sandbox policy changed",
    "timeout": "timeout",
    "custom_judge": "custom judge not published",
    "unexplained": "unexplained",
}


@dataclass(frozen=True)
class Cause:
    """One reason a verdict can have flipped."""

    cause: str  # its code (a key of CAUSE_LABELS)
    detail: str  # the reason in words, with the numbers that make it checkable


@dataclass
class Recorded:
    """What a trial's record says about how it was graded."""

    passed: bool
    error_class: str | None
    tests_total: int
    suite_digest: str | None
    protocol: str  # a protocol name, or UNKNOWN_PROTOCOL for published logs that do not say
    policy: str | None  # sandbox policy of its grading execution, None when there was none
    stderr: str = ""
    test_source: str | None = None
    results: list[JsonObject] = field(default_factory=list)  # per-test results of its grading execution (stored)
    source_words: str | None = None  # what the original harness file said of this sample (untrusted, bounded)


@dataclass
class Regraded:
    """How the rescore graded it."""

    passed: bool
    error_class: str | None
    tests_total: int
    suite_digest: str
    protocol: str
    protocol_applies: bool  # the problem has a prompt preamble, so protocols can differ
    policy: str
    suite_matches: bool  # the suite is the one the trial recorded (by digest)
    custom_judge_tests: int = 0
    timeout_s: float | None = None  # the CPU limit per test before calibration
    causes: list[Cause] = field(default_factory=list)
    results: list[JsonObject] = field(default_factory=list)  # per-test results of the rescore (as the sandbox gave)


def _suite_cause(then: Recorded, now: Regraded) -> str | None:
    if then.suite_digest:
        if now.suite_matches:
            return None
        if then.tests_total and then.tests_total != now.tests_total:
            return f"the suite differs from the one recorded ({then.tests_total} tests then, {now.tests_total} now)"
        return f"the suite differs from the one recorded (same count, {now.tests_total} tests, different tests)"
    if then.tests_total and then.tests_total != now.tests_total:
        return f"the suite differs from the one recorded ({then.tests_total} tests then, {now.tests_total} now)"
    return None


def _protocol_cause(then: Recorded, now: Regraded) -> str | None:
    if not now.protocol_applies:
        return None
    if then.protocol == UNKNOWN_PROTOCOL:
        return f"graded now under {now.protocol}; the record does not say which protocol graded it then"
    if then.protocol != now.protocol:
        return f"the grading protocol differs ({then.protocol} then, {now.protocol} now)"
    return None


def _policy_cause(then: Recorded, now: Regraded) -> str | None:
    if then.policy is None or then.policy == now.policy:
        return None
    detail = f"the sandbox policy changed ({then.policy} then, {now.policy} now)"
    refused = _REFUSED_IMPORT.search(then.stderr or "")
    if refused and (now.passed or now.error_class != then.error_class):
        detail += f": the old harness refused a module ({refused.group(0).strip()[:160]})"
    return detail


def _stopped(results: list[JsonObject], fallback_s: float | None) -> str:
    """Which limit ended the timed-out test, and how much of its CPU it had used."""
    test = first_timeout(results)
    if test is None:
        limit = f" of {fallback_s:g} s per test" if fallback_s else ""
        return f"under a wall-clock limit{limit}, which load on the machine can exceed"
    name, kind = test.get("name") or "?", timeout_kind(test)
    use = limit_use(test)
    cpu, cpu_limit = float(test.get("cpu_s") or 0.0), float(test.get("cpu_limit_s") or 0.0)
    if kind == "cpu" and use is not None:
        return (f"test {name!r} ran out of its {cpu_limit:g} s CPU limit (used {cpu:.3g} s, "
                f"{cpu - cpu_limit:+.2g} s over)")
    if kind == "wall" and use is not None:
        return (f"test {name!r} was ended by the {float(test.get('wall_limit_s') or 0):g} s wall-clock backstop "
                f"having used {cpu:.3g} s of its {cpu_limit:g} s CPU limit (it slept, blocked or got little CPU)")
    if kind == "suite":
        return f"the suite's time limit ran out at test {name!r}"
    if kind == "blocked":
        return (f"test {name!r} spent its blocked-time budget sleeping or waiting (not computing) having used "
                f"{cpu:.3g} s of its {cpu_limit:g} s CPU limit")
    limit = f" of {fallback_s:g} s per test" if fallback_s else ""
    return f"test {name!r} hit a wall-clock limit{limit}, which load on the machine can exceed"


def _used(results: list[JsonObject]) -> str | None:
    """How close the program came to a limit when it did not time out."""
    use = closest(results)
    if use is not None:
        return use.text()
    slowest = max((float(t["duration_s"]) for t in results if isinstance(t.get("duration_s"), int | float)),
                  default=None)
    return None if slowest is None else f"its slowest test took {slowest:.3g} s of wall clock"


def _timeout_cause(then: Recorded, now: Regraded) -> str | None:
    if "timeout" not in (then.error_class, now.error_class):
        return None
    if now.error_class == "timeout":
        text = f"a timeout now: {_stopped(now.results, now.timeout_s)}"
        other = None if then.error_class == "timeout" else _used(then.results)
        return text + (f"; then {other}" if other else "")
    text = f"a timeout then: {_stopped(then.results, now.timeout_s)}"
    other = _used(now.results)
    return text + (f"; now {other}" if other else "")


SOURCE_QUOTE_CHARS = 160  # a quoted source verdict in a flip reason is at most this long


def quote(text: str, limit: int = SOURCE_QUOTE_CHARS) -> str:
    """A source's words as one bounded, quoted line: shown as data wherever the reason goes (writers escape it)."""
    flat = " ".join(str(text).split())
    return '"' + (flat if len(flat) <= limit else flat[: limit - 3] + "...") + '"'


def _cpu_here(results: list[JsonObject]) -> str:
    used = [float(t["cpu_s"]) for t in results if isinstance(t.get("cpu_s"), int | float)]
    return f" in {sum(used):.2g} s CPU" if used else ""


def _failure_here(now: Regraded) -> str:
    """Our own failure in our words: the verdict and the first failing test's status and detail."""
    test = next((t for t in now.results if not t.get("passed")), None)
    words = now.error_class or "failed"
    if test is not None:
        detail = " ".join(str(test.get("detail") or test.get("message") or "").split())[:SOURCE_QUOTE_CHARS]
        name = f" test {test.get('name')!r}" if test.get("name") else ""
        status = test.get("status") or "failed"
        words += f" ({name.strip() or 'a test'}: {status}" + (f", {detail}" if detail else "") + ")"
    return words


def source_lead(then: Recorded, now: Regraded) -> str | None:
    """The flip in the original harness's own words beside ours, e.g. `timed out in the original environment
    ("timed out"); passes here in 0.2 s CPU`; None when the source said nothing of the sample."""
    if not (then.source_words or "").strip() or then.passed == now.passed:
        return None
    said = quote(then.source_words or "")
    if then.passed:
        return f"passed in the original ({said}); fails here: {_failure_here(now)}"
    where = "timed out in the original environment" if then.error_class == "timeout" else "failed in the original"
    return f"{where} ({said}); passes here{_cpu_here(now.results)}"


def explain(then: Recorded, now: Regraded) -> list[Cause]:
    """Every cause that can account for the two verdicts differing (`cause` code, `detail` text)."""
    causes: list[Cause] = []
    if then.test_source == "none" or (then.policy is None and not then.tests_total and not then.passed):
        source = f", recorded test source {then.test_source!r}" if then.test_source else ""
        causes.append(Cause("not_graded_then",
                            f"the recorded trial was never graded (it ended before any test ran{source})"))
    for code, finder in (
        ("suite_changed", _suite_cause),
        ("protocol_changed", _protocol_cause),
        ("policy_changed", _policy_cause),
        ("timeout", _timeout_cause),
    ):
        detail = finder(then, now)
        if detail:
            causes.append(Cause(code, detail))
    if now.custom_judge_tests:
        causes.append(Cause("custom_judge", f"{now.custom_judge_tests} test(s) had a custom judge "
                            "in the published harness, which is not published; compared exactly here"))
    if not causes:
        causes.append(Cause("unexplained", "same tests, protocol and sandbox policy: the program "
                            "behaved differently (nondeterministic, or bound by time or memory)"))
    return causes


def reason_text(causes: Sequence[Cause]) -> str:
    """The causes as one sentence for tables and the terminal."""
    return "; ".join(c.detail for c in causes)
