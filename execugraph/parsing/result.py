"""The value every lenient parser returns (what it read, what it repaired, whether it is usable) and its tags."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Generic, TypeVar

T = TypeVar("T")


@dataclass
class Parsed(Generic[T]):
    """A parsed model output.

    `repairs` names every liberty taken (e.g. "stripped_fence", "missing_key:severity") so traces and
    stats can show how much rescuing a model needed; `ok` is False when only a best effort or a
    default could be produced; `dropped` counts items discarded as malformed (generated tests).
    """

    value: T
    repairs: list[str] = field(default_factory=list)
    ok: bool = True
    dropped: int = 0


def add_repair(repairs: list[str], tag: str) -> None:
    """Append a repair tag once, keeping first-seen order (tags are a set with a stable display order)."""
    if tag not in repairs:
        repairs.append(tag)
