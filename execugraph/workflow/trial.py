"""run_trial: one problem under one condition, streamed as events and persisted step by step."""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from langchain_core.language_models.chat_models import BaseChatModel

from execugraph.agents.context import TrialContext
from execugraph.agents.state import TrialState
from execugraph.configuration.settings import load_settings
from execugraph.domain.config import RunConfig
from execugraph.domain.events import TrialEvent, TrialFinished, TrialStarted
from execugraph.domain.problem import Problem
from execugraph.providers.llm import LLMError
from execugraph.providers.model_router import ModelRouter
from execugraph.providers.outages import TrialInterrupted
from execugraph.store import StoreBusyError, SupersededError
from execugraph.store.leases import reset_trial
from execugraph.store.trace_reads import llm_calls_for_run
from execugraph.workflow.graph import build_graph, recursion_limit
from sandbox import default_pool

if TYPE_CHECKING:
    from execugraph.retrieval.search import Retriever
    from execugraph.store import Store
    from sandbox import SandboxPool


@dataclass
class TrialResult:
    trial_id: int
    status: str  # done | error (| queued | cancelled: interrupted while waiting for an LLM endpoint)
    passed: bool
    verdict: str | None
    tests_passed: int
    tests_total: int
    retries_used: int
    test_source: str | None
    nodes: list[str] = field(default_factory=list)
    message: str | None = None
    final_code: str = ""
    explanation: str = ""
    unreachable: str | None = None  # the endpoint, when the trial ended because it stayed unreachable


@dataclass
class TrialDeps:
    """Injectable collaborators; tests pass scripted chat models, production passes nothing."""

    pool: SandboxPool | None = None
    retriever: Retriever | None = None
    chat_models: dict[str, BaseChatModel] | None = None
    ollama_host: str | None = None
    openai_base_url: str | None = None  # None: EXECUGRAPH_OPENAI_BASE_URL
    emit: Callable[[TrialEvent], None] | None = None
    # Asked while the trial waits for an LLM endpoint: a TrialInterrupted to stop waiting (worker stopping,
    # batch cancelled), or None to keep waiting.
    interrupted: Callable[[], TrialInterrupted | None] | None = None


def replay_loader(store: Store) -> Callable[[int, str], dict[str, list[str]]]:
    """Index a recorded run's LLM calls by prompt hash for the replay provider."""

    def load(run_id: int, role: str) -> dict[str, list[str]]:
        answers: dict[str, list[str]] = {}
        for call in llm_calls_for_run(store, run_id, role=role):
            answers.setdefault(call.prompt_hash, []).append(call.response)
        if not answers and store.get_run(run_id) is None:
            raise LLMError(f"replay:{run_id}: no such run in this database")
        return answers

    return load


def no_progress_message(attempts: list[int]) -> str:
    """The trial's note when retries returned the previous program unchanged (attempts count from 0)."""
    which = ", ".join(str(a) for a in attempts)
    return (f"no progress: {len(attempts)} {'retry' if len(attempts) == 1 else 'retries'} (attempt {which}) returned "
            "the previous program unchanged; the next retry prompt said so")


