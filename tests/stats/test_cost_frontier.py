"""Cost as an outcome, the accuracy-cost frontier and matched budgets, on arms shaped like the paper's HumanEval
arms (tests/stats/paper_arms.py), checked against scipy and hand-worked values, through records, the store, the
CLI's `stats --json` and the tables, with a hostile arm name kept inert everywhere."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as sps

from execugraph.cli.stats import format_report
from execugraph.safety.inert_text import md_text
from execugraph.stats import build_report, build_report_from_records
from execugraph.stats.all_tables import publication_tables
from execugraph.stats.cost_compare import cost_difference, metric_from_choice, ratio_interval
from execugraph.stats.frontier import dominance
from execugraph.stats.passk import pass_at_k
from execugraph.stats.table_format import render
from execugraph.store import Store
from tests.stats.paper_arms import META, MULTI, ONE_SHOT, PROBLEMS, RETRY, paper_records, write_paper_run
from tests.stats.test_stats_family_and_tables import check_latex_table

PROJECT = Path(__file__).resolve().parents[2]
HOSTILE = "<script>x</script>|$&_"


@pytest.fixture(scope="module")
def report():
    return build_report_from_records(paper_records(), ["1"], runs_meta=META)


def _per_problem_tokens(condition: str) -> np.ndarray:
    """Each problem's mean tokens per trial, computed from the records directly (not by the code under test)."""
    sums: dict[str, list[int]] = {}
    for r in paper_records():
        if r["condition"] == condition:
            sums.setdefault(r["problem_id"], []).append(r["tokens_in"] + r["tokens_out"])
    return np.array([np.mean(sums[p]) for p in PROBLEMS])


def test_multi_agent_is_dominated_by_retry_with_the_paired_token_difference(report):
    _, dominated, _ = report.cost_comparison.for_metric("tokens")
    assert [(d.dominated, d.by) for d in dominated] == [(MULTI, RETRY)]
    row = dominated[0]
    diffs = _per_problem_tokens(MULTI) - _per_problem_tokens(RETRY)
    assert diffs.mean() == pytest.approx(3029.4, abs=0.005)  # the fixture is built so (66 of 164 get + 1)
    assert row.saving == pytest.approx(diffs.mean(), rel=1e-12)
    lo, hi = sps.t.interval(0.95, diffs.size - 1, loc=diffs.mean(), scale=sps.sem(diffs))
    assert (row.saving_ci_lo, row.saving_ci_hi) == (pytest.approx(lo, rel=1e-12), pytest.approx(hi, rel=1e-12))
    # hand-worked: 134 vs 132 passes over 164 problems, retry ahead by 2/164
    assert row.delta_pp == pytest.approx(100 * 2 / 164)
    assert row.p_holm >= 0.05
    assert row.sentence.startswith(f"{RETRY} dominates {MULTI}: +1.2 pp accuracy (95% CI ")
    assert "3,029.4 fewer tokens per problem (95% CI " in row.sentence
    on = {p.name for p in report.cost_comparison.frontier if p.metric == "tokens" and p.on_frontier}
    assert on == {ONE_SHOT, RETRY}  # one-shot is cheaper but significantly less accurate: a trade-off


def test_cost_pairs_match_scipy_and_holm_over_the_family(report):
    pairs = [p for p in report.cost_comparison.pairs if p.metric == "tokens"]
    assert [(p.a_name, p.b_name) for p in pairs] == [(ONE_SHOT, RETRY), (ONE_SHOT, MULTI), (RETRY, MULTI)]
    raw = []
    for p in pairs:
        d = _per_problem_tokens(p.b_name) - _per_problem_tokens(p.a_name)
        assert p.delta == pytest.approx(d.mean()) and p.n == 164
        assert p.p_t == pytest.approx(sps.ttest_rel(_per_problem_tokens(p.b_name),
                                                    _per_problem_tokens(p.a_name)).pvalue, rel=1e-9, abs=1e-300)
        nonzero = d[d != 0]
        assert p.p_signed_rank == pytest.approx(sps.wilcoxon(nonzero, method="exact").pvalue, rel=1e-9)
        raw.append(p.p_signed_rank)
    # Holm by hand: sorted p times (3, 2, 1), running maximum, capped at 1
    order = np.argsort(raw, kind="stable")
    expected, running = [0.0] * 3, 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (3 - rank) * raw[i]))
        expected[i] = running
    assert [p.p_holm for p in pairs] == pytest.approx(expected)


