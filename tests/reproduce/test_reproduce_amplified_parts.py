"""`reproduce --amplify`'s parts with the real sandbox and a real SQLite store: a missing suite is its own error
type, an amplified rescore is reused only for the same suite digest and sandbox policy, a family with a run left
ungraded says so in words in the report, and the amplified forest figure shows each comparison under both suites."""

from __future__ import annotations

from pathlib import Path

import pytest

from execugraph.amplify.references import reference_for
from execugraph.amplify.stored import NoAmplifiedSuite, resolve_suite
from execugraph.benchmarks import load_internal30
from execugraph.configuration.conditions import resolve_condition
from execugraph.reproduce import amplified
from execugraph.reproduce.families import StudyFamily, StudyRun
from execugraph.reproduce.progress import Progress
from execugraph.reproduce.study import Study
from execugraph.reproduce.writing import build_document, suites_text
from execugraph.store import Store, Trial, utcnow
from execugraph.store.bulk_insert import bulk_writes
from execugraph.verdicts.suite_sensitivity import amplified_child
from execugraph.verdicts.verdict_sets import PUBLISHED
from tests.support.amplify_wrong import WRONG_PLAUSIBLE

pytestmark = pytest.mark.integration

PROBLEMS = ("fib", "cycle_detect")


@pytest.fixture(scope="module")
def pool():
    from sandbox import SandboxPool

    with SandboxPool(workers=2) as shared:
        yield shared


def _run(store: Store, name: str, condition: str, wrong: bool, benchmark: str = "internal30") -> StudyRun:
    problems = {p.id: p for p in load_internal30() if p.id in PROBLEMS}
    config = {"conditions": {condition: resolve_condition(condition).model_dump()}}
    run_id = store.create_run("batch", name, config, benchmark=benchmark, status="done")
    rows = []
    for pid in PROBLEMS:
        code = WRONG_PLAUSIBLE.get(pid, "") if wrong and pid in WRONG_PLAUSIBLE else reference_for(problems[pid])
        rows.append({"run_id": run_id, "problem_id": pid, "benchmark": benchmark, "category": "x",
                     "condition": condition, "seed": 0, "trial_index": 0, "status": "done", "passed": True,
                     "tests_passed": 1, "tests_total": 1, "test_source": "problem", "error_class": None,
                     "final_code": code, "finished_at": utcnow()})
    with bulk_writes(store) as bulk:
        bulk.insert(Trial, rows)
    return StudyRun(id=run_id, name=name, folder=name, benchmark=benchmark, problems=frozenset(PROBLEMS),
                    conditions=(condition,), trials=len(rows))


def _study(section: dict, warnings: list[str]) -> Study:
    """The smallest study the report writer takes: no runs, one family (`section`), the given warnings."""
    data = {"input": {"results": "study", "dataset": None}, "runs": [], "families": [section], "warnings": warnings,
            "method": {"tests": "t", "kept_verdicts": "k", "conclusion": "c", "bootstrap": {"resamples": 1, "seed": 0}},
            "protocols": {}, "sandbox": {"policy_version": "p", "default_timeout_s": 1.0, "default_memory_mb": 1,
                                         "note": "n"}, "versions": {}}
    return Study(data, [], [amplified.suite_tables(section)], [{}])


