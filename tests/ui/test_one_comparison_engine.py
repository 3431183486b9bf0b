"""Every surface gives the same p, Holm p and conclusion for the same pair, under every verdict set.

Random families (runs of one or two benchmarks, one or two conditions each, a with-prompt
rescore child per run whose verdicts flip at random, all pairs or a random baseline) are
written to a real SQLite file, then read back through: the engine itself
(`protocol_sensitivity`), `python -m execugraph stats --json` and `report --format csv` as
real subprocesses, the Statistics page (AppTest, with the family picked in the form), and
an exported bundle's summary.json. Also the rule itself at a delta of 1e-12 pp.
"""

from __future__ import annotations

import csv
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from execugraph.configuration.conditions import resolve_condition
from execugraph.publication import bundle_files, layout
from execugraph.reproduce.conclusions import claim
from execugraph.stats import build_report
from execugraph.stats.family import Family
from execugraph.stats.tables import P, display
from execugraph.store import Store, Trial, utcnow
from execugraph.store.bulk_insert import bulk_writes
from execugraph.verdicts.compare import ALPHA, conclusion, direction, survives
from execugraph.verdicts.sensitivity import protocol_sensitivity
from execugraph.verdicts.verdict_sets import AS_RUN
from tests.ui.conftest import no_exception
from ui.keys import Statistics

PROJECT = Path(__file__).resolve().parents[2]
CONDITIONS = ("single-oneshot", "single-retry", "multi-full")


def _rows(run_id: int, benchmark: str, keys: list[tuple[str, str, int]], verdicts: list[bool], protocol: str) -> list:
    return [
        {"run_id": run_id, "problem_id": pid, "benchmark": benchmark, "category": "dp", "condition": condition,
         "seed": 0, "trial_index": index, "status": "done", "passed": ok, "tests_passed": int(ok), "tests_total": 1,
         "test_source": "problem", "error_class": None if ok else "wrong_answer", "grading_protocol": protocol,
         "final_code": "def f():\n    return 1\n", "finished_at": utcnow()}
        for (pid, condition, index), ok in zip(keys, verdicts, strict=True)
    ]


def build_family(store: Store, rng: random.Random) -> list[int]:
    """Two or three runs (the third maybe of another benchmark), each with a with-prompt rescore child."""
    ids = []
    for r in range(rng.randint(2, 3)):
        benchmark = "humaneval" if r < 2 or rng.random() < 0.5 else "internal30"
        conditions = rng.sample(CONDITIONS, rng.randint(1, 2))
        config = {"conditions": {c: resolve_condition(c).model_dump() for c in conditions}}
        run_id = store.create_run("batch", f"arm set {r}", config, benchmark=benchmark, status="done")
        pool = [f"{benchmark}_{i}" for i in range(12)]
        problems = rng.sample(pool, rng.randint(6, 12))
        trials = rng.randint(1, 3)
        keys = [(p, c, t) for c in conditions for p in problems for t in range(trials)]
        rate = {c: rng.random() for c in conditions}
        verdicts = [rng.random() < rate[c] for _p, c, _t in keys]
        flipped = [not v if rng.random() < 0.3 else v for v in verdicts]
        child = store.create_run("rescore", f"arm set {r} rescored", {"rescore": {"grading_protocol": "with-prompt",
                                 "tests": "recorded"}}, benchmark=benchmark, parent_run_id=run_id, status="done")
        with bulk_writes(store) as bulk:
            bulk.insert(Trial, _rows(run_id, benchmark, keys, verdicts, "standalone"))
            bulk.insert(Trial, _rows(child, benchmark, keys, flipped, "with-prompt"))
        ids.append(run_id)
    return ids


def _cli(db: Path, *args: str) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "execugraph", "--db", str(db), *args], capture_output=True,
                          text=True, timeout=300, cwd=PROJECT)
    assert done.returncode == 0, done.stderr
    return done


def _family_args(baseline: str | None) -> list[str]:
    return ["--baseline", baseline] if baseline else []


