"""Amplified suites with the real sandbox: plausible wrong programs caught, references pass, the CLI, rescoring, stats."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from execugraph.amplify.adequacy import suite_adequacy
from execugraph.amplify.build import AMPLIFIED_KEY, GENERATOR_VERSION, amplify_benchmark
from execugraph.amplify.differential import problem_disagreements
from execugraph.amplify.references import reference_for
from execugraph.benchmarks import load_humaneval, load_internal30
from execugraph.configuration.settings import PROJECT_ROOT
from execugraph.grading.rules import GradingSettings, problem_grading_tests, sandbox_job
from execugraph.store import Store, Trial, utcnow
from execugraph.store.bulk_insert import bulk_writes
from tests.support.amplify_wrong import WRONG_PLAUSIBLE, seed_two_arms

pytestmark = pytest.mark.integration

SAMPLE = {"internal30": ["cycle_detect", "grid_shortest_path"], "humaneval": ["humaneval_4", "humaneval_35",
                                                                             "humaneval_58"]}


@pytest.fixture(scope="module")
def pool():
    from sandbox import SandboxPool

    with SandboxPool(workers=2) as shared:
        yield shared


@pytest.fixture(scope="module")
def problems() -> dict[str, object]:
    return {p.id: p for p in [*load_internal30(), *load_humaneval()]}


def _verdict(pool, problem, code: str) -> str:
    return pool.run_suite(*sandbox_job(problem, code, problem_grading_tests(problem), GradingSettings())).verdict


def test_internal30_references_pass_their_tests(pool) -> None:
    problems = load_internal30()
    missing = [p.id for p in problems if not reference_for(p)]
    assert not missing
    results = pool.run_many([sandbox_job(p, reference_for(p), problem_grading_tests(p), GradingSettings())
                             for p in problems])
    failing = {p.id: r.verdict for p, r in zip(problems, results, strict=True) if r.verdict != "passed"}
    assert failing == {}


@pytest.mark.parametrize("benchmark", sorted(SAMPLE))
def test_plausible_wrong_programs_pass_the_originals_and_fail_the_amplified_suite(pool, problems, benchmark) -> None:
    chosen = [problems[pid] for pid in SAMPLE[benchmark]]
    suite = amplify_benchmark(pool, benchmark, chosen, seed=0, per_problem=30)
    assert suite.name == f"{benchmark}+amplified:{suite.digest[:12]}"
    for original, amplified in zip(chosen, suite.stored_problems(), strict=True):
        wrong, reference = WRONG_PLAUSIBLE[original.id], reference_for(original)
        assert amplified.tests[: len(original.tests)] == original.tests  # originals first, unchanged
        new = amplified.tests[len(original.tests):]
        origins = ("example", "scaled", "stated", "statement", "boundary", "sign", "mutation", "hypothesis")
        assert new and all(t[AMPLIFIED_KEY] in origins for t in new)
        assert len({t["expr"] for t in new}) == len(new)
        assert _verdict(pool, original, wrong) == "passed", original.id
        assert _verdict(pool, amplified, wrong) != "passed", original.id
        assert _verdict(pool, amplified, reference) == "passed", original.id
        assert f"amplified by {GENERATOR_VERSION} (seed 0" in amplified.rationale
    counts = suite.provenance["problems"]
    assert all(counts[p.id]["added"] == len(problem_grading_tests(a)) - len(problem_grading_tests(p))
               for p, a in zip(chosen, suite.stored_problems(), strict=True))


def test_same_seed_same_suite_other_seed_other_suite(pool, problems) -> None:
    chosen = [problems["grid_shortest_path"], problems["humaneval_58"]]
    first = amplify_benchmark(pool, "mixed", chosen, seed=5, per_problem=8)
    again = amplify_benchmark(pool, "mixed", chosen, seed=5, per_problem=8)
    other = amplify_benchmark(pool, "mixed", chosen, seed=6, per_problem=8)
    assert first.digest == again.digest and first.provenance == again.provenance
    assert other.digest != first.digest


def test_mutation_score_of_amplified_tests_is_at_least_the_originals(pool, problems) -> None:
    chosen = [problems["grid_shortest_path"], problems["humaneval_35"]]
    suite = amplify_benchmark(pool, "mixed", chosen, seed=0, per_problem=20)
    found = suite_adequacy(pool, chosen, suite.stored_problems())
    for pid in ("grid_shortest_path", "humaneval_35"):
        score = found.problems[pid]
        assert score.mutants > 0 and score.amplified_killed >= score.original_killed
    assert found.total.amplified_killed >= found.total.original_killed


def test_without_a_reference_disagreeing_passing_programs_are_reported(pool, problems) -> None:
    problem = problems["cycle_detect"]
    programs = [reference_for(problem), WRONG_PLAUSIBLE["cycle_detect"]]
    found = problem_disagreements(pool, problem, programs, seed=0, per_problem=30)
    assert found and all(len(item["answers"]) == 2 for item in found)
    assert problem_disagreements(pool, problem, programs[:1], seed=0, per_problem=30) == []


def _cli(*args: str, db: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "EXECUGRAPH_DB": str(db)}
    return subprocess.run([sys.executable, "-m", "execugraph", *args], cwd=PROJECT_ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


def _seed_run(store: Store, problems: dict) -> int:
    """Two arms on internal-30: references everywhere vs the plausible wrong programs where we have them."""
    return seed_two_arms(store, problems, ["fib", "cycle_detect", "grid_shortest_path", "house_robber"], "amplify arms")


def test_cli_amplify_then_rescore_on_the_amplified_suite_shows_in_stats(tmp_path: Path, problems) -> None:
    db = tmp_path / "amp.db"
    with Store.open(str(db)) as store:
        run_id = _seed_run(store, problems)
    done = _cli("amplify", "--benchmark", "internal30", "--problems", "fib", "cycle_detect", "grid_shortest_path",
                "house_robber", "--seed", "0", "--per-problem", "30", "--json", db=db)
    assert done.returncode == 0, done.stderr
    provenance = json.loads(done.stdout)
    name = provenance["name"]
    assert name.startswith("internal30+amplified:") and provenance["seed"] == 0
    assert provenance["generator"] == GENERATOR_VERSION and len(provenance["reference_digest"]) == 64
    assert set(provenance["problems"]) == {"fib", "cycle_detect", "grid_shortest_path", "house_robber"}
    assert provenance["adequacy"]["total"]["mutants"] > 0
    with Store.open(str(db)) as store:
        stored = store.get_problem(name, "cycle_detect")
        assert stored is not None and any(t.get(AMPLIFIED_KEY) for t in stored.tests)

    plain = _cli("amplify", "--benchmark", "internal30", "--problems", "fib", "--no-store", "--no-adequacy", db=db)
    assert plain.returncode == 0 and "fib: 7 original +" in plain.stdout and "(not stored)" in plain.stdout

    rescored = _cli("rescore", "--run", str(run_id), "--suite", "amplified", "--json", db=db)
    assert rescored.returncode == 0, rescored.stderr
    report = json.loads(rescored.stdout)
    assert report["tests"] == f"amplified:{name.split(':')[1]}"
    flipped = {(f["problem_id"], f["condition"]) for f in report["flips"]}
    assert flipped == {("cycle_detect", "single-retry"), ("grid_shortest_path", "single-retry")}
    with Store.open(str(db)) as store:
        child = store.get_run(report["run_id"])
        assert child.config["rescore"]["tests"] == report["tests"] and child.config["benchmark_file"]["benchmark"] == name

    stats = _cli("stats", "--runs", str(run_id), "--json", db=db)
    assert stats.returncode == 0, stats.stderr
    shown = json.loads(stats.stdout)
    sensitivity = shown["suite_sensitivity"]
    assert sensitivity["available"] and sensitivity["sets"] == ["as run", "amplified"]
    (pair,) = sensitivity["pairs"]
    assert pair["by_set"]["as run"]["delta_pp"] == 0
    assert pair["by_set"]["amplified"]["delta_pp"] == pytest.approx(-50.0)
    assert sensitivity["changed_programs"] == 2
    # the amplified child is no protocol counterpart: the protocol table still asks for its own rescore
    assert report["run_id"] not in (shown.get("protocol_sensitivity") or {}).get("runs", {}).get("with-prompt", [])

    unknown = _cli("rescore", "--run", str(run_id), "--suite", "amplified:ffff", db=db)
    assert unknown.returncode == 2 and "no amplified version" in unknown.stderr


def test_cli_user_suite_differential_without_reference_and_amplified_with_reference_file(tmp_path: Path,
                                                                                       problems) -> None:
    source = problems["cycle_detect"]
    record = {"id": "cyc", "statement": source.statement, "entry_point": source.entry_point,
              "tests": source.tests, "category": "graph"}
    suite_file = tmp_path / "suite.jsonl"
    suite_file.write_text(json.dumps(record) + "\n", encoding="utf-8")
    from execugraph.benchmarks import load_user_suite

    (loaded,) = load_user_suite(path=suite_file)
    db = tmp_path / "user.db"
    with Store.open(str(db)) as store:
        run_id = store.create_run("batch", "user", {}, benchmark=loaded.benchmark, status="done")
        rows = [{"run_id": run_id, "problem_id": "cyc", "benchmark": loaded.benchmark, "category": "graph",
                 "condition": c, "seed": 0, "trial_index": 0, "status": "done", "passed": True, "tests_passed": 1,
                 "tests_total": 1, "test_source": "problem", "final_code": code, "finished_at": utcnow()}
                for c, code in (("a", reference_for(source)), ("b", WRONG_PLAUSIBLE["cycle_detect"]))]
        with bulk_writes(store) as bulk:
            bulk.insert(Trial, rows)
    done = _cli("amplify", "--benchmark", "user", "--path", str(suite_file), "--no-adequacy", "--json", db=db)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["problems"]["cyc"]["added"] == 0 and out["problems"]["cyc"]["note"].startswith("no reference")
    assert out["differential"]["cyc"], "the two passing programs disagree somewhere"

    references = tmp_path / "refs.jsonl"
    references.write_text(json.dumps({"id": "cyc", "reference": reference_for(source)}) + "\n", encoding="utf-8")
    done = _cli("amplify", "--benchmark", "user", "--path", str(suite_file), "--reference", str(references),
                "--no-adequacy", "--json", db=db)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["problems"]["cyc"]["added"] > 0 and out["references"] == 1 and "differential" not in out
    bad = _cli("amplify", "--benchmark", "user", "--path", str(suite_file), "--reference", str(suite_file), db=db)
    assert bad.returncode == 2 and "amplify:" in bad.stderr


def test_the_same_seed_gives_the_same_suite_in_fresh_processes(tmp_path: Path) -> None:
    digests = set()
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed, "EXECUGRAPH_DB": str(tmp_path / "x.db")}
        done = subprocess.run([sys.executable, "-m", "execugraph", "amplify", "--benchmark", "humaneval", "--problems",
                               "humaneval_58", "humaneval_1", "--seed", "3", "--no-store", "--no-adequacy", "--json"],
                              cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        digests.add(json.loads(done.stdout)["digest"])
    assert len(digests) == 1
