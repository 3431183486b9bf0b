"""The agent core over real providers: Ollama over real HTTP, the response cache, replay, the embedded model."""

from __future__ import annotations

import json
import socket

import pytest

from execugraph.configuration.conditions import resolve_condition
from execugraph.domain.config import EXPLAINER_MAX_TOKENS, EXPLAINER_REPEAT_PENALTY
from execugraph.domain.problem import Problem
from execugraph.workflow.single import run_single
from execugraph.workflow.trial import TrialDeps
from standins.ollama_server import OllamaStandIn, embedded_responder
from standins.role_responder import role_responder
from standins.scripted import fenced

pytestmark = pytest.mark.integration

MODEL = "qwen2.5-coder:7b-instruct-q4_K_M"
GOOD = "def add(a, b):\n    return a + b\n"
WRONG = "def add(a, b):\n    return a - b\n"
REVIEW = json.dumps({"invariants": [], "potential_failures": [], "severity": "low"})


@pytest.fixture
def problem() -> Problem:
    tests = [{"kind": "call", "expr": "add(1, 2)", "expected": 3}, {"kind": "call", "expr": "add(0, 0)", "expected": 0}]
    return Problem(id="add", statement="Return a + b.", entry_point="add", signature="add(a, b)", tests=tests)


@pytest.fixture(scope="module")
def pool():
    from sandbox import SandboxPool

    with SandboxPool(workers=1) as shared:
        yield shared


def replies():
    return {
        "planner": ["add them"],
        "generator": [fenced(WRONG), fenced(GOOD)],
        "reviewer": [REVIEW],
        "optimizer": [fenced(GOOD)],
        "explainer": ["adds"],
        "evaluator": ["[]"],
    }


def test_multi_full_over_real_ollama_http(sqlite_store, pool, problem):
    responder = role_responder(replies())
    with OllamaStandIn(responder=responder, models=[MODEL]) as server:
        config = resolve_condition("multi-full", default_model=f"ollama:{MODEL}")
        _, result = run_single(sqlite_store, problem, config, TrialDeps(pool=pool, ollama_host=server.url))
        assert result.status == "done" and result.passed and result.retries_used == 1
        assert responder.asked == [
            "planner",
            "generator",
            "reviewer",
            "generator",
            "reviewer",
            "optimizer",
            "explainer",
        ]
        assert all(r.options.get("seed") == 0 for r in server.requests)
        # the explainer is capped and penalised for repeating itself; the other roles decode as configured
        *others, explainer = server.requests
        assert explainer.options.get("num_predict") == EXPLAINER_MAX_TOKENS
        assert explainer.options.get("repeat_penalty") == EXPLAINER_REPEAT_PENALTY
        assert all(r.options.get("num_predict") == config.max_tokens for r in others)
        assert all(r.options.get("repeat_penalty") is None for r in others)
    calls = sqlite_store.llm_calls_for_trial(result.trial_id)
    assert {c.provider for c in calls} == {"ollama"} and all(c.tokens_out > 0 for c in calls)
    assert all(c.model == f"ollama:{MODEL}" and c.latency_s >= 0 for c in calls)
    trial = sqlite_store.get_trial(result.trial_id)
    assert trial.llm_calls == 7 and trial.tokens_in > 0 and trial.tokens_out > 0


def test_missing_model_names_host_and_model(sqlite_store, pool, problem):
    with OllamaStandIn(models=[MODEL]) as server:
        config = resolve_condition("single-oneshot", default_model="ollama:llama9:404b")
        run_id, result = run_single(sqlite_store, problem, config, TrialDeps(pool=pool, ollama_host=server.url))
    assert result.status == "error"
    assert "llama9:404b" in result.message and server.url in result.message and "ollama pull" in result.message
    assert sqlite_store.get_trial(result.trial_id).error_class == "llm_error"


def test_unreachable_ollama_names_the_host(sqlite_store, pool, problem):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    host = f"http://127.0.0.1:{port}"
    config = resolve_condition("single-oneshot", default_model=f"ollama:{MODEL}", outage_budget_s=1.0)
    _, result = run_single(sqlite_store, problem, config, TrialDeps(pool=pool, ollama_host=host))
    # waited out for the (short) outage budget, then ended naming the host, the last error and how long
    assert result.status == "error" and f"{host} unreachable for " in result.message
    assert "last error: ConnectionError" in result.message and "outage budget 1 s" in result.message


