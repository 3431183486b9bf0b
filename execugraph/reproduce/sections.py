"""A run of a reproduction as typed records: its pass rate as published and under each protocol, its flips.

`study` builds them, `report_tables` tabulates them and `as_dict` writes them into
reproduce.json (key for key what the file has always held), so the tables and the file
read the same fields by name rather than by string key.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from execugraph.domain.json_types import JsonObject
from execugraph.verdicts.verdict_sets import PUBLISHED


@dataclass(frozen=True)
class PassRate:
    """Passed trials over counted trials (those with a verdict)."""

    passed: int  # counted trials that passed
    trials: int  # counted trials
    pass_rate: float | None  # passed / trials; None with no counted trial

    def as_dict(self) -> JsonObject:
        return {"passed": self.passed, "trials": self.trials, "pass_rate": self.pass_rate}


@dataclass(frozen=True)
class ProtocolRescore:
    """A run rescored under one grading protocol: its pass rate and what changed from the published verdicts."""

    rate: PassRate  # the run's pass rate under this protocol
    rescored: int  # trials rerun
    reused_jobs: int  # sandbox jobs reused from earlier grading
    kept_as_published: int  # trials that could not be rerun and keep their published verdict
    skipped: Mapping[str, int]  # why trials were not rerun -> how many (e.g. no_code)
    unresolved: int  # trials whose problem could not be found
    unresolved_problems: list[JsonObject]  # each such problem: benchmark, problem_id, trials, reason
    agreement: object  # the rescore's agreement with the published verdicts, as its summary holds it
    flips: int  # verdicts that changed
    flips_by_cause: Mapping[str, int]  # first cause -> flips
    flip_list: list[JsonObject]  # every flip: problem, condition, seed, trial, from, to, reason, causes
    tests_from: Mapping[str, int]  # where the tests came from -> trials
    protocol_note: str  # what the protocol changed, in words ("" when nothing)

    def as_dict(self) -> JsonObject:
        return {
            **self.rate.as_dict(),
            "rescored": self.rescored,
            "reused_jobs": self.reused_jobs,
            "kept_as_published": self.kept_as_published,
            "skipped": self.skipped,
            "unresolved": self.unresolved,
            "unresolved_problems": self.unresolved_problems,
            "agreement": self.agreement,
            "flips": self.flips,
            "flips_by_cause": self.flips_by_cause,
            "flip_list": self.flip_list,
            "tests_from": self.tests_from,
            "protocol_note": self.protocol_note,
        }


@dataclass(frozen=True)
class RunSection:
    """One run of the study: what it is, its published pass rate and its rescore under each protocol."""

    name: str  # the run's study name (`naming`), never a database id
    folder: str  # where it sits in the input
    benchmark: str  # its benchmark ("" when unknown)
    conditions: list[str]  # its conditions, in first-seen order
    trials: int  # its trials
    problems: int  # distinct problems it covers
    published: PassRate  # its pass rate under the published verdicts
    protocols: dict[str, ProtocolRescore] = field(default_factory=dict)  # protocol -> its rescore

    def as_dict(self) -> JsonObject:
        """The run as reproduce.json's `runs` lists it."""
        return {
            "name": self.name, "folder": self.folder, "benchmark": self.benchmark,
            "conditions": list(self.conditions), "trials": self.trials, "problems": self.problems,
            PUBLISHED: self.published.as_dict(),
            **{protocol: rescore.as_dict() for protocol, rescore in self.protocols.items()},
        }


@dataclass(frozen=True)
class LocalRun:
    """What this database holds for a run (reproduce.json's `local.runs`): it differs between databases."""

    name: str  # the run's study name
    run_id: int  # its id here
    imported_now: bool  # whether this reproduction imported it (else it was already stored)
    rescore_runs: dict[str, int]  # protocol -> the child run holding its rescore
    reused_earlier_rescore: dict[str, bool]  # protocol -> whether that child was made earlier and reused

    def as_dict(self) -> JsonObject:
        return {"name": self.name, "run_id": self.run_id, "imported_now": self.imported_now,
                "rescore_runs": self.rescore_runs, "reused_earlier_rescore": self.reused_earlier_rescore}
