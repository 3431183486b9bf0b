"""One trial as something to read: its steps with timings and call costs, its code per attempt,
and where it first parted ways with another trial of the same problem."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import TYPE_CHECKING, NotRequired, TypedDict, cast

from execugraph.domain.json_types import JsonObject
from execugraph.domain.steps import StepOutput
from execugraph.grading.findings import findings_note, row_findings_text
from execugraph.grading.limit_use import closest, first_timeout, limit_use
from execugraph.store import trace_reads
from ui.views.formatting import duration, map_traceback

if TYPE_CHECKING:
    from execugraph.store import Store

OUTCOMES = trace_reads.OUTCOMES  # the trial picker's outcome filter: passed, failed, error, unfinished


class StepRow(TypedDict):
    """One step as the pages draw it: stored (`step_rows`) or streamed live (the Synthesize page's job)."""

    step_id: int | None
    seq: int
    node: str
    attempt: int
    output: StepOutput  # {} when nothing was recorded; see execugraph.domain.steps for what each node writes
    start_s: NotRequired[float]  # the timing and cost fields come from the store only
    duration_s: NotRequired[float | None]  # None: the step never ended
    llm_calls: NotRequired[int]
    tokens_in: NotRequired[int]
    tokens_out: NotRequired[int]
    latency_s: NotRequired[float]
    cache_hits: NotRequired[int]



def trial_filter_choices(store: Store, run_id: int) -> dict[str, list[str]]:
    """The conditions and problem ids occurring in a run, for the trial picker's filters."""
    conditions, problems = trace_reads.trial_filter_values(store, run_id)
    return {"condition": conditions, "problem": problems}


def step_rows(store: Store, trial_id: int) -> list[StepRow]:
    """The trial's steps in order with start offset and duration (seconds) and their LLM-call totals."""
    steps = store.steps_for_trial(trial_id)
    calls = trace_reads.call_totals_by_step(store, trial_id)
    origin = steps[0].started_at if steps else None
    rows = []
    for step in steps:
        n, t_in, t_out, latency, hits = calls.get(step.id, (0, 0, 0, 0.0, 0))
        ended = step.ended_at
        rows.append(
            StepRow(
                step_id=step.id,
                seq=step.seq,
                node=step.node,
                attempt=step.attempt,
                start_s=(step.started_at - origin).total_seconds() if origin else 0.0,
                duration_s=None if ended is None else max(0.0, (ended - step.started_at).total_seconds()),
                output=cast(StepOutput, dict(step.output or {})),
                llm_calls=n,
                tokens_in=t_in,
                tokens_out=t_out,
                latency_s=latency,
                cache_hits=hits,
            )
        )
    return rows


class CodeAttempt(TypedDict):
    """One program a trial produced, as the Trace page lists them."""

    label: str  # "attempt N (step S, reason)", or "<node> candidate (step S, accepted|rejected)"
    code: str  # the program
    seq: int  # the step that wrote it


def code_attempts(steps: list[StepRow]) -> list[CodeAttempt]:
    """Every program the trial produced, in order: each attempt (a generator's) and each candidate (an optimizer's).

    Which steps write code, and whether it replaces the program, is the node's registration (`NodeSpec.writes`).
    """
    from execugraph.agents.nodes import written_code  # the agents' registry (LangGraph): not before Trace's header

    attempts = []
    for step in steps:
        written = written_code(step["node"], step.get("output") or {})
        if written is None or not written.code:
            continue
        kind = f"attempt {step['attempt']}" if written.replaces else f"{step['node']} candidate"
        attempts.append(CodeAttempt(label=f"{kind} (step {step['seq']}, {written.note})", code=written.code,
                                    seq=step["seq"]))
    return attempts


def program_after(step: StepRow, before: str) -> str:
    """The trial's program after `step`: what it wrote when that replaces the program, else `before`."""
    from execugraph.agents.nodes import written_code

    written = written_code(step["node"], step.get("output") or {})
    if written is None or not written.replaces or written.code is None:
        return before
    return written.code


def code_diff(before: str, after: str, before_name: str = "before", after_name: str = "after") -> str:
    """A unified diff of two programs ('' when they are identical)."""
    lines = difflib.unified_diff(
        before.splitlines(keepends=True), after.splitlines(keepends=True), before_name, after_name, lineterm=""
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


@dataclass(frozen=True)
class Divergence:
    """Where two trials of one problem first differ: the position in both step lists and why."""

    index: int
    reason: str
    seq_a: int | None
    seq_b: int | None


def first_divergence(steps_a: list[StepRow], steps_b: list[StepRow]) -> Divergence | None:
    """The first step at which two trials differ in agent, or in an output that steers the workflow."""
    from execugraph.agents.nodes import trace_of

    for index, (a, b) in enumerate(zip(steps_a, steps_b, strict=False)):
        if a["node"] != b["node"]:
            return Divergence(index, f"different agent: {a['node']} vs {b['node']}", a["seq"], b["seq"])
        out_a, out_b = a.get("output") or {}, b.get("output") or {}
        shown = trace_of(a["node"])  # the node's registered signature: the parts that steer the workflow
        if shown.signature(out_a) != shown.signature(out_b):
            if shown.differs is not None:
                reason = f"{a['node']} {shown.differs}"
            else:
                reason = f"{a['node']}: {shown.describe(out_a)} vs {shown.describe(out_b)}"
            return Divergence(index, reason, a["seq"], b["seq"])
    if len(steps_a) != len(steps_b):
        index = min(len(steps_a), len(steps_b))
        longer, extra = ("first", steps_a[index]) if len(steps_a) > len(steps_b) else ("second", steps_b[index])
        seq_a = steps_a[index]["seq"] if index < len(steps_a) else None
        seq_b = steps_b[index]["seq"] if index < len(steps_b) else None
        return Divergence(index, f"the {longer} trial goes on with {extra['node']}", seq_a, seq_b)
    return None


def sibling_trials(store: Store, trial_id: int, *, limit: int = 100) -> list[trace_reads.TrialRow]:
    """Other finished trials of the same problem (any run): opposite outcome first, then same run, newest first."""
    trial = store.get_trial(trial_id)
    if trial is None:
        raise LookupError(f"trial {trial_id} does not exist")
    return trace_reads.sibling_trial_rows(store, trial, limit=limit)


_RESULT_COLUMNS = ("name", "passed", "call", "expr", "expected", "got", "actual", "error_class", "error", "duration_s",
                   "cpu_s", "limit_used", "cpu_limit_s", "wall_limit_s")
_SECONDS = ("duration_s", "cpu_s", "cpu_limit_s", "wall_limit_s")


def test_result_rows(results: list[JsonObject], program: str = "") -> list[dict[str, str]]:
    """Per-test sandbox results as display rows: known columns first, every value as text (tables need one type).

    Wall (`duration_s`) and CPU seconds and the test's CPU limit and wall-clock backstop read as ms/s, with the
    share of the nearer limit it used (`limit_used`); a traceback's line numbers refer to `program` as shown
    (see `map_traceback`).
    """
    rows = []
    for result in results:
        use = limit_use(result)
        if use is not None:
            result = {**result, "limit_used": f"{use.share:.0%} of {'CPU' if use.kind == 'CPU' else 'wall backstop'}"}
        ordered = [k for k in _RESULT_COLUMNS if k in result] + sorted(k for k in result if k not in _RESULT_COLUMNS)
        row = {}
        for key in ordered:
            value = result[key]
            if key == "passed":
                row[key] = "yes" if value is True else "no"
            elif key == "findings":
                row[key] = row_findings_text(value)  # built from the names, never the record's own text
            elif key in _SECONDS and isinstance(value, int | float) and not isinstance(value, bool):
                row[key] = duration(float(value))
            elif key == "stderr" and isinstance(value, str):
                row[key] = map_traceback(value, program)
            else:
                text = value if isinstance(value, str) else repr(value)
                row[key] = text if len(text) <= 300 else text[:297] + "..."
        rows.append(row)
    return rows


def unparsed_reply(step: StepRow) -> str | None:
    """Why an agent's reply was not used as written (None when it was), so a default is never shown as a finding."""
    from execugraph.agents.nodes import trace_of

    return trace_of(step.get("node", "")).unparsed(step.get("output") or {})


def raw_reply(store: Store, step_id: int | None) -> str:
    """The model's last reply within a step, exactly as it was received ('' when the step made no call)."""
    if step_id is None:
        return ""
    calls = store.llm_calls_for_step(step_id)
    return calls[-1].response if calls else ""


def _span(values: list[float]) -> str:
    return f"{values[0]:g} s" if len(values) == 1 else f"{values[0]:g}-{values[-1]:g} s"


def time_limits_note(results: list[JsonObject]) -> str | None:
    """One sentence on a grading execution's time limits and how near the program came to them (None: none recorded).

    The limits are CPU seconds per test, with a wall-clock backstop; executions from before CPU limits
    recorded neither, so there is nothing to say about them.
    """
    measured = [r for r in results if limit_use(r) is not None]
    if not measured:
        return None
    cpu = sorted({float(r["cpu_limit_s"]) for r in measured if r.get("cpu_limit_s")})
    wall = sorted({float(r["wall_limit_s"]) for r in measured if r.get("wall_limit_s")})
    text = f"Time limits: {_span(cpu)} CPU per test, wall-clock backstop {_span(wall)}."
    stopped = first_timeout(measured)
    if stopped is not None:
        kind = {"CpuTimeLimit": "its CPU limit", "SuiteTimeLimit": "the suite's limit",
                "BlockedTimeLimit": "its blocked-time budget (it slept or waited instead of computing)"}.get(
            str(stopped.get("error_class")), "the wall-clock backstop")
        return f"{text} Test {stopped.get('name')!r} was stopped by {kind} ({stopped.get('got', '')})."
    use = closest(measured)
    if use is not None:
        text += f" Closest: {use.text()}" + (" — near the limit, a fragile verdict." if use.share >= 0.8 else ".")
    return text


def trial_findings(store: Store, trial_id: int) -> str | None:
    """`findings_note` of the trial's last grading execution (else its last feedback one): e.g. that the program
    redefines builtins the tests call, which a with-prompt verdict does not show by itself."""
    executions = store.executions_for_trial(trial_id)
    graded = [e for e in executions if e.purpose == "grading"] or [e for e in executions if e.purpose == "feedback"]
    return findings_note(list(graded[-1].results or [])) if graded else None


def trial_time_limits(store: Store, trial_id: int) -> str | None:
    """`time_limits_note` of the trial's last grading execution (else its last feedback one, which a grade reused)."""
    executions = store.executions_for_trial(trial_id)
    graded = [e for e in executions if e.purpose == "grading"] or [e for e in executions if e.purpose == "feedback"]
    return time_limits_note(list(graded[-1].results or [])) if graded else None
