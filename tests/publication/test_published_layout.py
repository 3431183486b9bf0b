"""The published layout as published: import keeps what it does not know, files by problem id, brings its own
benchmark file, and rescoring it leaves nothing unresolved and says why every verdict flipped."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from execugraph.configuration.settings import DATA_DIR
from execugraph.publication import import_path
from execugraph.store import Store
from execugraph.verdicts import rescore_run
from ui.views.grading import recorded_grading
from ui.views.trace import step_rows

pytestmark = pytest.mark.integration

ROOT = DATA_DIR / "fixtures" / "reference_layout"
PUBLISHED = ROOT / "published-demo"
GRID = ROOT / "grid-demo"
PROJECT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def pool():
    from sandbox import SandboxPool

    with SandboxPool(workers=2) as shared:
        yield shared


@pytest.fixture
def store(tmp_path: Path):
    with Store.open(str(tmp_path / "published.db")) as opened:
        yield opened


def _runs(store: Store, path: Path = PUBLISHED) -> tuple[dict[str, int], list[str]]:
    result = import_path(store, path)
    return {r.name.split("/")[-1]: r.id for r in result.runs}, result.warnings


def test_unknown_values_are_kept_verbatim_and_a_source_is_only_a_hint(store: Store) -> None:
    runs, warnings = _runs(store)
    assert any("2 record(s) have test_source 'none'" in w and "kept as written" in w for w in warnings), warnings
    assert any(w.endswith("carry source 'apps-introductory' but are internal30 problems; filed under internal30 "
                          "(the source is kept in each trace)") and "grid_shortest_path, subset_sum, valid_parentheses"
               in w for w in warnings), warnings
    trials = store.trials_for_run(runs["e1_so"])
    assert {t.benchmark for t in trials} == {"internal30"}
    assert sorted(t.test_source for t in trials if t.problem_id == "climb_stairs") == ["none", "none"]
    config = store.get_run(runs["e1_so"]).config["reference"]
    bench = config["benchmark_file"]
    assert bench["file"] == "benchmark/internal30_published.jsonl" and bench["problems"] == 5
    assert bench["benchmark"].startswith("published:internal30_published@")
    stored = store.get_problem(bench["benchmark"], "subset_sum")
    assert stored is not None and len(stored.tests) == 5 and stored.source == "apps-introductory"
    assert "benchmark_file" not in store.get_run(runs["e2_he_so"]).config["reference"]  # no HumanEval in that file
    assert _runs(store)[0] == runs  # importing again duplicates nothing


def test_a_round_trip_rescore_leaves_nothing_unresolved_and_gives_every_flip_a_reason(store: Store, pool) -> None:
    runs, _ = _runs(store)
    report = rescore_run(store, runs["e1_so"], pool=pool)
    assert (report.trials, report.rescored, report.unresolved, report.skipped) == (7, 6, [], {"no_code": 1})
    assert report.origins == {"recorded": 6} and report.suite_changed == 0  # the tests the run was graded with
    flips = {f.problem_id: f for f in report.flips}
    assert set(flips) == {"valid_parentheses", "climb_stairs"} and all(f.reason for f in report.flips)
    assert flips["valid_parentheses"].causes == ("policy_changed",)
    assert "the old harness refused a module (ImportError: import of 'collections' is not allowed)" in flips[
        "valid_parentheses"].reason
    assert flips["climb_stairs"].causes[0] == "not_graded_then"
    child = store.trials_for_run(report.run_id)
    assert all(t.tests_total == 5 for t in child)  # graded on the published file's five tests
    assert store.get_run(report.run_id).config["benchmark_file"]["problems"] == 5

    current = rescore_run(store, runs["e1_so"], pool=pool, tests="current")
    assert current.origins == {"internal30": 6} and current.suite_changed == 5 and current.unresolved == []
    reasons = {f.problem_id: f.reason for f in current.flips}
    assert "the suite differs from the one recorded (5 tests then, 11 now)" in reasons["valid_parentheses"]


def test_the_protocol_decides_humaneval_programs_that_rely_on_the_prompt(store: Store, pool) -> None:
    runs, _ = _runs(store)
    standalone = rescore_run(store, runs["e2_he_so"], pool=pool)
    assert (standalone.rescored, standalone.unresolved) == (4, [])
    assert sorted(f.problem_id for f in standalone.flips) == ["humaneval_0", "humaneval_12"]
    assert all(f.causes[0] == "protocol_changed" and f.now == "runtime_error" for f in standalone.flips)
    assert all("the record does not say which protocol graded it then" in f.reason for f in standalone.flips)
    with_prompt = rescore_run(store, runs["e2_he_so"], pool=pool, protocol="with-prompt")
    assert (with_prompt.agree, with_prompt.flips) == (4, [])
    assert with_prompt.to_dict()["grading_protocol"] == "with-prompt"
    assert with_prompt.protocol_effect() == {"protocols": {"with-prompt": 4}, "with_preamble": 4,
                                             "without_preamble": 0, "completions": 0, "note": ""}
    internal = rescore_run(store, runs["e1_so"], pool=pool, protocol="with-prompt")
    assert "with-prompt coincides with standalone for them (internal30 6)" in internal.protocol_effect()["note"]


def test_rescore_json_carries_a_reason_on_each_flip(store: Store, tmp_path: Path) -> None:
    runs, _ = _runs(store)
    db = str(tmp_path / "published.db")
    done = subprocess.run(
        [sys.executable, "-m", "execugraph", "--db", db, "rescore", "--run", str(runs["e2_he_so"]), "--json",
         "--workers", "1"],
        capture_output=True, text=True, timeout=600, cwd=PROJECT,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["unresolved"] == 0 and len(report["flips"]) == 2
    assert all(f["reason"] and f["causes"] for f in report["flips"])
    bad = subprocess.run([sys.executable, "-m", "execugraph", "--db", db, "rescore", "--run", "1",
                          "--grading-protocol", "raw"], capture_output=True, text=True, timeout=120, cwd=PROJECT)
    assert bad.returncode == 2 and "invalid choice: 'raw'" in bad.stderr


def test_imported_and_rescored_trials_show_their_code_stderr_and_verdicts(store: Store, pool) -> None:
    runs, _ = _runs(store, GRID)
    climb = next(t for t in store.trials_for_run(runs["e1_so"]) if t.problem_id == "climb_stairs")
    view = recorded_grading(store, climb, step_rows(store, climb.id))
    assert view["kind"] == "imported" and view["code"].startswith("from functools import lru_cache")
    assert view["stderr"] == "ImportError: import of '_functools' is not allowed"
    assert (view["verdict"], view["test_source"], view["grading_protocol"]) == (
        "sandbox_violation", "deterministic", "not recorded")
    report = rescore_run(store, runs["e1_so"], pool=pool)
    rescored = next(t for t in store.trials_for_run(report.run_id) if t.problem_id == "climb_stairs")
    view = recorded_grading(store, rescored, step_rows(store, rescored.id))
    assert view["kind"] == "rescored" and view["verdict"] == "passed" and view["results"]
    assert "the sandbox policy changed" in view["message"]
    fib = next(t for t in store.trials_for_run(runs["e1_so"]) if t.problem_id == "fib")
    assert recorded_grading(store, fib, step_rows(store, fib.id))["original_verdict"] == "passed"
