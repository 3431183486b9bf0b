"""Model time (summed LLM call seconds per trial) as a cost: compared only when asked for (`--cost model-time`)."""

from __future__ import annotations

import json
import math

import numpy as np
from scipy import stats as sps

from execugraph.stats import build_report

# problem -> model seconds of each LLM call of one trial, per condition (two trials per problem for "fast")
FAST = {"p1": [[1.0], [2.0]], "p2": [[1.5], [0.5]], "p3": [[2.0], [1.0]]}
SLOW = {"p1": [[3.0, 4.0]], "p2": [[5.0, 1.0]], "p3": [[2.5, 2.5, 3.0]]}


def _store_runs(store) -> int:
    run = store.create_run("batch", "model time", {}, benchmark="internal30")
    for condition, table in (("fast", FAST), ("slow", SLOW)):
        for problem, trials in table.items():
            for seed, calls in enumerate(trials):
                trial = store.create_trial(run, problem, condition, seed, 0, category="c", benchmark="internal30")
                store.update_trial(trial, status="done", passed=seed == 0, tokens_in=10, tokens_out=5,
                                   llm_calls=len(calls), wallclock_s=sum(calls) + 1.0)
                for seconds in calls:
                    store.add_llm_call(trial, role="generator", latency_s=seconds)
    # a trial with no stored call has no model time (not zero), and is left out of it
    trial = store.create_trial(run, "p4", "fast", 0, 0, category="c", benchmark="internal30")
    store.update_trial(trial, status="done", passed=True, tokens_in=10, tokens_out=5, llm_calls=0, wallclock_s=1.0)
    return run


def test_model_time_is_compared_per_arm_and_pair_when_asked(sqlite_store):
    run = _store_runs(sqlite_store)
    report = build_report(sqlite_store, [str(run)], cost="model-time")
    cost = report.cost_comparison
    assert cost.metric == "model_time_s"
    arms = {a.arm: a.metrics["model_time_s"] for a in cost.arms}
    assert arms["fast"].recorded == 6 and math.isclose(arms["fast"].mean, 8.0 / 6)
    assert arms["slow"].recorded == 3 and math.isclose(arms["slow"].mean, 21.0 / 3)

    (pair,) = [p for p in cost.pairs if p.metric == "model_time_s"]
    fast = {p: sum(map(sum, t)) / len(t) for p, t in FAST.items()}
    slow = {p: sum(map(sum, t)) / len(t) for p, t in SLOW.items()}
    diffs = np.array([slow[p] - fast[p] for p in sorted(FAST)]) * (1 if pair.b == "slow" else -1)
    half = sps.t.ppf(0.975, 2) * diffs.std(ddof=1) / math.sqrt(3)
    assert pair.n == 3 and math.isclose(pair.delta, diffs.mean())
    assert math.isclose(pair.ci_lo, diffs.mean() - half) and math.isclose(pair.ci_hi, diffs.mean() + half)
    assert {p.metric for p in cost.frontier} == {"tokens", "llm_calls", "wallclock_s", "model_time_s"}


def test_reports_that_do_not_ask_keep_their_shape(sqlite_store):
    run = _store_runs(sqlite_store)
    plain = build_report(sqlite_store, [str(run)])
    assert "model_time" not in json.dumps(plain.to_json_dict())
    asked = build_report(sqlite_store, [str(run)], cost="model-time").to_json_dict()
    for key in ("arms", "pairs", "runs", "family"):
        assert asked[key] == plain.to_json_dict()[key]  # nothing else moves