def test_arm_cost_interval_is_the_t_interval_when_each_problem_has_one_trial(report):
    retry = next(a for a in report.cost_comparison.arms if a.name == RETRY).metrics["tokens"]
    x = _per_problem_tokens(RETRY)
    lo, hi = sps.t.interval(0.95, x.size - 1, loc=x.mean(), scale=sps.sem(x))
    assert retry.mean == pytest.approx(698.0) and retry.recorded == 164
    assert (retry.ci_lo, retry.ci_hi) == (pytest.approx(lo), pytest.approx(hi))
    # a ratio over clusters of unequal size, worked by hand: totals (10, 30), counts (1, 2): R = 40/3,
    # residuals (10 - 40/3, 30 - 80/3) = (-10/3, 10/3), se = sqrt(2 * 200/9) / 3, t(0.975, 1) = 12.7062
    lo, hi = ratio_interval(np.array([10.0, 30.0]), np.array([1.0, 2.0]))
    se = np.sqrt(2 * 200 / 9) / 3
    assert (lo, hi) == (pytest.approx(40 / 3 - 12.706204736 * se), pytest.approx(40 / 3 + 12.706204736 * se))
    assert ratio_interval(np.array([5.0]), np.array([1.0])) == (None, None)


def test_one_shot_pass_at_k_at_the_multi_agent_budget_is_clipped_and_said(report):
    _, _, matched = report.cost_comparison.for_metric("tokens")
    row = next(m for m in matched if m.sampler_name == ONE_SHOT and m.reference_name == MULTI)
    assert row.k_exact == pytest.approx(3727.4 / 396) and row.k == 9 and row.max_samples == 5
    assert row.clipped_problems == 164
    # by hand: problems 0..93 pass 5 of 5 (pass@5 = 1), problem 94 passes 2 of 5 (pass@5 = 1), the rest 0
    assert row.sampler_pass_at_k == pytest.approx(95 / 164)
    assert pass_at_k(5, 2, 5) == 1.0 and pass_at_k(5, 2, 1) == pytest.approx(0.4)
    assert row.reference_pass_rate == pytest.approx(132 / 164)
    assert row.delta_pp == pytest.approx(100 * (95 - 132) / 164)
    assert "pass@5 57.9% against 80.5%" in row.sentence and "the budget buys 9 samples" in row.sentence
    at_retry = next(m for m in matched if m.sampler_name == ONE_SHOT and m.reference_name == RETRY)
    assert at_retry.k == 1 and at_retry.clipped_problems == 0
    assert at_retry.sampler_pass_at_k == pytest.approx(472 / 820)  # pass@1 is the plain rate


