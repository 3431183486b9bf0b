"""Typed sensitivity sections of the report: the family side by side under every verdict set.

Why: `verdicts.sensitivity` and `verdicts.suite_sensitivity` state them, `StatsReport` carries
them, and the Statistics page, `stats`, an export and reproduce read them; typed, a misspelt
key fails loudly instead of reading as missing. Their JSON (`model_dump(mode="json")`) has the
keys, order and values the plain dicts had: a field a shape never had (None here) stays out.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field, model_serializer, model_validator

from execugraph.domain.json_types import JsonObject
from execugraph.stats.report_sections import Section

__all__ = [
    "ChangedProgram", "Conclusion", "PairValues", "ProtocolSensitivity", "RescoreNeeded", "SensitivityPair",
    "SensitivityResult", "SideBySide", "SuiteSensitivity",
]


class Lean(Section):
    """A section whose fields named in `OMIT_IF_NONE` leave the JSON when None (the dict never had them)."""

    OMIT_IF_NONE: ClassVar[tuple[str, ...]] = ()

    @model_serializer(mode="wrap")
    def _without_absent(self, handler: Any) -> Any:
        data = handler(self)
        for key in self.OMIT_IF_NONE:
            if data.get(key) is None:
                data.pop(key, None)
        return data

    def to_json_dict(self) -> JsonObject:
        """The result as the JSON object printed and written (same keys, order and values as ever)."""
        return self.model_dump(mode="json")


class PairValues(Section):
    """The numbers of one pair under one verdict set that a conclusion rests on (what every surface shows)."""

    n: int
    """Problems compared."""
    problems_differ: int
    """Problems whose pass rates differ."""
    majority_discordant: int
    """Problems whose majority verdicts differ."""
    delta_pp: float
    """b minus a, percentage points."""
    ci_lo: float | None
    """Bootstrap 95% CI, lower end, pp."""
    ci_hi: float | None
    """Bootstrap 95% CI, upper end, pp."""
    p_wilcoxon: float
    """Wilcoxon signed-rank p."""
    wilcoxon_method: str
    """How the Wilcoxon p was computed."""
    p_holm: float | None
    """Holm-adjusted Wilcoxon p."""
    p_mcnemar: float
    """McNemar p on majority verdicts."""
    p_holm_mcnemar: float | None
    """Holm-adjusted McNemar p."""


class Conclusion(Section):
    """The conclusion one verdict set supports for a pair."""

    direction: int
    """+1 when b is ahead, -1 when a is, 0 for no difference."""
    significant: bool
    """Holm-adjusted p below ALPHA."""


class ChangedProgram(Section):
    """A trial whose verdict differs between two verdict sets; in JSON each set's verdict word sits under its name."""

    problem_id: str
    """The problem."""
    condition: str
    """The condition."""
    seed: int
    """The seed."""
    trial_index: int
    """The trial within its seed."""
    verdicts: dict[str, str]
    """verdict set -> "passed", the error class, or "failed" (flattened into the row in JSON)."""
    run: int
    """The run the trial belongs to (a bundle's id in an export)."""

    @model_validator(mode="before")
    @classmethod
    def _gather_verdicts(cls, data: Any) -> Any:
        if isinstance(data, dict) and "verdicts" not in data:
            fixed = set(cls.model_fields) - {"verdicts"}
            data = {**{k: v for k, v in data.items() if k in fixed},
                    "verdicts": {k: v for k, v in data.items() if k not in fixed}}
        return data

    @model_serializer(mode="plain")
    def _flat(self) -> JsonObject:
        return {"problem_id": self.problem_id, "condition": self.condition, "seed": self.seed,
                "trial_index": self.trial_index, **self.verdicts, "run": self.run}

    def to_json_dict(self) -> JsonObject:
        """The row as JSON and as a table shows it (each set's verdict under its name)."""
        return self.model_dump(mode="json")


