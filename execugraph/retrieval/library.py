"""The technique library: algorithmic techniques the Planner can be reminded of, and their JSONL form.

The shipped `data/techniques.jsonl` is read-only seed data: users' edits live
in the run store (see `execugraph.store.technique_library`) and are applied on top
with `apply_edits`. Every load validates line by line, so a bad line or edit is
refused with the line and field at fault. `library_digest` names a library by
its content, which is what runs record and the index cache is keyed on.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from execugraph.configuration.settings import DATA_DIR

DEFAULT_LIBRARY_PATH = DATA_DIR / "techniques.jsonl"

# Categories the shipped library uses; others are accepted so users can grow the library.
KNOWN_CATEGORIES: tuple[str, ...] = (
    "dynamic-programming",
    "graph",
    "data-structure",
    "string",
    "search-sort",
    "greedy",
    "math",
    "backend",
)

_ID_PATTERN = r"^[a-z0-9][a-z0-9._-]*$"


class LibraryFormatError(ValueError):
    """A technique library (or evaluation set) line that cannot be accepted.

    Carries the file, the 1-based line number and the field at fault so the UI
    and CLI can point the user at the exact spot.
    """

    def __init__(self, path: Path | str | None, line: int | None, field: str | None, message: str) -> None:
        self.path = Path(path) if path is not None else None
        self.line = line
        self.field = field
        self.message = message
        where = str(self.path) if self.path is not None else "<library>"
        if line is not None:
            where += f", line {line}"
        if field:
            where += f", field '{field}'"
        super().__init__(f"{where}: {message}")


class Technique(BaseModel):
    """One algorithmic technique: what it is for, how it works, and where it bites.

    `when_to_use`, `key_idea` and `tags` are what the embedding sees, so they
    should describe the problems the technique solves in plain words.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", str_strip_whitespace=True)

    id: str = Field(pattern=_ID_PATTERN, max_length=80)
    name: str = Field(min_length=1, max_length=200)
    category: str = Field(min_length=1, max_length=60)
    when_to_use: str = Field(min_length=1)
    key_idea: str = Field(min_length=1)
    complexity: str = Field(min_length=1)
    pitfalls: str = Field(min_length=1)
    tags: tuple[str, ...] = Field(min_length=1)

    @field_validator("tags")
    @classmethod
    def _clean_tags(cls, tags: tuple[str, ...]) -> tuple[str, ...]:
        cleaned = tuple(t.strip() for t in tags)
        if any(not t for t in cleaned):
            raise ValueError("tags must be non-empty strings")
        return cleaned

    def embedding_texts(self) -> tuple[str, ...]:
        """The texts that represent this technique in the vector index, one vector each.

        A technique is found when the query is close to any of its views: the
        problem description (`when_to_use`, which reads like the problems users
        paste) or its name with tags (which matches queries written in jargon).
        Key idea, complexity and pitfalls are left out: measured on the labelled
        set they pull queries towards techniques that merely share vocabulary.
        """
        return (self.when_to_use, f"{self.name}. Keywords: {', '.join(self.tags)}.")

    def to_json_line(self) -> str:
        """Serialise as one JSONL line (field order as declared)."""
        return json.dumps(self.model_dump(mode="json"), ensure_ascii=False)


def _first_error_field(exc: ValidationError) -> tuple[str, str]:
    """Pick the first failing field and a short message from a pydantic error."""
    err = exc.errors()[0]
    loc = ".".join(str(p) for p in err.get("loc", ())) or "<line>"
    kind = err.get("type", "")
    if kind == "missing":
        return loc, "required field is missing"
    if kind == "extra_forbidden":
        return loc, "unknown field (allowed: " + ", ".join(Technique.model_fields) + ")"
    return loc, err.get("msg", "invalid value")


