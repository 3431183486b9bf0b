"""A single ad-hoc or benchmark problem run as its own Run of kind `single` (Synthesize page, `run` CLI)."""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from execugraph.domain.config import RunConfig
from execugraph.domain.json_types import JsonObject
from execugraph.domain.problem import Problem
from execugraph.domain.run_names import statement_title

if TYPE_CHECKING:  # the trial (LangGraph, the providers) loads when one runs: `adhoc_problem` refusals stay light
    from execugraph.store import Store
    from execugraph.workflow.trial import TrialDeps, TrialResult


def adhoc_problem(statement: str, entry_point: str | None = None, aliases: list[str] | None = None,
                  tests: list[JsonObject] | None = None, signature: str = "") -> Problem:
    """A user-typed problem; its id is a content hash so the same problem is stored once."""
    statement = statement.strip()
    if not statement:
        raise ValueError("the problem statement is empty")
    digest = hashlib.sha256(repr((statement, entry_point, aliases, tests)).encode()).hexdigest()[:12]
    return Problem(id=f"adhoc-{digest}", benchmark="adhoc", category="adhoc", statement=statement,
                   entry_point=entry_point or None, aliases=aliases or [], tests=tests or [], signature=signature)


def default_title(problem: Problem, condition: str) -> str:
    """A typed problem is named by the first words of its statement, a benchmark problem by its id."""
    named = statement_title(problem.statement) if problem.benchmark == "adhoc" else ""
    return f"{named or problem.id} ({condition})"


def run_single(store: Store, problem: Problem, config: RunConfig, deps: TrialDeps | None = None,
               title: str = "") -> tuple[int, TrialResult]:
    """Create the Run, run its one trial (streaming events through deps.emit), close the Run."""
    from execugraph.workflow.trial import run_trial

    if config.retrieval:  # record (and keep) the technique library this run searches
        from execugraph.store.technique_library import pin_config

        config = pin_config(store, config)
    models = {role: config.model_for(role) for role in
              ("planner", "generator", "reviewer", "evaluator", "optimizer", "explainer")}
    run_id = store.create_run("single", title or default_title(problem, config.condition),
                              {"conditions": {config.condition: config.model_dump()}, "problem_id": problem.id},
                              benchmark=problem.benchmark, models=models, status="running")
    store.update_run(run_id, progress_total=1)
    result = run_trial(problem, config, store, run_id=run_id, deps=deps)
    store.update_run(run_id, status="done" if result.status == "done" else "failed",
                     progress_done=1, progress_passed=int(result.passed),
                     error=result.message if result.status != "done" else None)  # a done trial's message is a note
    return run_id, result
