"""Named experimental conditions, each a set of RunConfig overrides; defined here and nowhere else."""

from __future__ import annotations

import re
from typing import Any

from execugraph.domain.config import RunConfig

Overrides = dict[str, str | int | float | bool]  # RunConfig field -> the value a condition sets

_SINGLE: Overrides = {"mode": "single", "planner": False, "reviewer": False, "optimizer": False, "explainer": False}

CONDITIONS: dict[str, Overrides] = {
    "single-oneshot": {**_SINGLE, "retry_budget": 0},
    "single-retry": {**_SINGLE, "retry_budget": 3},
    "multi-full": {"retry_budget": 3},
    "multi-no-planner": {"planner": False, "retry_budget": 3},
    "multi-no-reviewer": {"reviewer": False, "retry_budget": 3},
    "multi-no-optimizer": {"optimizer": False, "retry_budget": 3},
    "multi-rag": {"retrieval": True, "retry_budget": 3},
    "multi-no-retry": {"retry_budget": 0},
    # Sampling control: N independent one-shot samples at the call budget of single-retry (1 + 3).
    "best-of-n": {**_SINGLE, "retry_budget": 0, "best_of_n": 4, "temperature": 0.8},
}

DESCRIPTIONS: dict[str, str] = {
    "single-oneshot": "one generator call, graded once",
    "single-retry": "generator with execution feedback, up to the retry budget",
    "multi-full": "planner, generator, reviewer, evaluator, optimizer, explainer with retries",
    "multi-no-planner": "multi-full without the planner",
    "multi-no-reviewer": "multi-full without the logical reviewer",
    "multi-no-optimizer": "multi-full without the optimizer",
    "multi-rag": "multi-full with retrieved techniques in the planner prompt",
    "multi-no-retry": "multi-full with a retry budget of 0",
    "best-of-n": "N one-shot samples at an equal call budget (reports pass@1 and pass@N)",
}

_BUDGET = re.compile(r"^(?P<name>[a-z0-9_-]+)(@(?P<budget>\d+))?$")


class UnknownConditionName(ValueError):
    """Raised for a condition name that is not defined in CONDITIONS."""


def _registered() -> dict[str, Any]:
    """Every condition the plugins registered (the built-ins above first), name -> ConditionEntry."""
    from execugraph.plugins import registry

    return registry().conditions


def resolve_condition(spec: str, **overrides: Any) -> RunConfig:
    """Build the RunConfig for `name` or `name@N` (N = retry budget; for best-of-n, N = samples)."""
    match = _BUDGET.match(spec.strip())
    known = _registered()
    if not match or match["name"] not in known:
        raise UnknownConditionName(f"unknown condition {spec!r}; known: {', '.join(known)} "
                                   "(optionally name@N for a budget)")
    name = match["name"]
    values: dict[str, object] = {**known[name].overrides}
    if match["budget"] is not None:
        key = "best_of_n" if name == "best-of-n" else "retry_budget"
        values[key] = int(match["budget"]) if key == "retry_budget" else max(1, int(match["budget"]))
    values.update({k: v for k, v in overrides.items() if v is not None})
    values["condition"] = spec.strip()
    return RunConfig(**values)


def condition_names() -> list[str]:
    """The built-in conditions, then those the installed plugins add (external loops as `loop-<name>`)."""
    return list(_registered())


def condition_description(name: str) -> str:
    """What a condition does, in a few words ("" for an unknown name)."""
    entry = _registered().get(name.partition("@")[0])
    return entry.description if entry is not None else ""


def condition_descriptions() -> dict[str, str]:
    """name -> description of every registered condition."""
    return {name: entry.description for name, entry in _registered().items()}