@pytest.mark.parametrize("seed", [3, 11, 29])
def test_every_surface_gives_one_p_holm_p_and_conclusion_per_pair(seed, app, db_store, tmp_path):
    rng = random.Random(seed)
    ids = build_family(db_store, rng)
    arms = build_report(db_store, [str(r) for r in ids]).arms
    baseline = rng.choice([None, *(a.label for a in arms)])
    family = Family(baseline=baseline)
    runs = [str(r) for r in ids]

    engine = protocol_sensitivity(db_store, ids, family=family)
    assert engine.available, engine.missing
    report = build_report(db_store, runs, family=family)
    by_name = {(p.a_name, p.b_name): p for p in report.pairs}
    assert len(engine.pairs) == len(by_name) and engine.holm_family_size == dict.fromkeys(
        engine.sets or [], len(by_name))
    for pair in engine.pairs:  # "as run" is the paired table, exactly
        shown = by_name[(pair.a, pair.b)]
        assert pair.by_set[AS_RUN].p_holm == shown.p_holm
        assert pair.by_set[AS_RUN].p_wilcoxon == shown.p_wilcoxon
        assert pair.same_conclusion == (conclusion(pair.by_set[AS_RUN]) == conclusion(
            pair.by_set["with-prompt"]) == conclusion(pair.by_set["standalone"]))

    db = tmp_path / "runs.db"
    cli = json.loads(_cli(db, "stats", "--runs", *runs, "--json", *_family_args(baseline)).stdout)
    assert [(p["a_name"], p["b_name"], p["p_wilcoxon"], p["p_holm"]) for p in cli["pairs"]] == [
        (p.a_name, p.b_name, p.p_wilcoxon, p.p_holm) for p in report.pairs]
    assert cli["protocol_sensitivity"]["pairs"] == json.loads(json.dumps(engine.to_json_dict()["pairs"]))

    out = tmp_path / "tables"
    _cli(db, "report", "--runs", *runs, "--format", "csv", "--out", str(out), *_family_args(baseline))
    with (out / "paired.csv").open(newline="") as f:
        table = list(csv.DictReader(f))
    assert len(table) == len(report.pairs)
    for row, pair in zip(table, report.pairs, strict=True):
        assert abs(float(row["p (Holm)"]) - pair.p_holm) < 1e-12

    at = app("statistics", runs=",".join(runs))
    if baseline:
        at.selectbox(key=Statistics.COMPARE).set_value(baseline).run()
    no_exception(at)
    paired = next(t.value for t in at.table if "p (Holm)" in t.value.columns)
    shown = {(row.iloc[0], row.iloc[1]): row["p (Holm)"] for _, row in paired.iterrows()}  # A, B, ...
    assert shown == {k: display(p.p_holm, P) for k, p in by_name.items()}
    sensitivity = next(d.value for d in at.dataframe if "same conclusion" in d.value.columns)
    for (_, row), pair in zip(sensitivity.iterrows(), engine.pairs, strict=True):
        assert row["comparison"] == f"{pair.b} - {pair.a}"
        for name in engine.sets or []:
            assert row[f"p Holm {name}"] == round(pair.by_set[name].p_holm, 4)
        assert row["same conclusion"] == ("yes" if pair.same_conclusion else "NO")

    summary = json.loads(bundle_files(db_store, ids)[layout.SUMMARY])
    default = protocol_sensitivity(db_store, ids)  # an export states the default family: all comparable pairs
    exported = summary["protocol_sensitivity"]["pairs"]
    assert default.sets
    assert [[p["by_set"][s]["p_holm"] for s in default.sets] for p in exported] == [
        [p.by_set[s].p_holm for s in default.sets] for p in default.pairs]
    assert [p["same_conclusion"] for p in exported] == [p.same_conclusion for p in default.pairs]


def test_a_delta_of_1e_12_is_no_difference_for_every_rule():
    tiny = {"delta_pp": 1e-12, "p_holm": 0.5}
    zero = {"delta_pp": 0.0, "p_holm": 0.5}
    assert direction(1e-12) == 0 and direction(-1e-12) == 0 and direction(0.05) == 1
    assert survives(tiny, zero) and survives(zero, {"delta_pp": -1e-12, "p_holm": 0.9})
    assert claim(tiny, "a", "b") == "no difference, not significant"
    assert not survives({"delta_pp": 1e-12, "p_holm": ALPHA / 2}, {"delta_pp": 0.0, "p_holm": ALPHA})


def test_reproduce_json_states_the_same_numbers_as_stats_on_the_same_runs(db_store, tmp_path):
    """A reproduction and `stats` on its imported runs (with the rescores it made) agree set by set."""
    from execugraph.reproduce import reproduce_path
    from tests.support import published_study

    folder, dataset = published_study.write_study(tmp_path)
    reproduce_path(db_store, folder, tmp_path / "out", dataset=dataset, workers=2, figures=False)
    data = json.loads((tmp_path / "out" / "reproduce.json").read_text())
    ids = {r["name"]: r["run_id"] for r in data["local"]["runs"]}
    assert data["families"]
    checked = 0
    for section in data["families"]:
        runs = [ids[name] for name in section["runs"]]
        engine = protocol_sensitivity(db_store, runs, family=Family())
        if not engine.applies:  # no prompt preamble: the page shows no protocol table; the paired table agrees
            report = build_report(db_store, [str(r) for r in runs])
            assert [(p.p_wilcoxon, p.p_holm) for p in report.pairs] == [
                (c["published"]["p_wilcoxon"], c["published"]["p_holm"]) for c in section["comparisons"]]
            continue
        checked += 1
        assert engine.available and len(engine.pairs) == len(section["comparisons"]), engine.missing
        for pair, comparison in zip(engine.pairs, section["comparisons"], strict=True):
            assert (pair.a, pair.b) == (f"{comparison['a']} #{ids[comparison['a']]}",
                                              f"{comparison['b']} #{ids[comparison['b']]}")
            for ours, theirs in ((AS_RUN, "published"), ("standalone", "standalone"), ("with-prompt", "with-prompt")):
                for field in ("delta_pp", "p_wilcoxon", "p_holm"):
                    assert getattr(pair.by_set[ours], field) == comparison[theirs][field], (ours, field)
                assert conclusion(pair.by_set[ours]).model_dump() == comparison["conclusion"][theirs]
            assert pair.survives == {s: comparison["survives"][s] for s in ("standalone", "with-prompt")}
    assert checked, "no family of the study has a prompt preamble"