class SensitivityPair(Lean):
    """One pair side by side under every verdict set, with the programs that changed verdict."""

    OMIT_IF_NONE: ClassVar[tuple[str, ...]] = ("by_protocol",)

    a: str | None
    """Arm a as pages name it."""
    b: str | None
    """Arm b as pages name it."""
    a_label: str
    """Arm a's label."""
    b_label: str
    """Arm b's label."""
    by_set: dict[str, PairValues]
    """verdict set -> the pair's numbers under it."""
    conclusion: dict[str, Conclusion]
    """verdict set -> the conclusion it supports."""
    survives: dict[str, bool]
    """verdict set (not the reference) -> same conclusion as the reference set."""
    same_conclusion: bool
    """Every set supports the same conclusion."""
    changed: list[ChangedProgram]
    """Trials of either arm whose verdict differs between the sets."""
    by_protocol: dict[str, PairValues] | None = None
    """grading protocol -> the pair's numbers (protocol sensitivity only)."""


class SideBySide(Section):
    """The family under every verdict set, each pair with the programs that changed (`sensitivity.side_by_side`)."""

    pairs: list[SensitivityPair]
    """The family's pairs."""
    sets: list[str]
    """Verdict set names, the reference first."""
    holm_family_size: dict[str, int]
    """verdict set -> Holm's m."""
    changed_programs: int
    """Trials whose verdict differs, over all runs."""


class RescoreNeeded(Lean):
    """A rescore that would complete the verdict sets, and the command that makes it."""

    OMIT_IF_NONE: ClassVar[tuple[str, ...]] = ("protocol",)

    run: int
    """The run to rescore."""
    protocol: str | None = Field(default=None)
    """The grading protocol to rescore under (protocol sensitivity only)."""
    command: str
    """The command that makes it."""


class ProtocolSensitivity(Lean):
    """The family as run and under each grading protocol (`verdicts.sensitivity.protocol_sensitivity`)."""

    OMIT_IF_NONE: ClassVar[tuple[str, ...]] = ("note", "sets", "holm_family_size", "changed_programs")

    available: bool
    """Every run has a counterpart under every protocol."""
    applies: bool = True
    """Some problem has a prompt preamble, so the protocols can differ."""
    runs: dict[str, list[int | None]] = Field(default_factory=dict)
    """protocol -> the run whose verdicts each run takes there."""
    missing: list[RescoreNeeded] = Field(default_factory=list)
    """The rescores that would complete the sets."""
    pairs: list[SensitivityPair] = Field(default_factory=list)
    """The family side by side (empty unless available)."""
    note: str | None = None
    """Why protocols do not apply (only then)."""
    sets: list[str] | None = None
    """Verdict set names (only when available)."""
    holm_family_size: dict[str, int] | None = None
    """verdict set -> Holm's m (only when available)."""
    changed_programs: int | None = None
    """Trials whose verdict differs (only when available)."""


class SuiteSensitivity(Lean):
    """The family as run and under amplified tests (`verdicts.suite_sensitivity.suite_sensitivity`)."""

    OMIT_IF_NONE: ClassVar[tuple[str, ...]] = ("sets", "holm_family_size", "changed_programs")

    available: bool
    """Every run has an amplified rescore."""
    missing: list[RescoreNeeded] = Field(default_factory=list)
    """The rescores that would complete the sets."""
    pairs: list[SensitivityPair] = Field(default_factory=list)
    """The family side by side (empty unless available)."""
    runs: dict[str, list[int | None]] = Field(default_factory=dict)
    """"amplified" -> each run's amplified rescore (None: none yet)."""
    suites: list[str] = Field(default_factory=list)
    """The amplified suites' `amplified:<digest>`."""
    sets: list[str] | None = None
    """Verdict set names (only when available)."""
    holm_family_size: dict[str, int] | None = None
    """verdict set -> Holm's m (only when available)."""
    changed_programs: int | None = None
    """Trials whose verdict differs (only when available)."""


SensitivityResult = ProtocolSensitivity | SuiteSensitivity
