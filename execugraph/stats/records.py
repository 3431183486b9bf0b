"""Plain trial records and per-arm aggregates: the only inputs the statistics engine needs.

The engine works on these small structures rather than ORM rows so that the same
arithmetic serves the SQL loader (which fills the aggregates with GROUP BY queries),
imported fixtures and hand-written test cases.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any

UNCATEGORISED = "uncategorised"
UNKNOWN = "unknown"
# Trials that count, as in the store's run summary: finished normally or crashed.
# A crashed trial (status "error": model unreachable, call timed out) counts as a
# failure, so a condition cannot look better by crashing; queued, running and
# cancelled trials are left out and reported as `not_counted`.
COUNTED_STATUSES = ("done", "error")
ERRORED = "trial-error"  # error class of a crashed trial that recorded none


@dataclass(frozen=True)
class TrialRecord:
    """One trial, reduced to the fields the statistics use."""

    run_id: str
    problem_id: str
    category: str | None
    condition: str | None
    seed: int
    trial_index: int
    passed: bool | None
    error_class: str | None = None
    retries_used: int = 0
    wallclock_s: float | None = None
    tokens_in: int | None = None
    tokens_out: int | None = None
    llm_calls: int | None = None
    test_source: str | None = None
    feedback_source: str | None = None
    status: str = "done"
    samples_total: int | None = None  # best-of-N trials: samples drawn (from the grade step)
    samples_passed: int | None = None  # ... and how many of them passed
    benchmark: str | None = None  # the suite the problem comes from (pairs across suites are not comparable)

    @property
    def counted(self) -> bool:
        """Whether the trial enters the statistics (see COUNTED_STATUSES)."""
        return self.status in COUNTED_STATUSES

    @property
    def failure_class(self) -> str:
        """Error class of a failed trial: the recorded one, else `trial-error` for a crash, else `unknown`."""
        return self.error_class or (ERRORED if self.status == "error" else UNKNOWN)


RECORD_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(TrialRecord))
_REQUIRED = ("run_id", "problem_id")


def to_record(item: Mapping[str, Any] | Any, *, position: int | None = None) -> TrialRecord:
    """Accept a dict, a dataclass or any object with the record's attributes.

    A missing required field raises ValueError naming the field (and the item's
    position when given), so a bad fixture or import says what is wrong.
    """
    if isinstance(item, TrialRecord):
        return item
    get = item.get if isinstance(item, Mapping) else (lambda name, default=None: getattr(item, name, default))
    where = f"record {position}: " if position is not None else ""
    for name in _REQUIRED:
        if get(name, None) is None:
            raise ValueError(f"{where}missing required field {name!r}")
    values = {name: get(name, None) for name in RECORD_FIELDS}
    values["status"] = str(values["status"] or "done")
    if values["status"] == "done" and values["passed"] is None:
        raise ValueError(f"{where}missing required field 'passed' (status is 'done')")
    values["run_id"] = str(values["run_id"])
    values["problem_id"] = str(values["problem_id"])
    values["passed"] = None if values["passed"] is None else bool(values["passed"])
    values["seed"] = int(values["seed"] or 0)
    values["trial_index"] = int(values["trial_index"] or 0)
    values["retries_used"] = int(values["retries_used"] or 0)
    for name in ("samples_total", "samples_passed"):
        values[name] = None if values[name] is None else int(values[name])
    return TrialRecord(**values)


def to_records(items: Iterable[Mapping[str, Any] | Any]) -> list[TrialRecord]:
    """Convert many items with `to_record`, numbering them from 1 in error messages."""
    return [to_record(item, position=i) for i, item in enumerate(items, start=1)]


@dataclass
class ProblemTally:
    """Trials and passes of one problem within one arm."""

    problem_id: str
    category: str
    trials: int = 0
    passed: int = 0

    @property
    def rate(self) -> float:
        """Per-problem pass rate over its trials (0.0 for a problem with no trials)."""
        return self.passed / self.trials if self.trials else 0.0


@dataclass
class Tally:
    """A trials/passed pair, used for breakdowns (test source, retries used, ...)."""

    trials: int = 0
    passed: int = 0

    @property
    def rate(self) -> float:
        return self.passed / self.trials if self.trials else 0.0


@dataclass
class CostColumns:
    """Per-trial cost values of one arm, kept as plain lists (None = not recorded)."""

    wallclock_s: list[float | None] = field(default_factory=list)
    tokens_in: list[int | None] = field(default_factory=list)
    tokens_out: list[int | None] = field(default_factory=list)
    llm_calls: list[int | None] = field(default_factory=list)
    problem_ids: list[str] = field(default_factory=list)  # the problem of each trial (for paired cost differences)
    # Model time (summed LLM call seconds) per trial and its problem: loaded only for `--cost model-time`
    model_time_s: list[float | None] = field(default_factory=list)
    model_time_problems: list[str] = field(default_factory=list)


@dataclass
class ArmData:
    """Everything the report needs about one arm (a run, or one condition of a run).

    Filled either from records (`arm_from_records`) or by SQL aggregates in
    `loading.py`; both paths must give equal objects for equal data.
    """

    label: str
    run_id: str
    condition: str | None
    retry_budget: int | None = None
    best_of_n: int = 1
    name: str = ""  # how people see the arm (execugraph.domain.run_names); `label` is the stable key
    model: str | None = None  # the generator's model spec, when the run recorded it
    benchmarks: set[str] = field(default_factory=set)  # benchmarks of its counted trials ('' = not recorded)
    tallies: dict[str, ProblemTally] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    test_sources: dict[str, Tally] = field(default_factory=dict)
    feedback_sources: dict[str, Tally] = field(default_factory=dict)
    retries_used: dict[int, Tally] = field(default_factory=dict)
    costs: CostColumns = field(default_factory=CostColumns)
    not_counted: dict[str, int] = field(default_factory=dict)  # status -> trials left out of every rate
    errored: int = 0  # counted trials that ended in an error (never graded; they count as failures here)
    samples: dict[tuple[int, int], int] = field(default_factory=dict)  # (drawn, passed) -> best-of-N trials
    problem_samples: dict[str, tuple[int, int]] = field(default_factory=dict)  # problem -> (drawn, passed), summed

    @property
    def trials(self) -> int:
        return sum(t.trials for t in self.tallies.values())

    @property
    def passed(self) -> int:
        return sum(t.passed for t in self.tallies.values())


def _bump(table: dict, key: Any, passed: bool) -> None:
    tally = table.setdefault(key, Tally())
    tally.trials += 1
    tally.passed += int(passed)


def arm_from_records(
    records: Iterable[TrialRecord],
    *,
    label: str,
    run_id: str,
    condition: str | None = None,
    retry_budget: int | None = None,
    best_of_n: int = 1,
    name: str = "",
    model: str | None = None,
) -> ArmData:
    """Aggregate the records of one arm (callers filter by run/condition first).

    Records whose status is not counted only appear in `not_counted`.
    """
    arm = ArmData(
        label=label,
        run_id=run_id,
        condition=condition,
        retry_budget=retry_budget,
        best_of_n=best_of_n,
        name=name or label,
        model=model,
    )
    for rec in records:
        if not rec.counted:
            arm.not_counted[rec.status] = arm.not_counted.get(rec.status, 0) + 1
            continue
        passed = rec.passed is True
        arm.benchmarks.add(rec.benchmark or "")
        tally = arm.tallies.get(rec.problem_id)
        if tally is None:
            tally = arm.tallies[rec.problem_id] = ProblemTally(rec.problem_id, rec.category or UNCATEGORISED)
        tally.trials += 1
        tally.passed += int(passed)
        arm.errored += int(rec.status == "error")
        if not passed:
            arm.errors[rec.failure_class] = arm.errors.get(rec.failure_class, 0) + 1
        _bump(arm.test_sources, rec.test_source or UNKNOWN, passed)
        _bump(arm.feedback_sources, rec.feedback_source or UNKNOWN, passed)
        _bump(arm.retries_used, rec.retries_used, passed)
        arm.costs.wallclock_s.append(rec.wallclock_s)
        arm.costs.tokens_in.append(rec.tokens_in)
        arm.costs.tokens_out.append(rec.tokens_out)
        arm.costs.llm_calls.append(rec.llm_calls)
        arm.costs.problem_ids.append(rec.problem_id)
        if best_of_n > 1 and rec.samples_total:
            key = (rec.samples_total, rec.samples_passed or 0)
            arm.samples[key] = arm.samples.get(key, 0) + 1
            drawn, won = arm.problem_samples.get(rec.problem_id, (0, 0))
            arm.problem_samples[rec.problem_id] = (drawn + key[0], won + key[1])
    return arm