def test_dominance_needs_significance_on_both_sides():
    pair = {"a": "x", "b": "y", "a_name": "x", "b_name": "y", "n": 10, "delta_pp": -20.0, "ci_lo": -30.0,
            "ci_hi": -10.0, "p_wilcoxon": 0.001, "p_holm": 0.003}
    cheaper_b = {"a": "x", "b": "y", "metric": "tokens", "delta": -50.0, "ci_lo": -60.0, "ci_hi": -40.0,
                 "p_holm": 0.01, "n": 10}
    assert dominance([pair], [cheaper_b], "tokens") == []  # y cheaper but significantly worse: a trade-off
    assert len(dominance([{**pair, "p_holm": 0.2}], [cheaper_b], "tokens")) == 1
    assert dominance([{**pair, "p_holm": 0.2}], [{**cheaper_b, "p_holm": 0.06}], "tokens") == []
    assert dominance([{**pair, "p_holm": 0.2}], [{**cheaper_b, "ci_hi": 5.0}], "tokens") == []
    row = dominance([{**pair, "delta_pp": 5.0, "ci_lo": -1.0, "ci_hi": 11.0, "p_holm": 0.2}],
                    [{**cheaper_b, "delta": 50.0, "ci_lo": 40.0, "ci_hi": 60.0}], "tokens")
    assert [(r["dominated"], r["by"], r["delta_pp"], r["saving"]) for r in row] == [("y", "x", -5.0, 50.0)]
    assert (row[0]["ci_lo"], row[0]["ci_hi"], row[0]["saving_ci_lo"]) == (-11.0, 1.0, 40.0)


def test_degenerate_cost_inputs_give_defined_values():
    assert cost_difference({}, {"p": 1.0}, metric="tokens")["n"] == 0
    one = cost_difference({"p": 1.0}, {"p": 3.0}, metric="tokens")
    assert one["delta"] == 2.0 and one["ci_lo"] is None and one["note"]
    with pytest.raises(ValueError, match="not one of: tokens, calls, wallclock"):
        metric_from_choice("dollars")


def test_store_path_gives_the_records_report_and_the_cli_prints_it(tmp_path, report):
    db = tmp_path / "runs.db"
    with Store.open(str(db)) as store:
        run = write_paper_run(store)
        stored = build_report(store, [str(run)])
    assert stored.cost_comparison.pairs == report.cost_comparison.pairs
    assert stored.cost_comparison.dominance == report.cost_comparison.dominance
    assert stored.cost_comparison.matched_budget == report.cost_comparison.matched_budget
    done = subprocess.run([sys.executable, "-m", "execugraph", "--db", str(db), "stats", "--runs", str(run),
                           "--json", "--cost", "calls"], capture_output=True, text=True, timeout=300, cwd=PROJECT)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)["cost_comparison"]
    assert data["metric"] == "llm_calls"
    by_metric = {d["metric"]: d for d in data["dominance"]}
    assert by_metric["tokens"]["saving"] == pytest.approx(3029.4, abs=0.005)
    assert by_metric["llm_calls"]["dominated_name"] == MULTI and by_metric["llm_calls"]["by_name"] == RETRY
    text = format_report(stored)
    assert f"- {RETRY} dominates {MULTI}: +1.2 pp accuracy" in text
    assert "3,029.4 fewer tokens per problem" in text and "pass@5 57.9%" in text


def test_a_hostile_arm_name_stays_inert_in_every_table_format():
    hostile = build_report_from_records(paper_records({MULTI: HOSTILE}), ["1"], runs_meta=META)
    assert [d.dominated_name for d in hostile.cost_comparison.dominance] == [HOSTILE] * 3
    tables = [t for t in publication_tables(hostile) if t.key.startswith(("cost_", "frontier_", "matched_budget_"))]
    assert {t.key for t in tables} == {"cost_ci", "cost_paired", "frontier_tokens", "matched_budget_tokens"}
    for table in tables:
        md, tex, csv = (render(table, f) for f in ("markdown", "latex", "csv"))
        assert md_text(HOSTILE) in md and not re.search(r"(?<!\\)<(script|/script)", md)
        assert "<script>x</script>|$&_" not in tex and "\\$\\&\\_" in tex
        rows = check_latex_table(tex)  # balanced, every row as wide as the column spec
        assert len(rows) == len(table.rows) + 1
        assert HOSTILE in csv  # CSV keeps the name (quoted as a cell; no formula lead character)
    from execugraph.figures.frontier import frontier_figure

    figure = frontier_figure(hostile)
    shown = [t for trace in figure.data for t in (trace.text or ())]
    assert "&lt;script&gt;x&lt;/script&gt;|&#36;&amp;_" in shown and HOSTILE not in shown
