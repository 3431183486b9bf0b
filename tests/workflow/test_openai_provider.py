"""The `openai:<model>` provider against a real OpenAI-compatible server: llama-cpp-python's server on loopback.

One server per module (the embedded SmolLM2-135M as `smollm2`, behind an API key). Trials, a
batch and the `run` CLI go through it; the stored LLM calls are checked (provider, model, tokens
from the server's `usage`, latency), as are the cache, replay, health checks, pre-flight
messages, endpoint balancing and that the key is never stored, exported or shown.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from collections.abc import Iterator

import pytest

from execugraph.configuration.conditions import resolve_condition
from execugraph.configuration.settings import PROJECT_ROOT
from execugraph.domain.problem import Problem
from execugraph.providers.health import check_openai, openai_models
from execugraph.providers.llm import make_chat_model
from execugraph.store import Store
from execugraph.workflow.single import run_single
from execugraph.workflow.trial import TrialDeps
from tests.support import db_files
from tests.support.openai_server import ALIAS, LlamaCppServer, free_port

KEY = "sk-test-only-7f3a9c"  # what the server demands; must never appear in the store, a bundle or output
SPEC = f"openai:{ALIAS}"
SQUARE_TESTS = [{"kind": "call", "expr": f"square_it({i})", "expected": i * i} for i in (2, 3)]

pytestmark = [pytest.mark.integration, pytest.mark.slow]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaCppServer]:
    log = tmp_path_factory.mktemp("llama-server") / "server.log"
    with LlamaCppServer(api_key=KEY, log=log) as running:
        yield running


@pytest.fixture(autouse=True)
def openai_env(server: LlamaCppServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EXECUGRAPH_OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("EXECUGRAPH_OPENAI_API_KEY", KEY)


@pytest.fixture(scope="module")
def pool():
    from sandbox import SandboxPool

    with SandboxPool(workers=1) as shared:
        yield shared


@pytest.fixture
def problem() -> Problem:
    return Problem(id="square", statement="Return the square of x.", entry_point="square_it", tests=SQUARE_TESTS)


def _assert_openai_calls(store: Store, trial_id: int, at_least: int = 1) -> list:
    calls = store.llm_calls_for_trial(trial_id)
    assert len(calls) >= at_least
    for call in calls:
        assert call.provider == "openai" and call.model == SPEC, (call.provider, call.model)
        assert call.tokens_in > 10 and call.tokens_out > 0 and call.latency_s > 0 and not call.cache_hit
        assert call.response.strip()
    return calls


def test_single_oneshot_trial_through_the_server(sqlite_store, pool, problem):
    config = resolve_condition("single-oneshot", default_model=SPEC, max_tokens=96, cache=False)
    _, result = run_single(sqlite_store, problem, config, TrialDeps(pool=pool))
    assert result.status == "done", result.message
    (call,) = _assert_openai_calls(sqlite_store, result.trial_id)
    trial = sqlite_store.get_trial(result.trial_id)
    assert trial.tokens_in == call.tokens_in and trial.tokens_out == call.tokens_out and trial.llm_calls == 1


def test_multi_full_trial_through_the_server(sqlite_store, pool, problem):
    config = resolve_condition("multi-full", default_model=SPEC, max_tokens=96, retry_budget=1, cache=False)
    _, result = run_single(sqlite_store, problem, config, TrialDeps(pool=pool))
    assert result.status == "done", result.message
    nodes = [s.node for s in sqlite_store.steps_for_trial(result.trial_id)]
    assert nodes[:3] == ["planner", "generator", "reviewer"] and "grade" in nodes
    calls = _assert_openai_calls(sqlite_store, result.trial_id, at_least=4)
    assert {c.role for c in calls} >= {"planner", "generator", "reviewer"}


def test_parameters_reach_the_server_and_usage_comes_back():
    prompt = [("user", "Count from one to twenty in words, separated by commas.")]
    short = make_chat_model(SPEC, max_tokens=5).invoke(prompt, stream=False)
    assert short.usage_metadata["output_tokens"] <= 5 and short.response_metadata["finish_reason"] == "length"
    stopped = make_chat_model(SPEC, max_tokens=64, stop=[","]).invoke(prompt, stream=False)
    assert "," not in stopped.content and stopped.content.strip()
    hot = [make_chat_model(SPEC, temperature=1.0, seed=11, max_tokens=24).invoke(prompt, stream=False).content
           for _ in range(2)]
    assert hot[0] == hot[1]  # the seed is passed through: same seed, same sample
    assert make_chat_model(SPEC).max_retries == 0  # the client never retries: our outage policy is the only one


def test_cache_key_includes_the_base_url_and_replay_reproduces(sqlite_store, pool, problem, server):
    config = resolve_condition("single-oneshot", default_model=SPEC, max_tokens=64)
    run_a, first = run_single(sqlite_store, problem, config, TrialDeps(pool=pool))
    _, second = run_single(sqlite_store, problem, config, TrialDeps(pool=pool))
    assert [c.cache_hit for c in sqlite_store.llm_calls_for_trial(second.trial_id)] == [True]
    other_url = server.base_url.replace("127.0.0.1", "localhost")  # the same server, named differently
    _, third = run_single(sqlite_store, problem, config, TrialDeps(pool=pool, openai_base_url=other_url))
    assert [c.cache_hit for c in sqlite_store.llm_calls_for_trial(third.trial_id)] == [False]
    replay = resolve_condition("single-oneshot", default_model=f"replay:{run_a}")
    _, replayed = run_single(sqlite_store, problem, replay, TrialDeps(pool=pool))
    assert replayed.final_code == first.final_code and replayed.verdict == first.verdict


def test_run_cli_as_in_the_issue(tmp_path, server):
    suite = tmp_path / "suite.json"
    suite.write_text(json.dumps({"tests": SQUARE_TESTS}))
    env = os.environ | {"EXECUGRAPH_DB": str(tmp_path / "cli.db")}
    result = subprocess.run(
        [sys.executable, "-m", "execugraph", "run", "--statement", "Return the square of x.", "--entry-point",
         "square_it", "--tests", str(suite), "--condition", "single-oneshot", "--model", SPEC, "--json"],
        cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["status"] == "done"
    with Store.open(str(tmp_path / "cli.db")) as store:
        _assert_openai_calls(store, summary["trial_id"])
        run = store.get_run(summary["run_id"])
        assert run.models["generator"] == SPEC
    assert KEY not in result.stdout + result.stderr


def test_a_two_trial_batch_and_the_key_is_never_stored_exported_or_shown(tmp_path):
    db = tmp_path / "batch.db"
    env = os.environ | {"EXECUGRAPH_DB": str(db)}

    def cli(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "execugraph", *args], cwd=PROJECT_ROOT, env=env,
                              capture_output=True, text=True, timeout=600)

    result = cli("batch", "--benchmark", "internal30", "--problems", "fib", "--conditions", "single-oneshot",
                 "--seeds", "0-1", "--model", SPEC, "--wait")
    assert result.returncode == 0, result.stderr
    run_id = json.loads(result.stdout.splitlines()[0])["run_id"]
    with Store.open(str(db)) as store:
        trials = store.trials_for_run(run_id)
        assert len(trials) == 2 and {t.status for t in trials} == {"done"}
        for trial in trials:
            _assert_openai_calls(store, trial.id)
        assert store.get_run(run_id).config["conditions"]["single-oneshot"]["llm_timeout_s"] > 0
    bundle = tmp_path / "bundle.zip"
    shown = [cli("export", "--run", str(run_id), "--out", str(bundle)), cli("status", "--json"),
             cli("doctor", "--no-load", "--json")]
    assert all(r.returncode == 0 for r in shown), [r.stderr for r in shown]
    assert KEY.encode() not in db_files.read_bytes(db) and KEY not in "".join(r.stdout + r.stderr for r in shown)
    with zipfile.ZipFile(bundle) as archive:
        assert all(KEY.encode() not in archive.read(name) for name in archive.namelist())
    doctor = {c["name"]: c for c in json.loads(shown[2].stdout)}
    assert doctor["openai server"]["level"] == "ok" and ALIAS in doctor["openai server"]["detail"]


def test_a_missing_key_is_a_clear_error_at_once(sqlite_store, pool, problem, monkeypatch):
    monkeypatch.delenv("EXECUGRAPH_OPENAI_API_KEY")
    config = resolve_condition("single-oneshot", default_model=SPEC, cache=False, outage_budget_s=600)
    _, result = run_single(sqlite_store, problem, config, TrialDeps(pool=pool))
    assert result.status == "error" and "EXECUGRAPH_OPENAI_API_KEY" in result.message and "401" in result.message
    assert check_openai(os.environ["EXECUGRAPH_OPENAI_BASE_URL"]).fix == "set EXECUGRAPH_OPENAI_API_KEY"


def test_health_choices_and_preflight(server):
    from ui import views

    assert openai_models(server.base_url, api_key=KEY) == [ALIAS]
    check = check_openai(server.base_url, KEY)
    assert check.level == "ok" and ALIAS in check.detail and KEY not in check.detail
    choices, why = views.model_choices("http://127.0.0.1:9")
    assert SPEC in choices and why is None  # Ollama is down, the OpenAI server is not
    assert views.model_problems([SPEC], "http://127.0.0.1:9") == []
    (unknown,) = views.model_problems(["openai:qwen-coder"], "http://127.0.0.1:9")
    assert f"not served by {server.base_url} (it serves: {ALIAS})" in unknown.problem
    down = f"http://127.0.0.1:{free_port()}/v1"
    (unreachable,) = views.model_problems([SPEC], "http://127.0.0.1:9", down)
    assert f"not reachable at {down}" in unreachable.problem and "EXECUGRAPH_OPENAI_BASE_URL" in unreachable.fix


def test_the_balancer_checks_openai_endpoints_by_their_model_list(server):
    from execugraph.scaleout.endpoints import EndpointBalancer

    down = f"http://127.0.0.1:{free_port()}/v1"
    balancer = EndpointBalancer([server.base_url, down], 2, required_models=[ALIAS], kind="openai")
    balancer.check_all()
    up, dead = balancer.endpoints
    assert up.healthy and not dead.healthy and f"GET {down}/models failed" in dead.reason
    assert {balancer.acquire().url for _ in range(2)} == {server.base_url}
    picky = EndpointBalancer([server.base_url], 1, required_models=["other-model"], kind="openai")
    picky.check_all()
    assert picky.endpoints[0].reason == f"health check: model(s) other-model not served by {server.base_url}"


def test_endpoint_outages_apply_to_openai_servers(sqlite_store, pool, problem):
    down = f"http://127.0.0.1:{free_port()}/v1"
    config = resolve_condition("single-oneshot", default_model=SPEC, cache=False, outage_budget_s=1.0)
    _, result = run_single(sqlite_store, problem, config, TrialDeps(pool=pool, openai_base_url=down))
    assert result.status == "error" and f"{down} unreachable for " in result.message
    assert "Connection refused" in result.message, result.message  # the root cause, not only "Connection error."