def run_trial(
    problem: Problem,
    config: RunConfig,
    store: Store,
    *,
    run_id: int,
    seed: int | None = None,
    trial_index: int = 0,
    trial_id: int | None = None,
    deps: TrialDeps | None = None,
) -> TrialResult:
    """Run one trial to completion; provider failures end it with status `error`, never an exception.

    Two things are raised instead of being recorded as the trial's result: SupersededError
    (a fenced attempt that lost its trial; see `store.fencing`) and StoreBusyError (the
    database refused writes past the retry budget): neither says anything about the trial.
    """
    deps = deps or TrialDeps()
    emit = deps.emit or (lambda event: None)
    if seed is not None and seed != config.seed:
        config = config.model_copy(update={"seed": seed})
    if trial_id is None:
        store.upsert_problem(problem)  # batches store their problems when they are enqueued
        trial_id = store.create_trial(
            run_id, problem.id, config.condition, config.seed, trial_index,
            category=problem.category, benchmark=problem.benchmark, status="running",
            feedback_source=config.feedback_tests,
        )
    else:
        store.update_trial(trial_id, status="running", feedback_source=config.feedback_tests)
    nodes: list[str] = []

    def record(event: TrialEvent) -> None:
        if event["type"] == "node_started":
            nodes.append(event["node"])
        emit(event)

    router = ModelRouter(
        config, store, trial_id,
        run_id=run_id,
        ollama_host=deps.ollama_host or load_settings().ollama_host,
        openai_base_url=deps.openai_base_url,
        chat_models=deps.chat_models,
        replay_loader=replay_loader(store),
        interrupted=deps.interrupted,
    )
    ctx = TrialContext(
        config=config, problem=problem, router=router, store=store, trial_id=trial_id,
        pool=deps.pool or default_pool(), retriever=deps.retriever, emit=record,
    )
    started = time.perf_counter()
    emit(TrialStarted(type="trial_started", trial_id=trial_id, problem_id=problem.id, condition=config.condition))
    state: TrialState = {}
    status, message, error_kind, unreachable = "done", None, None, None
    try:
        if config.retrieval:  # the library the run pinned; a missing one ends the trial saying which
            from execugraph.store.technique_library import retriever_for

            ctx.retriever = retriever_for(store, config, ctx.retriever)
        state = build_graph(config).invoke(
            {"attempt": 0, "retries_used": 0}, {"recursion_limit": recursion_limit(config)}, context=ctx,
        )
    except TrialInterrupted as stop:  # stopped while waiting for an endpoint: put back, to run again later
        if stop.status != "abandoned":  # an abandoned trial belongs to another worker now: leave it alone
            reset_trial(store, trial_id, status=stop.status)
        emit(TrialFinished(type="trial_finished", trial_id=trial_id, status=stop.status, passed=False,
                           message=str(stop)))
        return TrialResult(trial_id=trial_id, status=stop.status, passed=False, verdict=None, tests_passed=0,
                           tests_total=0, retries_used=0, test_source=None, nodes=nodes, message=str(stop))
    except LLMError as exc:
        status, message, error_kind = "error", str(exc), "llm_error"
        unreachable = getattr(exc, "endpoint", None)
    except (SupersededError, StoreBusyError):
        raise  # the attempt was abandoned, or the store cannot take its writes: not a result of the trial
    except Exception as exc:  # a bug or sandbox failure must not take a batch down with it
        status, error_kind = "error", "harness_error"
        message = f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=5)}"
    grading = state.get("grading")
    passed = grading is not None and grading.passed and status == "done"
    if status == "done" and state.get("no_progress"):
        message = no_progress_message(state["no_progress"])
    verdict = (grading.verdict if grading is not None else None) if status == "done" else error_kind
    result = TrialResult(
        trial_id=trial_id,
        status=status,
        passed=passed,
        verdict=verdict,
        tests_passed=grading.tests_passed if grading is not None else 0,
        tests_total=grading.tests_total if grading is not None else 0,
        retries_used=int(state.get("retries_used", 0)),
        test_source=state.get("test_source"),
        nodes=nodes,
        message=message,
        final_code=state.get("code", ""),
        explanation=state.get("explanation", ""),
        unreachable=unreachable,
    )
    store.finish_trial(
        trial_id,
        status=status,
        passed=passed,
        tests_passed=result.tests_passed,
        tests_total=result.tests_total,
        retries_used=result.retries_used,
        error_class=None if passed else verdict,
        test_source=result.test_source,
        grading_protocol=config.grading_protocol,
        suite_digest=grading.suite_digest if grading is not None else None,
        final_code=result.final_code,
        explanation=result.explanation,
        message=message,
        wallclock_s=time.perf_counter() - started,
        tokens_in=router.usage.tokens_in,
        tokens_out=router.usage.tokens_out,
        llm_calls=router.usage.calls,
    )
    emit(TrialFinished(type="trial_finished", trial_id=trial_id, status=status, passed=passed, message=message))
    return result
