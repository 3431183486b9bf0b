"""The retry-budget sweep compares like with like: one series per benchmark and condition, published budgets kept,
arms without graded trials never drawn at 0%."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from execugraph.figures import charts
from execugraph.figures.report_figures import report_figures
from execugraph.publication import import_path
from execugraph.stats import build_report, build_report_from_records
from execugraph.stats.all_tables import publication_tables
from execugraph.stats.budgets import condition_family, ran_retries
from execugraph.stats.records import arm_from_records, to_record
from execugraph.stats.report_model import StatsReport
from execugraph.stats.retries import retry_sweep
from execugraph.stats.tables import MISSING, retry_table
from execugraph.store import Store

PROBLEMS = ("p1", "p2", "p3", "p4")


def _records(run: str, condition: str, benchmark: str, passes: int, **kw) -> list[dict]:
    """One trial per problem; the first `passes` problems pass."""
    return [{"run_id": run, "problem_id": p, "condition": condition, "seed": 0, "trial_index": 0,
             "passed": i < passes, "benchmark": benchmark, "llm_calls": 1, **kw} for i, p in enumerate(PROBLEMS)]


def _report(runs: dict[str, tuple[str, str, int]], **kw) -> StatsReport:
    """run id -> (condition, benchmark, passes): one run per arm, titled by its id; names lose their ` #id`
    so the assertions read as the study does."""
    records = [r for run, (c, b, n) in runs.items() for r in _records(run, c, b, n, **kw.get(run, {}))]
    meta = {run: {"title": run} for run in runs}
    return _short(build_report_from_records(records, list(runs), runs_meta=meta, n_boot=200))


def _short(report: StatsReport) -> StatsReport:
    """The report with every `name #id` as `name` (read back from its JSON, as from a file)."""
    return StatsReport.from_json(json.loads(re.sub(r" #[\w-]+", "", json.dumps(report.to_json_dict()))))


def test_condition_family_strips_only_a_budget_suffix():
    assert condition_family("multi-full@2") == "multi-full"
    assert condition_family("multi-full") == "multi-full"
    assert condition_family("single-retry@0") == "single-retry"
    assert condition_family("best-of-n@5") == "best-of-n@5"  # its suffix counts samples
    assert condition_family("paper-cond@2") == "paper-cond@2"  # unknown: we cannot tell what @2 means
    assert condition_family(None) is None


def test_the_published_study_pools_nothing_across_conditions_or_benchmarks():
    report = _report({
        "e1_so": ("single-oneshot", "internal30", 2),
        "e1_sr": ("single-retry@2", "internal30", 3),
        "e1_mf": ("multi-full@2", "internal30", 4),
        "e2_he_so": ("single-oneshot", "humaneval", 3),
        "e2_he_mf": ("multi-full@2", "humaneval", 4),
    })
    assert report.retry_budgets == []  # every series has one budget: nothing to sweep
    notes = [m.note for m in report.retry_budget_missing]
    assert notes[0] == "e1_so: only budget 0 in internal30 · single-oneshot; nothing to sweep"
    assert len(notes) == 5 and all("nothing to sweep" in n for n in notes)
    assert {(m.benchmark, m.condition) for m in report.retry_budget_missing} == {
        ("internal30", "single-oneshot"), ("internal30", "single-retry"), ("internal30", "multi-full"),
        ("humaneval", "single-oneshot"), ("humaneval", "multi-full")}
    assert "retry_budget" not in report_figures(report)
    assert "retry_budget" not in {t.key for t in publication_tables(report)}


def test_one_condition_at_several_budgets_is_one_series_and_other_series_stay_apart():
    report = _report({
        "mf0": ("multi-full@0", "internal30", 1),
        "mf1": ("multi-full@1", "internal30", 2),
        "mf3": ("multi-full", "internal30", 3),
        "mf3b": ("multi-full@3", "internal30", 4),
        "sr0": ("single-retry@0", "internal30", 0),
        "sr2": ("single-retry@2", "internal30", 2),
        "he3": ("multi-full", "humaneval", 4),
        "so": ("single-oneshot", "internal30", 1),
    })
    rows = report.retry_budgets
    assert [(r.series, r.retry_budget, r.names) for r in rows] == [
        ("internal30 · multi-full", 0, ["mf0"]),
        ("internal30 · multi-full", 1, ["mf1"]),
        ("internal30 · multi-full", 3, ["mf3", "mf3b"]),  # the same condition and budget: pooled
        ("internal30 · single-retry", 0, ["sr0"]),
        ("internal30 · single-retry", 2, ["sr2"]),
    ]
    assert rows[2].trials == 8 and rows[2].pass_rate == pytest.approx(7 / 8)
    assert rows[2].conditions == ["multi-full", "multi-full@3"] and rows[2].graded == 8
    assert [m.names for m in report.retry_budget_missing] == [["he3"], ["so"]]
    fig = report_figures(report)["retry_budget"]
    # two series, each a pass-rate line and a calls line: no line joins one series to another
    assert [t.name for t in fig.data] == [
        "internal30 · multi-full: pass rate (%)", "internal30 · multi-full: mean LLM calls",
        "internal30 · single-retry: pass rate (%)", "internal30 · single-retry: mean LLM calls"]
    assert list(fig.data[0].x) == [0, 1, 3] and list(fig.data[0].y) == [25.0, 50.0, 87.5]
    assert list(fig.layout.xaxis.tickvals) == [0, 1, 2, 3]
    assert "Not a sweep: he3: only budget 3 in humaneval · multi-full" in fig.layout.annotations[0].text
    table = retry_table(report)
    shown = table.display_rows()
    assert [(r["Series"], r["Retry budget"], r["Arms"], r["Pass (%)"]) for r in shown][:3] == [
        ("internal30 · multi-full", "0", "mf0", "25.0"), ("internal30 · multi-full", "1", "mf1", "50.0"),
        ("internal30 · multi-full", "3", "mf3, mf3b", "87.5")]
    assert any(n.startswith("Not a sweep (left out): he3: only budget 3") for n in table.notes)


def test_a_budget_without_graded_trials_is_a_gap_not_zero():
    crashed = {"status": "error", "passed": None, "error_class": "llm_error"}
    report = _report({
        "mf0": ("multi-full@0", "internal30", 1),
        "mf1": ("multi-full@1", "internal30", 0),
        "mf3": ("multi-full@3", "internal30", 3),
    }, mf1=crashed)
    rows = report.retry_budgets
    assert [(r.retry_budget, r.graded) for r in rows] == [(0, 4), (1, 0), (3, 4)]
    fig = report_figures(report)
    assert list(fig["retry_budget"].data[0].y) == [25.0, None, 75.0]
    assert "No graded trials (not drawn): internal30 · multi-full at budget 1" in (
        fig["retry_budget"].layout.annotations[0].text)
    assert retry_table(report).display_rows()[1]["Pass (%)"] == MISSING
    # the all-errored arm has no bar, no point and no comparison drawn from nothing
    bars = fig["pass_rates"]
    assert list(bars.data[0].x) == ["mf0", "mf3"]
    assert bars.layout.annotations[0].text == "No graded trials (left out): mf1"
    assert [t for t in fig["cost_accuracy"].data[0].text] == ["mf0", "mf3"]
    assert all("mf1" not in label for label in fig["comparisons"].data[0].y)
    assert "mf1" in fig["comparisons"].layout.annotations[0].text


def test_a_series_with_only_one_graded_budget_is_not_a_sweep():
    crashed = {"status": "error", "passed": None}
    report = _report({"a": ("multi-full@0", "internal30", 1), "b": ("multi-full@2", "internal30", 0)}, b=crashed)
    assert report.retry_budgets == []
    (missing,) = report.retry_budget_missing
    assert missing.note == ("a, b: budgets 0, 2 in internal30 · multi-full, but only budget 0 has graded "
                               "trials; nothing to sweep")


def test_an_arm_without_trials_has_no_rate_rather_than_zero():
    queued = {"status": "queued", "passed": None}
    report = _report({"a": ("multi-full", "internal30", 2), "b": ("single-retry", "internal30", 0)}, b=queued)
    empty = report.arms[1]
    assert (empty.trials, empty.pass_rate, empty.ci_lo, empty.ci_hi) == (0, None, None, None)
    assert report.runs[1].pass_rate is None
    assert report.cost_vs_accuracy[1].pass_rate is None
    assert report.retry_budget_missing[0].note == "b: no graded trials; not in any sweep"
    figures = report_figures(report)
    assert list(figures["pass_rates"].data[0].x) == ["a"]
    assert list(figures["cost_accuracy"].data[0].text) == ["a"]
    for table in publication_tables(report):
        table.display_rows()  # every table shows None as a dash rather than failing


def test_arms_without_a_single_condition_are_named_not_pooled():
    recs = [to_record(r) for r in _records("1", "multi-full", "internal30", 2)]
    mixed = arm_from_records(recs, label="mixed", run_id="1", retry_budget=3)
    sweep = retry_sweep([mixed])
    assert sweep.rows == [] and sweep.missing[0]["note"] == "mixed: no single condition (a run of several); " \
                                                           "not in any sweep"
    assert retry_sweep([mixed], conditions={"mixed": "multi-full"}).missing[0]["condition"] == "multi-full"


def test_different_models_are_different_series():
    records = _records("1", "multi-full@0", "internal30", 1) + _records("2", "multi-full@3", "internal30", 3)
    meta = {"1": {"title": "a", "models": {"generator": "ollama:x"}},
            "2": {"title": "b", "models": {"generator": "ollama:y"}}}
    report = build_report_from_records(records, ["1", "2"], runs_meta=meta, n_boot=200)
    assert report.retry_budgets == []
    assert [m.series for m in report.retry_budget_missing] == [
        "internal30 · multi-full · ollama:x", "internal30 · multi-full · ollama:y"]


def test_whether_an_arm_ran_retries():
    assert ran_retries("single-oneshot", 2, [0]) is False  # a published harness budget the loop never used
    assert ran_retries("single-oneshot", 2, [0, 1]) is True  # ... an override that did retry
    assert ran_retries("single-retry", 2) is True
    assert ran_retries("multi-full", 0) is False
    assert ran_retries("paper-cond", 2) is True
    assert ran_retries("multi-full", None) is None


def test_retry_curve_draws_a_lone_point_without_a_line():
    fig = charts.retry_curve([{"series": "s", "retry_budget": 2, "pass_rate": 0.5, "mean_llm_calls": 3.0}])
    assert fig.data[0].mode == "markers" and list(fig.data[0].y) == [50.0]


def _write_folder(root: Path, name: str, condition: str, ids: list[str], budgets: list[int]) -> None:
    folder = root / name
    folder.mkdir(parents=True)
    pairs = enumerate(zip(ids, budgets, strict=True))
    lines = [{"problem_id": pid, "condition": condition, "seed": 0, "trial": 0, "passed": i % 2 == 0,
              "retry_budget": b, "retries_used": 0, "llm_calls": 1} for i, (pid, b) in pairs]
    (folder / "trials.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))


def test_a_published_budget_is_kept_as_published(tmp_path: Path):
    internal = ["fib", "climb_stairs", "coin_change", "lcs"]
    humaneval = ["humaneval_0", "humaneval_2"]
    study = tmp_path / "study"
    _write_folder(study, "e1_so", "single-oneshot", internal, [2, 2, 2, 2])
    _write_folder(study, "e1_sr", "single-retry", internal, [2, 2, 2, 2])
    _write_folder(study, "e1_mf", "multi-full", internal, [2, 2, 2, 3])
    _write_folder(study, "e2_he_so", "single-oneshot", humaneval, [2, 2])
    _write_folder(study, "e2_he_mf", "multi-full", humaneval, [2, 2])
    with Store.open(str(tmp_path / "s.db")) as store:
        result = import_path(store, study)
        runs = {r.name.split("/")[-1]: r.id for r in result.runs}
        assert store.get_run(runs["e1_so"]).config["retry_budget_by_condition"] == {"single-oneshot": 2}
        assert store.get_run(runs["e1_mf"]).config["retry_budget_by_condition"] == {"multi-full": 2}
        assert any("records of 'multi-full' carry retry_budget 2 (3), 3 (1); kept 2" in w for w in result.warnings)
        report = _short(build_report(store, [str(runs[n]) for n in ("e1_so", "e1_sr", "e1_mf", "e2_he_so",
                                                                     "e2_he_mf")]))
    by_name = {a.name: a for a in report.arms}
    assert by_name["e1_so"].retry_budget == 2  # as published: not our one-shot default of 0
    assert report.retry_budgets == []  # five series of one budget each: nothing pooled, nothing joined
    assert report.retry_budget_missing[0].note == "e1_so: only budget 2 in internal30 · single-oneshot; " \
                                                        "nothing to sweep"
    kinds = {c.name: c.kind for c in report.sampling.control}
    assert kinds == {"e1_so": "one-shot", "e1_sr": "retry", "e1_mf": "multi-agent", "e2_he_so": "one-shot",
                     "e2_he_mf": "multi-agent"}  # a one-shot that never retried is still one-shot
