"""Two trials of one problem side by side by what users compare: the program each ended with, each attempt
against the same-numbered attempt, and each trial's verdict under every verdict set its run has.

The first divergence says where two workflows parted, but it may be at the reviewer or the
evaluator, where no code was written; so the code shown comes from here instead. Imported and
rescored trials have no generator steps (no step of a node registered as writing code): their recorded
program is their final code and their only attempt. Testable without Streamlit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from execugraph.agents.nodes import WrittenCode, written_code
from execugraph.domain.json_types import JsonObject
from execugraph.domain.steps import RECORD_NODE
from execugraph.store import run_reads
from ui.views.trace import code_diff

if TYPE_CHECKING:
    from execugraph.store import Store, Trial
    from ui.views.trace import StepRow

AS_RUN, PUBLISHED = "as run", "published"
RECORDED = "recorded"  # an imported or rescored trial's one attempt: the program it recorded


@dataclass(frozen=True)
class Attempt:
    """One program a trial wrote: its attempt number (1-based), why it was written, the code."""

    number: int
    reason: str  # initial, retry, revise; RECORDED for an imported or rescored trial's program
    code: str


@dataclass(frozen=True)
class AttemptPair:
    """Attempt `number` of both trials; None where that trial has no such attempt."""

    number: int
    a: Attempt | None
    b: Attempt | None

    def diff(self, name_a: str = "a", name_b: str = "b") -> str:
        """The unified diff from a's attempt to b's ('' when identical, or when one side lacks it)."""
        if self.a is None or self.b is None:
            return ""
        return code_diff(self.a.code, self.b.code, f"{name_a} attempt {self.number}", f"{name_b} attempt {self.number}")


@dataclass(frozen=True)
class Verdict:
    """A trial's verdict under one verdict set: the published or as-run one, or one rescore child's."""

    label: str  # "published" / "as run", else the rescore's grading protocol
    text: str  # "passed", "failed (AssertionError)", "not rescored", ...
    run_id: int
    trial_id: int | None  # the trial holding this verdict (None: the rescore left this trial out)


@dataclass(frozen=True)
class Comparison:
    """Everything the Compare panel draws besides the steps: final programs, their diff, attempts, verdicts."""

    final_a: str
    final_b: str
    final_diff: str
    attempts: list[AttemptPair]
    verdicts_a: list[Verdict]
    verdicts_b: list[Verdict]


def has_agent_steps(steps: Sequence[StepRow]) -> bool:
    """Whether the trial has steps to line up with another's (an imported trial has only its record)."""
    return any(s["node"] != RECORD_NODE for s in steps)


def _written(steps: Sequence[StepRow]) -> list[WrittenCode]:
    """The programs the steps wrote that became the trial's program (each node's `NodeSpec.writes` says)."""
    found = (written_code(s["node"], s.get("output") or {}) for s in steps)
    return [w for w in found if w is not None and w.replaces]


def attempts(trial: Trial, steps: Sequence[StepRow]) -> list[Attempt]:
    """Each program-writing step's program (a generator's), numbered from 1; without one, the recorded code as 1."""
    made = _written(steps)
    if made:
        return [Attempt(n, str(w.note or "initial"), str(w.code or "")) for n, w in enumerate(made, 1)]
    return [Attempt(1, RECORDED, trial.final_code)] if trial.final_code else []


def final_code(trial: Trial, steps: Sequence[StepRow]) -> str:
    """The last program the trial produced: its recorded final code (what was graded, an accepted optimizer
    candidate included), else its last generator step's code ('' when it wrote none)."""
    if trial.final_code:
        return trial.final_code
    written = [a.code for a in attempts(trial, steps) if a.code]
    return written[-1] if written else ""


def align_attempts(a: Sequence[Attempt], b: Sequence[Attempt]) -> list[AttemptPair]:
    """Attempts paired by number (1 with 1, ...), up to the larger count; a missing side is None."""
    by_a, by_b = {x.number: x for x in a}, {x.number: x for x in b}
    numbers = sorted(set(by_a) | set(by_b))
    return [AttemptPair(n, by_a.get(n), by_b.get(n)) for n in numbers]


def verdict_text(passed: bool | None, error_class: str | None, status: str | None = "done") -> str:
    """'passed', 'failed (ErrorClass)', 'failed', or why there is no verdict (the status, or 'not graded')."""
    if passed is True:
        return "passed"
    if passed is False:
        return f"failed ({error_class})" if error_class not in (None, "", "none") else "failed"
    return "not graded" if status in (None, "done") else str(status)


def _rescore_label(config: JsonObject, fallback: str) -> str:
    """A rescore child named by the grading protocol its config records (see `verdicts.earlier_rescore`)."""
    summary = config.get("rescore")
    summary = summary if isinstance(summary, dict) else {}
    protocol = summary.get("grading_protocol")
    label = protocol if isinstance(protocol, str) and protocol else fallback
    if summary.get("tests") == "current":
        label += " (current tests)"
    return label


def verdict_sets(store: Store, trial: Trial) -> list[Verdict]:
    """The trial's verdict as run (or as published, for an imported run), then under each rescore of its run,
    oldest first; a trial that is itself a rescore's is looked up in its parent and siblings by its key."""
    family = run_reads.rescore_family(store, trial.run_id)
    if family is None:
        return [Verdict(AS_RUN, verdict_text(trial.passed, trial.error_class, trial.status), trial.run_id, trial.id)]
    root, children = family
    headers = run_reads.run_kinds_and_configs(store, [root, *children])
    key = (trial.problem_id, trial.condition, trial.seed, trial.trial_index)
    out: list[Verdict] = []
    seen: dict[str, int] = {}
    for run_id in [root, *sorted(children)]:
        kind, config = headers.get(run_id, ("", {}))
        if run_id == root:
            label = PUBLISHED if kind == "import" else AS_RUN
        else:
            label = _rescore_label(config, "rescore")
        seen[label] = seen.get(label, 0) + 1
        if seen[label] > 1:
            label = f"{label} (run {run_id})"
        found = trial if run_id == trial.run_id else store.find_trial(run_id, *key)
        if found is None:
            text = "not rescored" if run_id != root else "not in this run"
            out.append(Verdict(label, text, run_id, None))
        else:
            out.append(Verdict(label, verdict_text(found.passed, found.error_class, found.status), run_id, found.id))
    return out


def verdict_line(verdicts: Sequence[Verdict]) -> str:
    """'published: failed (AssertionError) · standalone: passed' (plain text: escape it where it is rendered)."""
    return " · ".join(f"{v.label}: {v.text}" for v in verdicts)


def compare(store: Store, a: Trial, steps_a: Sequence[StepRow], b: Trial, steps_b: Sequence[StepRow]) -> Comparison:
    """What the Compare panel shows of trials a and b besides their steps."""
    final_a, final_b = final_code(a, steps_a), final_code(b, steps_b)
    return Comparison(
        final_a=final_a,
        final_b=final_b,
        final_diff=code_diff(final_a, final_b, f"trial {a.id} (final)", f"trial {b.id} (final)"),
        attempts=align_attempts(attempts(a, steps_a), attempts(b, steps_b)),
        verdicts_a=verdict_sets(store, a),
        verdicts_b=verdict_sets(store, b),
    )
