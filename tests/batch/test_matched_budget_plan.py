"""`batch --match-budget CHEAP=COSTLY[:measure]`: extra seeds of the cheaper arm, planned from stored costs, and
`stats` reporting that pair's pass@k at the costlier arm's budget without being asked."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest

from execugraph.batch.matched_budget_spec import parse_match_budget
from execugraph.batch.matched_plan import MAX_MATCHED_SAMPLES, plan_matched_budget
from execugraph.batch.spec import BatchSpec
from execugraph.configuration.settings import PROJECT_ROOT
from execugraph.store import Store
from standins.ollama_server import OllamaStandIn

FIB = "```python\ndef fib(n):\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\n```"
WRONG = "```python\ndef fib(n):\n    return -1\n```"
GRID = ["--benchmark", "internal30", "--problems", "fib", "--conditions", "single-oneshot,single-retry@3",
        "--model", "ollama:coder"]


def lucky_seeds(model: str, messages: list[dict[str, Any]], options: dict[str, Any]) -> str:
    """Solves fib only when sampled with seed 2 or 4, so seed 0 fails every retry and one-shot varies by seed."""
    return FIB if options.get("seed") in (2, 4) else WRONG


def cli(tmp_path, *args: str, host: str = "http://127.0.0.1:9") -> subprocess.CompletedProcess:
    env = os.environ | {"OLLAMA_HOST": host, "EXECUGRAPH_DB": str(tmp_path / "budget.db")}
    return subprocess.run([sys.executable, "-m", "execugraph", *args], cwd=PROJECT_ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


def pilot(tmp_path, grid: list[str]) -> tuple[Store, int, dict[str, int]]:
    """Run `grid` as a pilot batch against the scripted stand-in: (its store, run id, LLM calls per condition)."""
    with OllamaStandIn(responder=lucky_seeds, models=["coder"]) as server:
        done = cli(tmp_path, "batch", *grid, "--wait", host=server.url)
        assert done.returncode == 0, done.stderr
    store = Store.open(str(tmp_path / "budget.db"))
    run_id = json.loads(done.stdout.splitlines()[0])["run_id"]
    return store, run_id, {t.condition: t.llm_calls for t in store.trials_for_run(run_id)}


def test_match_budget_words_parse_and_bad_ones_are_refused():
    plan = parse_match_budget("single-oneshot@qwen2.5-coder:7b=multi-full@qwen2.5-coder:7b:calls")
    assert (plan.cheap, plan.costly, plan.measure) == ("single-oneshot@qwen2.5-coder:7b",
                                                        "multi-full@qwen2.5-coder:7b", "calls")
    assert parse_match_budget("a=b").measure == "tokens"
    with pytest.raises(ValueError, match="CHEAP=COSTLY"):
        parse_match_budget("single-oneshot")
    with pytest.raises(ValueError, match="'nope' is not one of the batch's conditions"):
        BatchSpec(conditions=["single-oneshot", "multi-full"], matched_budget=parse_match_budget("nope=multi-full"))
    spec = BatchSpec(conditions=["single-oneshot", "multi-full"], seeds=[0, 1],
                     matched_budget=parse_match_budget("single-oneshot=multi-full").model_copy(
                         update={"extra_seeds": [2, 3], "samples": 4}))
    assert spec.seeds_of("single-oneshot") == [0, 1, 2, 3] and spec.seeds_of("multi-full") == [0, 1]


def _history(store: Store, cheap_tokens: int, costly_tokens: int) -> None:
    """One stored batch of both arms on internal30's fib, with the given tokens per trial."""
    spec = BatchSpec(conditions=["single-oneshot", "multi-full"], default_model="ollama:m")
    configs = {c: spec.run_config(c).model_dump() for c in spec.arms}
    run = store.create_run("batch", "history", {"batch": spec.model_dump(), "conditions": configs},
                           benchmark="internal30")
    for seed in range(3):
        for condition, tokens in (("single-oneshot", cheap_tokens), ("multi-full", costly_tokens)):
            trial = store.create_trial(run, "fib", condition, seed, 0, category="dp", benchmark="internal30")
            store.update_trial(trial, status="done", passed=True, tokens_in=tokens // 2, tokens_out=tokens - tokens // 2,
                               llm_calls=1, wallclock_s=1.0)


