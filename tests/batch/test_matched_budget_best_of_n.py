"""`batch --match-budget` with a best-of-N cheaper arm: each of its trials draws N samples, so the plan prices a
sample at the trial's cost over the samples its grade steps recorded (as `stats` counts pass@k), not a trial."""

from __future__ import annotations

import json

import pytest

from execugraph.batch.matched_budget_spec import parse_match_budget
from execugraph.batch.matched_plan import MAX_MATCHED_SAMPLES, plan_matched_budget
from execugraph.batch.spec import BatchSpec
from execugraph.store import Store
from standins.ollama_server import OllamaStandIn
from tests.batch.test_matched_budget_plan import cli, lucky_seeds, pilot
from tests.support.trace_rows import add_step

ARMS = ["best-of-n@4", "multi-full"]


def _history(store: Store, cheap_tokens: int, costly_tokens: int, *, record_samples: bool = True) -> None:
    """One stored batch of a best-of-4 arm and multi-full on fib; each best-of-4 trial's grade step drew 4 samples."""
    spec = BatchSpec(conditions=ARMS, default_model="ollama:m")
    configs = {c: spec.run_config(c).model_dump() for c in spec.arms}
    assert configs["best-of-n@4"]["best_of_n"] == 4
    run = store.create_run("batch", "history", {"batch": spec.model_dump(), "conditions": configs},
                           benchmark="internal30")
    for seed in range(3):
        for condition, tokens in (("best-of-n@4", cheap_tokens), ("multi-full", costly_tokens)):
            trial = store.create_trial(run, "fib", condition, seed, 0, category="dp", benchmark="internal30")
            if condition == "best-of-n@4" and record_samples:
                add_step(store, trial, "grade", output={"passed": True, "samples_total": 4, "samples_passed": 1})
            store.update_trial(trial, status="done", passed=True, tokens_in=tokens // 2,
                               tokens_out=tokens - tokens // 2, llm_calls=4, wallclock_s=1.0)


def _plan(store: Store):
    spec = BatchSpec(conditions=ARMS, default_model="ollama:m",
                     matched_budget=parse_match_budget("best-of-n@4=multi-full"))
    return plan_matched_budget(store, spec, problems=1).matched_budget


def test_a_best_of_n_sample_costs_a_trial_over_its_samples(sqlite_store):
    # 40 tokens per trial of 4 samples: 10 per sample, so multi-full's 10,000 buy 1,000 samples, capped at 50
    _history(sqlite_store, cheap_tokens=40, costly_tokens=10_000)
    planned = _plan(sqlite_store)
    assert planned.samples_per_trial == 4.0 and planned.cheap_cost == 10.0
    # 50 samples are 13 trials of 4 (not 50 trials, as counting each trial as one sample would queue)
    assert planned.extra_seeds == list(range(1, 13)) and planned.samples == 52
    assert planned.needed == 1250 and f"Capped at {MAX_MATCHED_SAMPLES} samples" in planned.text
    assert "13 seeds x 1 trials x 4 samples per trial" in planned.text


def test_uncapped_plan_rounds_samples_up_to_whole_trials(sqlite_store):
    _history(sqlite_store, cheap_tokens=400, costly_tokens=3_000)  # 100 per sample: k = 30, +25% = 38 samples
    planned = _plan(sqlite_store)
    assert planned.needed == 38 and len(planned.extra_seeds) == 9 and planned.samples == 40  # 10 trials of 4


def test_configured_n_when_no_grade_step_recorded_samples(sqlite_store):
    _history(sqlite_store, cheap_tokens=400, costly_tokens=3_000, record_samples=False)
    planned = _plan(sqlite_store)
    assert planned.samples_per_trial == 4.0 and planned.cheap_cost == 100.0


@pytest.mark.integration
def test_cli_plans_seeds_for_a_best_of_n_pilot(tmp_path):
    grid = ["--benchmark", "internal30", "--problems", "fib", "--conditions", "best-of-n@4,single-retry@3",
            "--model", "ollama:coder"]
    store, pilot_id, calls = pilot(tmp_path, grid)
    assert calls == {"best-of-n@4": 4, "single-retry@3": 4}  # per trial the same calls: per sample, a quarter

    with OllamaStandIn(responder=lucky_seeds, models=["coder"]) as server:
        matched = cli(tmp_path, "batch", *grid, "--match-budget", "best-of-n@4=single-retry@3:calls", "--wait",
                      host=server.url)
    assert matched.returncode == 0, matched.stderr
    run_id = json.loads(matched.stdout.splitlines()[0])["run_id"]
    plan = store.get_run(run_id).config["batch"]["matched_budget"]
    # 4 calls buy 4 samples of 1 call, +25% = 5 samples: two trials of 4 (seeds 0 and 1), not five trials
    assert plan["cheap_cost"] == 1.0 and plan["costly_cost"] == 4.0 and plan["samples_per_trial"] == 4.0
    assert plan["extra_seeds"] == [1] and plan["samples"] == 8
    assert "best-of-n@4 gets 8 samples per problem (2 seeds x 1 trials x 4 samples per trial)" in matched.stderr
    seeds = sorted((t.condition, t.seed) for t in store.trials_for_run(run_id))
    assert seeds == [("best-of-n@4", 0), ("best-of-n@4", 1), ("single-retry@3", 0)]

    as_json = json.loads(cli(tmp_path, "stats", "--runs", str(run_id), "--json").stdout)
    (planned,) = as_json["planned_matched_budgets"]
    assert planned["samples"] == 8 and "4 samples per trial" in planned["plan"]
    (arm,) = [a for a in as_json["arms"] if a["condition"] == "best-of-n@4"]
    assert arm["best_of_n"] == 4 and arm["trials"] == 2  # the 8 samples stats' pass@k counts
    # both arms spend 4 calls a trial, so only a per-sample rule (as the plan's) finds the budget: 4 samples of 1
    result = planned["result"]
    assert result is not None, planned["note"]
    assert (result["metric"], result["cost_per_sample"], result["budget"], result["k"]) == ("llm_calls", 1.0, 4.0, 4)
    assert result["max_samples"] == 8 and result["clipped_problems"] == 0
