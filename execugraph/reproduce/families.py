"""Which runs of a study are compared with which: by default, by benchmark and problem set; else as a file says.

By default, runs that came from the same source (one results tree, or one folder
of harness result files: never Holm across unrelated studies) and ran the same
benchmark on the same set of problems (at least half of the problems in common:
see `same_problem_set`) form a family, and
every pair within it is compared (Holm over that family). A run alone
in its group is listed as having nothing to compare with. A families file
(`inputs.parse_families`) fixes the families instead, naming runs by folder.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from execugraph.publication.formats import Issue
from execugraph.reproduce.inputs import FamilyRequest, ReproduceError
from execugraph.stats.family import Family

DEFAULT_SOURCE = "grouped by benchmark and problem set"
FILE_SOURCE = "families file"


@dataclass(frozen=True)
class StudyRun:
    """One imported run of the study: its database id (local: never shown), its name in the study (unique within
    it, what every output calls it: `naming`), where it sits, and what it ran."""

    id: int
    name: str
    folder: str
    benchmark: str
    problems: frozenset[str]
    conditions: tuple[str, ...]
    trials: int
    group: str = ""  # the source it came from: a harness file's folder ("" for the run folders of one results tree)


@dataclass
class StudyFamily:
    """A family to compare: its runs (in order) and how (all pairs, a baseline, or chosen pairs)."""

    name: str
    runs: list[StudyRun]
    source: str
    baseline: StudyRun | None = None
    pairs: list[tuple[StudyRun, StudyRun]] | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def slug(self) -> str:
        """A file-name-safe form of the name (tables/<slug>-paired.tex): ASCII letters, digits, - and _ only, as
        it is written into LaTeX's \\input and \\label."""
        text = "".join(ch if (ch.isascii() and ch.isalnum()) or ch in "-_" else "-" for ch in self.name.lower())
        return "-".join(part for part in text.split("-") if part) or "family"

    def stats_family(self) -> Family:
        """The comparison family for `execugraph.stats` (arms are keyed by the runs' study names)."""
        if self.pairs is not None:
            return Family(pairs=tuple((a.name, b.name) for a, b in self.pairs))
        return Family(baseline=self.baseline.name if self.baseline else None)

    @property
    def mode(self) -> str:
        if self.pairs is not None:
            return "chosen pairs"
        return f"each run against {self.baseline.name}" if self.baseline else "all pairs"


def same_problem_set(a: frozenset[str], b: frozenset[str]) -> bool:
    """Two runs ran the same problem set when at least half of the larger one's problems are common to both.

    Published grids lose a problem here and there (a run cut short, a problem dropped
    from one condition); the paired tests compare the common problems anyway, and
    the family lists what each run lacks.
    """
    return bool(a and b) and 2 * len(a & b) >= max(len(a), len(b))


def default_families(runs: Sequence[StudyRun]) -> tuple[list[StudyFamily], list[StudyRun]]:
    """(families of two or more runs sharing benchmark and problem set, runs left alone), in import order."""
    groups: list[tuple[str, list[StudyRun]]] = []
    for run in runs:
        for benchmark, members in groups:
            if (benchmark == run.benchmark and members[0].group == run.group
                    and same_problem_set(run.problems, members[0].problems)):
                members.append(run)
                break
        else:
            groups.append((run.benchmark, [run]))
    families, alone = [], []
    named: dict[str, int] = {}
    for benchmark, members in groups:
        if len(members) < 2:
            alone.extend(members)
            continue
        union = frozenset().union(*(m.problems for m in members))
        name = f"{benchmark or 'unknown benchmark'}, {len(union)} problems"
        named[name] = named.get(name, 0) + 1
        family = StudyFamily(name if named[name] == 1 else f"{name} (set {named[name]})", members, DEFAULT_SOURCE)
        for member in members:
            lacking = sorted(union - member.problems)
            if lacking:
                shown = ", ".join(lacking[:5]) + (f" and {len(lacking) - 5} more" if len(lacking) > 5 else "")
                family.notes.append(f"{member.name} lacks {len(lacking)} of the family's problems ({shown}); "
                                    "its pairs compare the common problems")
        families.append(family)
    return families, alone


def _lookup(runs: Sequence[StudyRun]) -> dict[str, StudyRun]:
    """Every way a families file may name a run: its name, its folder path, the folder's own name when unique."""
    table: dict[str, StudyRun] = {}
    last: dict[str, list[StudyRun]] = {}
    for run in runs:
        last.setdefault(run.folder.rpartition("/")[2], []).append(run)
    for key, found in last.items():
        if len(found) == 1:
            table[key] = found[0]
    for run in runs:
        table[run.folder] = run
        table[run.name] = run
    return table


def resolve_families(requests: Sequence[FamilyRequest], runs: Sequence[StudyRun], file: str) -> list[StudyFamily]:
    """The families a file asks for, over this study's runs; ReproduceError names an unknown run by its field."""
    table = _lookup(runs)
    names = ", ".join(r.name for r in runs)

    def find(value: str, where: str) -> StudyRun:
        if value not in table:
            raise ReproduceError([Issue(file, None, where, f"{value!r} is not a run folder of this study "
                                        f"(run folders: {names})")])
        return table[value]

    families = []
    for request in requests:
        members = [find(v, f"{request.where}.runs[{i}]") for i, v in enumerate(request.runs)]
        if len({m.id for m in members}) != len(members):
            raise ReproduceError([Issue(file, None, f"{request.where}.runs", "names the same run twice")])
        family = StudyFamily(request.name, members, FILE_SOURCE)
        if request.baseline:
            family.baseline = find(request.baseline, f"{request.where}.baseline")
        if request.pairs is not None:
            family.pairs = [(find(a, f"{request.where}.pairs[{i}]"), find(b, f"{request.where}.pairs[{i}]"))
                            for i, (a, b) in enumerate(request.pairs)]
        benchmarks = sorted({m.benchmark or "unknown" for m in members})
        if len(benchmarks) > 1:
            family.notes.append(f"runs of different benchmarks ({', '.join(benchmarks)}): their pairs are listed "
                                "apart, not tested")
        families.append(family)
    return families
