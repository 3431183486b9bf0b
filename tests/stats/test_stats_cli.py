"""The statistics engine on a real store: SQL aggregation equals the record path, and the CLI.

A store is seeded through the Store API with a seeded random grid (four runs:
one-shot, multi-full, a mixed batch with crashed and unfinished trials, and a
best-of-N run whose samples live in its grade steps). `build_report` (GROUP BY
in SQL, on SQLite and PostgreSQL) must give exactly the dict that
`build_report_from_records` computes from the same trials in memory;
`python -m execugraph stats` runs as a real subprocess against a SQLite file.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from execugraph.stats import UnknownConditionError, UnknownRunError, build_report, build_report_from_records
from execugraph.store import Store
from tests.support.trace_rows import add_step

pytestmark = pytest.mark.integration

PROJECT_ROOT = Path(__file__).resolve().parents[2]
CATEGORIES = ("dp", "graph", "ds")
ERRORS = ("AssertionError", "Timeout", "SyntaxError", "WrongSignature")
PROBLEMS = [f"p{i:02d}" for i in range(24)]
N_BOOT = 2000  # the CLI uses the default 10,000; equality between paths does not depend on B


def seed_runs(store: Store) -> tuple[list[str], list[dict], dict[str, dict]]:
    """Seed four runs through the Store API; return their ids, the same trials as records, and run metadata."""
    rng = random.Random(42)
    plan = [
        ("oneshot", {"condition": "single-oneshot"}, ["single-oneshot"], 0.35),
        ("full", {"condition": "multi-full", "retry_budget": 2}, ["multi-full"], 0.6),
        (
            "mixed",
            {"conditions": ["single-oneshot", "multi-full"], "overrides": {}},
            ["single-oneshot", "multi-full"],
            0.5,
        ),
        ("sampling", {"conditions": ["best-of-n"], "overrides": {}}, ["best-of-n"], 0.2),
    ]
    ids, records, meta = [], [], {}
    for title, config, conditions, base in plan:
        run_id = store.create_run("batch", title, config, benchmark="internal30", status="running")
        ids.append(str(run_id))
        meta[str(run_id)] = {"title": title, "kind": "batch", "config": config}
        keys = [
            {
                "problem_id": pid,
                "condition": cond,
                "seed": 0,
                "trial_index": t,
                "category": CATEGORIES[i % 3],
                "feedback_source": "visible" if cond == "multi-full" else "grading",
            }
            for cond in conditions
            for i, pid in enumerate(PROBLEMS)
            for t in range(3)
        ]
        assert store.ensure_trials(run_id, keys) == len(keys)
        for trial in store.trials_for_run(run_id):
            difficulty = (int(trial.problem_id[1:]) % 6) / 10
            boost = 0.2 if trial.condition == "multi-full" else 0.0
            roll = rng.random()
            status = "done"
            if roll < 0.03:
                status = "error"
            elif roll < 0.06 and title == "mixed":
                status = rng.choice(["queued", "running", "cancelled"])
            samples = {}
            if trial.condition == "best-of-n" and status == "done":
                wins = sum(rng.random() < base for _ in range(4))
                samples = {"samples_total": 4, "samples_passed": wins}
                passed = wins > 0
            else:
                passed = status == "done" and rng.random() < base + boost - difficulty
            retries = rng.randint(0, 2) if trial.condition == "multi-full" else 0
            fields = {
                "status": status,
                "passed": None if status == "error" else passed,
                "error_class": None if passed or status == "error" else rng.choice(ERRORS),
                "retries_used": retries,
                "wallclock_s": round(rng.uniform(0.5, 9.0), 3),
                "tokens_in": rng.randint(100, 900),
                "tokens_out": rng.randint(20, 400),
                "llm_calls": {"single-oneshot": 1, "best-of-n": 4}.get(trial.condition, 4 + 2 * retries),
                "test_source": rng.choice(["problem", "problem", "problem", "generated", "smoke"]),
            }
            if status in ("done", "error"):
                add_step(store, trial.id, "generator", output={"samples_total": 99})  # not a grade step: ignored
                if samples:
                    add_step(store, trial.id, "grade", output={"passed": passed, **samples})
                store.finish_trial(trial.id, **fields)
            elif status != "queued":
                store.update_trial(trial.id, status=status)
            records.append(
                {
                    "run_id": str(run_id),
                    "problem_id": trial.problem_id,
                    "category": trial.category,
                    "condition": trial.condition,
                    "seed": trial.seed,
                    "trial_index": trial.trial_index,
                    "feedback_source": trial.feedback_source,
                    **(fields if status in ("done", "error") else {"status": status, "passed": None}),
                    **samples,
                }
            )
    return ids, records, meta


SELECTIONS = [
    ("two runs", lambda ids: (ids[:2], None)),
    ("four runs", lambda ids: (ids, None)),
    ("one run by condition", lambda ids: (ids[2:3], None)),
    ("runs x conditions", lambda ids: (ids[:3], ["multi-full", "single-oneshot"])),
    ("one condition", lambda ids: (ids[2:3], ["multi-full"])),
    ("best-of-n against one-shot", lambda ids: ([ids[0], ids[3]], None)),
]


def test_sql_path_equals_record_path(store: Store):
    ids, records, meta = seed_runs(store)
    for name, select in SELECTIONS:
        run_ids, conditions = select(ids)
        from_sql = build_report(store, run_ids, conditions, n_boot=N_BOOT)
        from_records = build_report_from_records(records, run_ids, conditions, runs_meta=meta, n_boot=N_BOOT)
        assert from_sql == from_records, name
        assert from_sql.runs[0].trials > 0, name
        if len(from_sql.arms) > 1:
            assert any(p.n > 0 for p in from_sql.pairs), name

    mixed = build_report(store, ids[2:3], n_boot=N_BOOT)
    assert set(mixed.runs[0].not_counted) <= {"queued", "running", "cancelled"}
    assert mixed.runs[0].not_counted
    assert [(a.label, a.retry_budget) for a in mixed.arms] == [("single-oneshot", 0), ("multi-full", 3)]
    assert "trial-error" in {e.error_class for a in mixed.arms for e in a.errors}

    sampling = build_report(store, [ids[0], ids[3]], n_boot=N_BOOT)
    (summary,) = sampling.sampling.best_of_n
    assert summary.n == 4 and summary.trials_with_samples > 60
    assert summary.pass_at_1 < summary.pass_at_n

    with pytest.raises(UnknownRunError, match="9999"):
        build_report(store, [ids[0], "9999"])
    with pytest.raises(UnknownRunError, match="abc"):
        build_report(store, ["abc"])
    with pytest.raises(UnknownConditionError, match="multi-rag"):
        build_report(store, ids, ["multi-rag"])


@pytest.fixture(scope="module")
def cli_runs(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Seed a SQLite store once and run the three CLI invocations side by side (each pays the CLI's start-up)."""
    folder = tmp_path_factory.mktemp("stats-cli")
    db = folder / "runs.db"
    with Store.open(str(db)) as store:
        ids, records, meta = seed_runs(store)
    env = {**os.environ, "EXECUGRAPH_DB": str(folder / "unused.db")}
    commands = {
        "json": ["stats", "--runs", ids[0], ids[1], "--json"],
        "table": ["stats", "--runs", *ids],
        "unknown": ["stats", "--runs", ids[0], "424242"],
        "bad-condition": ["stats", "--runs", ids[0], "--conditions", "nope"],
    }
    procs = {
        name: subprocess.Popen(
            [sys.executable, "-m", "execugraph", "--db", str(db), *args],
            cwd=PROJECT_ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name, args in commands.items()
    }
    results = {}
    for name, proc in procs.items():
        out, err = proc.communicate(timeout=300)
        results[name] = (proc.returncode, out, err)
    return {"db": db, "ids": ids, "records": records, "meta": meta, "results": results}


def test_cli_json_matches_build_report(cli_runs):
    rc, out, err = cli_runs["results"]["json"]
    assert rc == 0, err
    ids = cli_runs["ids"]
    printed = json.loads(out)
    for run in printed["runs"]:
        assert {"id", "trials", "pass_rate", "categories"} <= set(run)
    (pair,) = printed["pairs"]
    assert {"a", "b", "n", "problems_differ", "majority_discordant", "delta_pp", "ci_lo", "ci_hi", "p_wilcoxon",
            "p_mcnemar", "p_holm"} <= set(pair)
    assert (pair["a"], pair["b"], pair["n"]) == (ids[0], ids[1], len(PROBLEMS))
    sensitivity = printed.pop("protocol_sensitivity")  # the CLI adds it beside the shared report
    assert (sensitivity["available"], sensitivity["applies"]) == (False, False)  # internal-30 has no prompt
    with Store.open(str(cli_runs["db"])) as store:
        assert printed == build_report(store, ids[:2]).to_json_dict()
    assert printed == build_report_from_records(cli_runs["records"], ids[:2], runs_meta=cli_runs["meta"]).to_json_dict()


def test_cli_human_table(cli_runs):
    rc, out, err = cli_runs["results"]["table"]
    assert rc == 0, err
    with Store.open(str(cli_runs["db"])) as store:
        report = build_report(store, cli_runs["ids"])
    assert "Paired comparisons" in out and "p holm" in out and "Pass rate by category" in out
    assert len(report.pairs) == 6
    for pair in report.pairs:
        assert f"{pair.delta_pp:+.1f}" in out
    for run in report.runs:
        assert run.title in out


def test_cli_unknown_run_or_condition_exits_2(cli_runs):
    rc, out, err = cli_runs["results"]["unknown"]
    assert rc == 2 and out == ""
    assert "unknown run id(s): 424242" in err
    rc, out, err = cli_runs["results"]["bad-condition"]
    assert rc == 2 and out == ""
    assert "condition(s) nope not found" in err