def test_greedy_calls_are_cached_and_hits_recorded(sqlite_store, pool, problem):
    responder = role_responder({"generator": [fenced(GOOD)]})
    with OllamaStandIn(responder=responder, models=[MODEL]) as server:
        config = resolve_condition("single-oneshot", default_model=f"ollama:{MODEL}")
        deps = TrialDeps(pool=pool, ollama_host=server.url)
        _, first = run_single(sqlite_store, problem, config, deps)
        _, second = run_single(sqlite_store, problem, config, deps)
        assert len(server.requests) == 1  # the second trial never reached the server
    assert [c.cache_hit for c in sqlite_store.llm_calls_for_trial(first.trial_id)] == [False]
    assert [c.cache_hit for c in sqlite_store.llm_calls_for_trial(second.trial_id)] == [True]
    assert first.final_code == second.final_code and second.passed


def test_replay_reproduces_identical_trial_records(sqlite_store, pool, problem):
    responder = role_responder(replies())
    with OllamaStandIn(responder=responder, models=[MODEL]) as server:
        config = resolve_condition("multi-full", default_model=f"ollama:{MODEL}", cache=False)
        original_run, original = run_single(sqlite_store, problem, config, TrialDeps(pool=pool, ollama_host=server.url))
    replay = resolve_condition("multi-full", default_model=f"replay:{original_run}")
    _, replayed = run_single(sqlite_store, problem, replay, TrialDeps(pool=pool))
    fields = (
        "status",
        "passed",
        "tests_passed",
        "tests_total",
        "retries_used",
        "error_class",
        "test_source",
        "final_code",
        "explanation",
        "llm_calls",
    )
    a, b = sqlite_store.get_trial(original.trial_id), sqlite_store.get_trial(replayed.trial_id)
    assert {f: getattr(a, f) for f in fields} == {f: getattr(b, f) for f in fields}
    assert original.nodes == replayed.nodes
    assert {c.provider for c in sqlite_store.llm_calls_for_trial(replayed.trial_id)} == {"replay"}


def test_replay_of_a_different_problem_is_a_clear_error(sqlite_store, pool, problem):
    config = resolve_condition("single-oneshot", default_model="ollama:x")
    with OllamaStandIn(responder=role_responder({"generator": [fenced(GOOD)]}), models=["x"]) as server:
        run_id, _ = run_single(sqlite_store, problem, config, TrialDeps(pool=pool, ollama_host=server.url))
    other = problem.model_copy(update={"id": "other", "statement": "Return a * b."})
    _, result = run_single(
        sqlite_store, other, resolve_condition("single-oneshot", default_model=f"replay:{run_id}"), TrialDeps(pool=pool)
    )
    assert result.status == "error" and f"replay:{run_id}" in result.message


@pytest.mark.slow
def test_ollama_path_answered_by_the_embedded_model(sqlite_store, pool, problem):
    with OllamaStandIn(responder=embedded_responder(max_tokens=96), models=[MODEL]) as server:
        config = resolve_condition("single-oneshot", default_model=f"ollama:{MODEL}", max_tokens=96)
        _, result = run_single(sqlite_store, problem, config, TrialDeps(pool=pool, ollama_host=server.url))
    assert result.status == "done" and result.verdict is not None
    assert sqlite_store.llm_calls_for_trial(result.trial_id)[0].response.strip()


@pytest.mark.slow
def test_multi_full_end_to_end_on_the_embedded_model(sqlite_store, pool, problem):
    config = resolve_condition("multi-full", default_model="llamacpp:default", max_tokens=160, retry_budget=1)
    _, result = run_single(sqlite_store, problem, config, TrialDeps(pool=pool))
    assert result.status == "done", result.message
    steps = sqlite_store.steps_for_trial(result.trial_id)
    nodes = [s.node for s in steps]
    assert nodes[:3] == ["planner", "generator", "reviewer"] and nodes[-2:] == ["grade", "explainer"]
    assert all(s.ended_at is not None for s in steps)
    calls = sqlite_store.llm_calls_for_trial(result.trial_id)
    assert len(calls) == sqlite_store.get_trial(result.trial_id).llm_calls >= 4
    assert sqlite_store.executions_for_trial(result.trial_id)  # it ran in the sandbox, pass or fail
