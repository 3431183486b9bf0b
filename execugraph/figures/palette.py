"""One colour per condition and one per failure class, the same on every page and in every download.

Plotly colours traces by their order, so a condition's colour used to depend on which others a chart
showed. Here the known conditions and failure classes have a fixed colour each; any other name gets one
from the theme's palette chosen by a stable hash of the name (the same in every process), never by position.
An arm named `title #3 · multi-full` takes its condition's colour.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence

from execugraph.domain.run_names import ARM_SEPARATOR
from execugraph.figures.theme import COLORWAY

CONDITION_COLOURS: dict[str, str] = {
    "single-oneshot": "#83c9ff",
    "single-retry": "#0068c9",
    "multi-full": "#ff2b2b",
    "multi-no-planner": "#ff8700",
    "multi-no-reviewer": "#ffd16a",
    "multi-no-optimizer": "#ffabab",
    "multi-rag": "#29b09d",
    "multi-no-retry": "#6d3fc0",
    "best-of-n": "#7defa1",
}
FAILURE_COLOURS: dict[str, str] = {
    "wrong_answer": "#ff8700",
    "runtime_error": "#ff2b2b",
    "syntax_error": "#6d3fc0",
    "timeout": "#0068c9",
    "memory_limit": "#83c9ff",
    "output_limit": "#29b09d",
    "sandbox_violation": "#8b0000",
    "harness_error": "#7f7f7f",
    "llm_error": "#ffd16a",
    "failed": "#ffabab",
}


def _hashed(name: str) -> str:
    digest = hashlib.sha256(name.encode()).digest()
    return COLORWAY[digest[0] % len(COLORWAY)]


def condition_of(arm: str) -> str:
    """The condition an arm name ends with (`title #3 · multi-full` -> `multi-full`), else the name itself."""
    tail = arm.rsplit(ARM_SEPARATOR, 1)[-1].strip()
    return tail if tail in CONDITION_COLOURS else arm


def condition_colour(arm: str) -> str:
    """The fixed colour of a condition (or of the condition an arm name ends with); hashed for other names."""
    return CONDITION_COLOURS.get(condition_of(str(arm))) or _hashed(str(arm))


def failure_colour(error_class: str) -> str:
    """The fixed colour of a failure class; hashed for a class not listed."""
    return FAILURE_COLOURS.get(str(error_class)) or _hashed(str(error_class))


def condition_colours(arms: Iterable[str]) -> list[str]:
    """`condition_colour` of each arm, in order (for one bar trace's per-bar colours)."""
    return [condition_colour(a) for a in arms]


def legend(names: Sequence[str], *, failures: bool = False) -> dict[str, str]:
    """name -> colour, for a page that names colours in words or tables."""
    return {n: (failure_colour(n) if failures else condition_colour(n)) for n in names}
