"""What a user does to a batch: queue its whole grid, ask for a cancel, resume it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from execugraph.batch.destinations import check_destinations
from execugraph.batch.order import order_record
from execugraph.batch.spec import BatchSpec, check_grid
from execugraph.configuration.settings import load_settings
from execugraph.domain.json_types import JsonObject
from execugraph.store import leases

if TYPE_CHECKING:
    from execugraph.domain.problem import Problem
    from execugraph.store import Store


def enqueue_batch(store: Store, spec: BatchSpec, problems: list[Problem] | None = None) -> int:
    """Store the batch run and queue its whole grid; returns the run id."""
    if problems is None:
        from execugraph.benchmarks import load_benchmark

        problems = load_benchmark(spec.benchmark, **spec.benchmark_options)
    chosen = spec.select(problems)
    check_grid(len(chosen), len(spec.arms), len(spec.seeds), spec.trials)  # before anything is written
    check_destinations(spec, load_settings())
    if spec.matched_budget is not None and spec.matched_budget.samples is None:  # planned once, from stored costs
        from execugraph.batch.matched_plan import plan_matched_budget

        spec = plan_matched_budget(store, spec, len(chosen))
    from execugraph.benchmarks import ready_to_grade

    chosen = ready_to_grade(chosen)  # e.g. HumanEval+/MBPP+: canonical outputs of the chosen problems only
    if any(spec.run_config(c).retrieval for c in spec.arms):  # every retrieving condition records it
        from execugraph.store.technique_library import pin_library

        spec = spec.model_copy(update={"technique_library": pin_library(store, recorded=spec.technique_library)})
    for problem in chosen:
        store.upsert_problem(problem)
    configs = {c: spec.run_config(c).model_dump() for c in spec.arms}
    every = ", ".join(spec.model_axis.values()) or spec.default_model  # a model axis: each role runs every model
    models = {role: spec.models.get(role, every) for role in
              ("planner", "generator", "reviewer", "evaluator", "optimizer", "explainer")}
    title = spec.title or f"{spec.benchmark}: {', '.join(spec.arms)} x seeds {spec.seeds}"
    # `order`: its kind, the seed it resolved to and the problems in the order they run; a batch of one model
    # stores its spec as before the model axis existed
    stored = spec.model_dump(exclude={k for k in ("model_axis", "model_cutoffs", "released_after", "released_before",
                                                  "matched_budget") if not getattr(spec, k)} or None)
    config: JsonObject = {"batch": stored, "conditions": configs, "order": order_record(spec, chosen)}
    from execugraph.batch.release_window import candidates_of, window_record

    if (released := window_record(spec, candidates_of(spec, problems), chosen)) is not None:
        config["release_window"] = released  # the window, its problems and the undated ones it left out
    if spec.benchmark_options.get("path"):  # a suite file: recorded by name and SHA-256 (see suite_files)
        from execugraph.grading.suite_files import suite_identity

        config["suite"] = suite_identity(spec.benchmark_options["path"])
    run_id = store.create_run("batch", title, config, benchmark=spec.benchmark, models=models)
    keys = spec.trial_keys(chosen)
    store.ensure_trials(run_id, keys)  # ids follow the keys' order, and trials are claimed in id order
    store.update_run(run_id, progress_total=len(keys))
    return run_id


def request_cancel(store: Store, run_id: int, *, now: bool = False) -> int:
    """Ask the owning worker to stop after its in-flight trials; a run nobody holds (queued, or its
    worker gone past its lease) is cancelled at once, the trials it left running with it.

    With `now`, the trials in flight are abandoned too (recorded as cancelled, rerun on resume)
    instead of being waited for; returns how many were. Their attempts are fenced off, so
    nothing they still try to write lands.
    """
    run = store.get_run(run_id)
    if run is None:
        raise LookupError(f"run {run_id} does not exist")
    abandoned = leases.cancel_now(store, run_id) if now else 0
    if not now:
        store.update_run(run_id, cancel_requested=True)
    # a run no worker holds (queued, or its worker died and its lease ran out) is cancelled here and now
    leases.finish_orphaned_cancels(store, only=run_id)
    return abandoned


def resume(store: Store, run_id: int) -> int:
    """Queue a cancelled, failed or interrupted batch again; completed trials are kept."""
    if store.get_run(run_id) is None:
        raise LookupError(f"run {run_id} does not exist")
    return leases.requeue_cancelled(store, run_id)