def test_missing_suite_reuse_by_digest_and_policy_unavailable_family_and_figure(tmp_path: Path, pool) -> None:
    with Store.open(str(tmp_path / "runs.db")) as store:
        a = _run(store, "arm_a", "single-oneshot", wrong=False)
        b = _run(store, "arm_b", "single-retry", wrong=True)
        with pytest.raises(NoAmplifiedSuite) as missing:  # its own type, still a LookupError for other callers
            resolve_suite(store, a.id, "amplified")
        assert isinstance(missing.value, LookupError) and "no amplified version" in str(missing.value)
        with pytest.raises(ValueError):
            resolve_suite(store, a.id, "bigger")

        warnings: list[str] = []
        children = amplified.amplify_runs(store, [a], Progress(), lambda: pool, warnings)
        assert warnings == [] and set(children) == {a.id}
        family = StudyFamily("arms", [a, b], "test")

        # arm_b was never graded on amplified tests: the family is unavailable, and the report says so in words
        section = {"name": "arms", "slug": family.slug, "runs": ["arm_a", "arm_b"], "source": "test",
                   "mode": family.mode, "holm_family_size": {PUBLISHED: 1}, "comparisons": [], "excluded": []}
        section["suites"] = amplified.family_suites(store, family, children, n_boot=200, seed=0)
        assert section["suites"]["available"] is False and section["suites"]["missing"] == ["arm_b"]
        assert amplified.suite_tables(section) == [] and amplified.suite_figure(section) is None
        why = "arm_b: not graded on amplified tests (several amplified versions)"
        text = suites_text(section, [why, "arm_a: something else"])
        assert text.startswith("Not available for this family: arm_b could not be graded") and why in text
        assert "something else" not in text
        from execugraph.reproduce.document import to_html_text, to_markdown_text

        doc = build_document(_study(section, [why]), {})
        markdown, page = to_markdown_text(doc), to_html_text(doc)
        assert "### Conclusions under stronger tests" in markdown
        assert "Not available for this family: arm_b could not be graded" in markdown
        assert "<h3>Conclusions under stronger tests</h3>" in page and "Not available for this family" in page

        # both graded: arm_a's child (same suite digest, same policy) is reused, arm_b's is made
        again = amplified.amplify_runs(store, [a, b], Progress(), lambda: pool, warnings)
        assert warnings == [] and again[a.id] == children[a.id] and again[b.id] != children[a.id]
        section["suites"] = amplified.family_suites(store, family, again, n_boot=200, seed=0)
        assert section["suites"]["available"] is True
        (comparison,) = section["suites"]["comparisons"]
        assert comparison["original"]["delta_pp"] == 0 and comparison["amplified"]["delta_pp"] != 0
        assert suites_text(section, []).startswith("Graded again on the amplified tests (amplified:")
        figure = amplified.suite_figure(section)
        (trace,) = figure.data
        assert list(trace.y) == ["arm_b − arm_a · original tests", "arm_b − arm_a · amplified tests"]
        assert list(trace.x) == [comparison["original"]["delta_pp"], comparison["amplified"]["delta_pp"]]
        assert "original and the amplified tests" in figure.layout.title.text.replace("<br>", " ")

        # another sandbox policy (or another suite digest): rescored again, not reused
        from sandbox import POLICY_VERSION

        child = store.get_run(again[a.id])
        _, tests = resolve_suite(store, a.id, "amplified")
        assert amplified.reusable_child(store, a.id, tests, str(POLICY_VERSION)) == again[a.id]
        assert amplified.reusable_child(store, a.id, "amplified:ffffffffffff", str(POLICY_VERSION)) is None
        config = dict(child.config)
        store.update_run(child.id, config={**config, "rescore": {**config["rescore"], "policy_version": "sandbox-0"}})
        assert amplified.reusable_child(store, a.id, tests, str(POLICY_VERSION)) is None
        third = amplified.amplify_runs(store, [a], Progress(), lambda: pool, warnings)
        assert third[a.id] not in (again[a.id], again[b.id])
        assert amplified_child(store, a.id) == (third[a.id], tests)  # the newest: the one the comparison reads


def test_build_suite_returns_none_for_what_it_cannot_build(tmp_path: Path) -> None:
    with Store.open(str(tmp_path / "runs.db")) as store:
        # a benchmark we do not know, or one read from a user's file: nothing to build from, no error escapes
        assert amplified._build_suite(store, None, "no-such-benchmark", {"x"}) is None
        assert amplified._build_suite(store, None, "user", {"x"}) is None
        run = _run(store, "arm_u", "single-oneshot", wrong=False, benchmark="no-such-benchmark")
        warnings: list[str] = []
        assert amplified.amplify_runs(store, [run], Progress(), lambda: None, warnings) == {}
        (warning,) = warnings
        assert warning.startswith("arm_u: no amplified suite of no-such-benchmark is stored and none can be built")
