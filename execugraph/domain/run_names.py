"""How a run is named to people: one function for every table, chart, legend, picker and export.

A run is called by its title; a run without one by what it ran (benchmark, conditions,
date). The id always follows as `#id`, so two runs with the same title stay apart and
a name can be found again on the Runs page. Arms (a run, or one condition of it) are
named from the same pieces.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Protocol

MAX_TITLE_WORDS = 8
MAX_CONDITIONS_SHOWN = 3
ARM_SEPARATOR = " · "


class NamedRun(Protocol):
    """What naming reads of a run: a stored Run and a run's header (`store.run_reads.RunHeader`) both have it."""

    @property
    def id(self) -> Any: ...
    @property
    def title(self) -> str | None: ...
    @property
    def benchmark(self) -> str | None: ...
    @property
    def config(self) -> Any: ...
    @property
    def created_at(self) -> datetime | str | None: ...


def conditions_of(config: Mapping[str, Any] | None) -> list[str]:
    """The conditions a run's config names: a batch lists them, single runs and imports key them."""
    conditions = (config or {}).get("conditions")
    if isinstance(conditions, Mapping):
        return [str(c) for c in conditions]
    if isinstance(conditions, list | tuple):
        return [str(c) for c in conditions]
    condition = (config or {}).get("condition")
    return [str(condition)] if condition else []


def _date(created: datetime | str | None) -> str:
    if isinstance(created, datetime):
        return f"{created:%Y-%m-%d}"
    if isinstance(created, str) and len(created) >= 10:
        return created[:10]
    return ""


def run_name(
    run_id: int | str,
    title: str | None,
    *,
    benchmark: str | None = None,
    conditions: Sequence[str] = (),
    created: datetime | str | None = None,
) -> str:
    """`title #id`; without a title `benchmark · conditions · date #id` (whatever of those is known)."""
    text = " ".join((title or "").split())
    if not text:
        shown = list(dict.fromkeys(c for c in conditions if c))
        if len(shown) > MAX_CONDITIONS_SHOWN:
            shown = [*shown[:MAX_CONDITIONS_SHOWN], f"+{len(shown) - MAX_CONDITIONS_SHOWN}"]
        parts = [benchmark or "", ", ".join(shown), _date(created)]
        text = ARM_SEPARATOR.join(p for p in parts if p) or "run"
    return f"{text} #{run_id}"


def name_of(run: NamedRun) -> str:
    """`run_name` of a stored Run, or of a run's header (`run_reads.RunHeader`)."""
    return run_name(
        str(run.id),
        run.title,
        benchmark=run.benchmark,
        conditions=conditions_of(run.config),
        created=run.created_at,
    )


def arm_name(run: str, condition: str | None, *, alone: bool) -> str:
    """An arm's name: its condition when one run is compared with itself, else the run's name (and condition)."""
    if condition is None:
        return run
    return condition if alone else f"{run}{ARM_SEPARATOR}{condition}"


def statement_title(statement: str, words: int = MAX_TITLE_WORDS) -> str:
    """The first words of a problem statement, for naming an ad-hoc run ('Return the n-th prime...')."""
    tokens = re.sub(r"\s+", " ", statement or "").strip().split(" ")
    tokens = [t for t in tokens if t]
    if not tokens:
        return ""
    head = " ".join(tokens[:words]).rstrip(" .,;:")
    return head + ("..." if len(tokens) > words else "")