def parse_technique(data: object, *, path: Path | str | None = None, line: int | None = None) -> Technique:
    """Validate one technique given as a dict (a parsed JSONL line or a UI form)."""
    if not isinstance(data, dict):
        raise LibraryFormatError(path, line, None, f"expected a JSON object, got {type(data).__name__}")
    try:
        return Technique.model_validate(data)
    except ValidationError as exc:
        field, message = _first_error_field(exc)
        raise LibraryFormatError(path, line, field, message) from None


def parse_library(text: str, path: Path | str | None = None) -> list[Technique]:
    """Parse and validate JSONL text; blank lines are skipped, ids must be unique."""
    techniques: list[Technique] = []
    first_seen: dict[str, int] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise LibraryFormatError(path, number, None, f"invalid JSON ({exc.msg} at column {exc.colno})") from None
        technique = parse_technique(data, path=path, line=number)
        if technique.id in first_seen:
            raise LibraryFormatError(
                path, number, "id", f"duplicate id '{technique.id}' (first defined on line {first_seen[technique.id]})"
            )
        first_seen[technique.id] = number
        techniques.append(technique)
    if not techniques:
        raise LibraryFormatError(path, None, None, "the library contains no techniques")
    return techniques


def load_library(path: Path | str | None = None) -> list[Technique]:
    """Read and validate a technique library file (default: data/techniques.jsonl)."""
    path = Path(path) if path is not None else DEFAULT_LIBRARY_PATH
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise LibraryFormatError(path, None, None, "library file not found") from None
    except UnicodeDecodeError as exc:
        raise LibraryFormatError(path, None, None, f"not valid UTF-8 ({exc.reason})") from None
    return parse_library(text, path)


def serialise_library(techniques: Iterable[Technique]) -> str:
    """The JSONL text for a list of techniques, one per line."""
    return "".join(t.to_json_line() + "\n" for t in techniques)


def save_library(path: Path | str, techniques: Iterable[Technique]) -> None:
    """Write a library file atomically (a temporary file in the same folder, then rename), e.g. to export one.

    The app never calls it on the shipped seed. Refuses duplicate ids so a bad
    caller cannot write a library that would not load.
    """
    path = Path(path)
    techniques = list(techniques)
    seen: set[str] = set()
    for t in techniques:
        if t.id in seen:
            raise LibraryFormatError(path, None, "id", f"duplicate id '{t.id}'")
        seen.add(t.id)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(serialise_library(techniques))
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, path)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise


def library_digest(techniques: Iterable[Technique]) -> str:
    """Hex sha256 of the canonical JSONL of `techniques` in order: the library's identity."""
    return hashlib.sha256(serialise_library(techniques).encode("utf-8")).hexdigest()


def with_added(techniques: Sequence[Technique], technique: Technique) -> list[Technique]:
    """The library with a new technique appended; its id must not exist yet."""
    if any(t.id == technique.id for t in techniques):
        raise LibraryFormatError(None, None, "id", f"a technique with id '{technique.id}' already exists")
    return [*techniques, technique]


def with_updated(techniques: Sequence[Technique], technique: Technique) -> list[Technique]:
    """The library with the technique of the same id replaced in place (order kept); the id must exist."""
    if not any(t.id == technique.id for t in techniques):
        raise LibraryFormatError(None, None, "id", f"no technique with id '{technique.id}' to update")
    return [technique if t.id == technique.id else t for t in techniques]


def apply_edits(seed: Sequence[Technique], edits: Iterable[Technique]) -> list[Technique]:
    """The seed with each edit applied in order: it replaces the technique of its id, or is appended.

    Lenient on purpose, so stored edits stay usable when the seed changes under
    them (an added id the seed now ships replaces it; an updated one it dropped is kept).
    """
    techniques = list(seed)
    position = {t.id: i for i, t in enumerate(techniques)}
    for edit in edits:
        if edit.id in position:
            techniques[position[edit.id]] = edit
        else:
            position[edit.id] = len(techniques)
            techniques.append(edit)
    return techniques
