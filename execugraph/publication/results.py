"""What an import reports back: the runs it created (or found already imported), its warnings and its notes.

Warnings are what the input's files cause (the same on every database); notes are
what this database already held ("already imported as run 3"). Both are in
`warnings`, as `import` prints them; `study_warnings` leaves the notes out, so a
report built from an import says the same whichever database it ran in.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field

from execugraph.domain.json_types import JsonObject


@dataclass
class ImportedRun:
    """One run of an import: its database id, name (title), trial count, whether this import created it, and
    where it sits in the input (a results tree's folder path; '' for a bundle's run)."""

    id: int
    name: str
    trials: int
    imported: bool = True
    folder: str = ""

    def to_dict(self) -> JsonObject:
        """One entry of the printed `runs` list."""
        return {"id": self.id, "name": self.name, "trials": self.trials, "imported": self.imported}


@dataclass
class ImportResult:
    """The outcome of one import; `to_dict()` is what `python -m execugraph import` prints."""

    source: str  # "bundle" | "reference" | "harness:<formats>"
    runs: list[ImportedRun] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # local facts, also in `warnings`
    # run id -> second verdict set -> the child run holding it (EvalPlus plus verdicts)
    verdict_sets: dict[int, dict[str, int]] = field(default_factory=dict)

    def note(self, text: str) -> None:
        """Record a fact about this database (not about the input): shown with the warnings, kept apart."""
        self.notes.append(text)
        self.warnings.append(text)

    @property
    def study_warnings(self) -> list[str]:
        """The warnings the input's files cause, whatever the database held before."""
        local = set(self.notes)
        return [w for w in self.warnings if w not in local]

    def to_dict(self) -> JsonObject:
        """`{"runs": [...], "source": ..., "warnings": [...]}` (warnings only when there are any)."""
        out: JsonObject = {"runs": [r.to_dict() for r in self.runs], "source": self.source}
        if self.warnings:
            out["warnings"] = list(self.warnings)
        if self.verdict_sets:
            out["verdict_sets"] = {str(k): dict(v) for k, v in self.verdict_sets.items()}
        return out


def content_digest(files: Mapping[str, bytes]) -> str:
    """SHA-256 over file names and contents, independent of file order: the identity of an input.

    A streamed input (`source.FileView`) computes the same value without holding its files.
    """
    streamed = getattr(files, "digest", None)
    if callable(streamed):
        return str(streamed(list(files)))
    return digest_of_hashes({name: hashlib.sha256(files[name]).hexdigest() for name in files})


def digest_of_hashes(hashes: Mapping[str, str]) -> str:
    """`content_digest` from each file's own SHA-256 (hex), in any order."""
    outer = hashlib.sha256()
    for name in sorted(hashes):
        outer.update(name.encode("utf-8") + b"\0" + hashes[name].encode("ascii") + b"\n")
    return outer.hexdigest()