def test_plan_is_capped_and_says_so(sqlite_store):
    _history(sqlite_store, cheap_tokens=10, costly_tokens=10_000)
    spec = BatchSpec(conditions=["single-oneshot", "multi-full"], default_model="ollama:m",
                     matched_budget=parse_match_budget("single-oneshot=multi-full"))
    planned = plan_matched_budget(sqlite_store, spec, problems=1).matched_budget
    assert planned.samples == MAX_MATCHED_SAMPLES and planned.needed == 1250
    assert planned.extra_seeds == list(range(1, MAX_MATCHED_SAMPLES))
    assert f"Capped at {MAX_MATCHED_SAMPLES} samples per problem (the budget wants 1250)" in planned.text
    assert "1,000.0 samples" in planned.text or "1000.0 samples" in planned.text

    other_model = spec.model_copy(update={"default_model": "ollama:other"})
    with pytest.raises(ValueError, match="no finished trial of 'single-oneshot' on internal30 with model ollama:other"):
        plan_matched_budget(sqlite_store, other_model, problems=1)


@pytest.mark.integration
def test_cli_plans_from_a_pilot_and_stats_reports_the_pair_at_that_budget(tmp_path):
    no_history = cli(tmp_path, "batch", *GRID, "--match-budget", "single-oneshot=single-retry@3:calls")
    assert no_history.returncode == 2 and len(no_history.stderr.strip().splitlines()) == 1
    assert "no finished trial of 'single-oneshot' on internal30 with model ollama:coder" in no_history.stderr
    assert "pilot" in no_history.stderr

    store, pilot_id, calls = pilot(tmp_path, GRID)
    assert calls == {"single-oneshot": 1, "single-retry@3": 4}

    with OllamaStandIn(responder=lucky_seeds, models=["coder"]) as server:
        matched = cli(tmp_path, "batch", *GRID, "--match-budget", "single-oneshot=single-retry@3:calls", "--wait",
                      host=server.url)
    lines = [json.loads(line) for line in matched.stdout.splitlines()]
    run_id = lines[0]["run_id"]
    assert lines[0]["trials"] == 1 + 5  # retry at seed 0, one-shot at seeds 0-4: 4 calls buy 4 samples, +25% = 5
    assert "matched budget: single-oneshot gets 5 samples per problem" in matched.stderr
    plan = store.get_run(run_id).config["batch"]["matched_budget"]
    assert plan["extra_seeds"] == [1, 2, 3, 4] and plan["cheap_cost"] == 1.0 and plan["costly_cost"] == 4.0
    assert plan["history_runs"] == [pilot_id]
    seeds = sorted((t.condition, t.seed) for t in store.trials_for_run(run_id))
    assert seeds == [("single-oneshot", s) for s in range(5)] + [("single-retry@3", 0)]

    stats = cli(tmp_path, "stats", "--runs", str(run_id))
    assert stats.returncode == 0, stats.stderr
    assert "Planned matched budget (run " in stats.stdout and "Matched-budget baselines (LLM calls)" in stats.stdout
    assert "pass@4 100.0% against 0.0%" in stats.stdout

    as_json = json.loads(cli(tmp_path, "stats", "--runs", str(run_id), "--json").stdout)
    (planned,) = as_json["planned_matched_budgets"]
    assert planned["result"]["k"] == 4 and planned["result"]["metric"] == "llm_calls"
    assert planned["result"]["sampler_pass_at_k"] == 1.0 and planned["result"]["clipped_problems"] == 0
    assert as_json["cost_comparison"]["metric"] == "llm_calls"  # the plan's measure, without --cost

    plain = json.loads(cli(tmp_path, "stats", "--runs", str(pilot_id), "--json").stdout)
    assert "planned_matched_budgets" not in plain and plain["cost_comparison"]["metric"] == "tokens"
