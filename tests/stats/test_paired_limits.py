"""Paired statistics that explain their limits: the smallest attainable p of each test, the sentence saying
when nothing could be significant, and the one saying when the CI and the Wilcoxon p disagree."""

from __future__ import annotations

import csv
import io
from dataclasses import replace

import numpy as np
import pytest
from scipy import stats as sps

from execugraph.stats.from_records import build_report_from_records
from execugraph.stats.paired import (
    PairedComparison,
    adjust_family,
    compare_paired,
    explain,
    mcnemar_exact_p,
    mcnemar_p_min,
    wilcoxon_p,
    wilcoxon_p_min,
)
from execugraph.stats.report_model import StatsReport
from execugraph.stats.table_format import render, to_csv
from execugraph.stats.tables import paired_table
from tests.stats.test_stats_family_and_tables import check_latex_table

NO_RESULT = "no result could be significant at 0.05"
DISAGREE = "the CI describes the size of the mean difference"


def _rates(n: int, b_wins: int, a_wins: int = 0) -> tuple[dict[str, float], dict[str, float]]:
    """n problems; b alone solves the first `b_wins`, a alone the next `a_wins`, the rest both solve."""
    a = {f"p{i:02d}": 1.0 for i in range(n)}
    b = dict(a)
    for i in range(b_wins):
        a[f"p{i:02d}"] = 0.0
    for i in range(b_wins, b_wins + a_wins):
        b[f"p{i:02d}"] = 0.0
    return a, b


def test_four_discordant_problems_all_one_way_cannot_reach_005():
    a, b = _rates(10, 4)
    res = compare_paired(a, b, a="A", b="B")
    assert res.problems_differ == res.majority_discordant == 4
    assert res.p_wilcoxon == pytest.approx(0.125) and res.p_min_wilcoxon == pytest.approx(0.125)
    assert res.p_wilcoxon == res.p_min_wilcoxon
    assert res.p_min_mcnemar == pytest.approx(0.125) == mcnemar_exact_p(0, 4)
    assert "With 4 problem(s) that differ, the exact Wilcoxon test cannot give p below 0.125" in res.explanation
    assert NO_RESULT in res.explanation
    assert "the exact McNemar test cannot give p below 0.125" in res.explanation
    # the reported case: the CI (Newcombe) lies above 0 beside p = 0.125, and the explanation says why
    assert res.ci_lo > 0
    assert "The CI excludes 0 but p = 0.125 is not below 0.05" in res.explanation and DISAGREE in res.explanation
    assert res.note == ""  # the existing note is left as it was


def test_ten_discordant_problems_leave_room_for_significance():
    a, b = _rates(20, 10)
    res = compare_paired(a, b)
    assert res.p_min_wilcoxon == pytest.approx(2 / 2**10) and res.p_wilcoxon == pytest.approx(res.p_min_wilcoxon)
    assert res.p_min_mcnemar == pytest.approx(2 / 2**10)
    assert res.ci_lo > 0 and res.p_wilcoxon < 0.05
    # CI and p agree, and both tests can reach 0.05: only the power sentence is left (20 problems, 1 trial each)
    assert res.explanation == "With 20 problems the smallest difference detectable at 80% power is 41.3 pp; about 97 " \
        "problems would detect a 20 pp difference at 80% power (paired, two-sided alpha 0.05, 1 trial per problem " \
        "and arm, pass rates around 50%)."


def test_mixed_signs_keep_the_minimum_of_the_arrangement_not_of_the_outcome():
    a, b = _rates(12, 7, 3)
    res = compare_paired(a, b)
    assert res.problems_differ == 10 and res.p_min_wilcoxon == pytest.approx(2 / 2**10)
    assert res.p_wilcoxon > res.p_min_wilcoxon and NO_RESULT not in res.explanation
    assert res.p_min_mcnemar == pytest.approx(2 / 2**10) and res.p_min_mcnemar < res.p_mcnemar


@pytest.mark.parametrize(
    "diffs",
    [
        [0.5, 0.5, 1.0, 1.0, -1.0],  # tied magnitudes, mixed signs
        [1 / 3, 1 / 3, 2 / 3, 2 / 3, 1.0, 1.0, -1 / 3],
        [1.0, 1.0, 1.0, 1.0],  # all tied, all one way
    ],
)
def test_tied_magnitudes_use_the_tied_ranks_and_the_same_method(diffs):
    d = np.round(np.array(diffs), 12)
    direct = sps.wilcoxon(np.abs(d), zero_method="wilcox", method="exact", alternative="two-sided").pvalue
    assert wilcoxon_p_min(d) == pytest.approx(float(direct))
    assert wilcoxon_p_min(d) == wilcoxon_p(np.abs(d))[0] <= wilcoxon_p(d)[0]
    assert wilcoxon_p_min(d) == pytest.approx(2 / 2 ** len(diffs))  # one arrangement reaches the top rank sum
    rates_a = {f"p{i}": 0.0 if x > 0 else 1.0 for i, x in enumerate(diffs)}
    rates_b = {f"p{i}": rates_a[f"p{i}"] + x for i, x in enumerate(diffs)}
    res = compare_paired(rates_a, rates_b)
    assert res.p_min_wilcoxon == pytest.approx(wilcoxon_p_min(d))
    assert (res.p_min_wilcoxon > 0.05) == (NO_RESULT in res.explanation)


def test_zero_differences_and_large_n():
    assert wilcoxon_p_min([0.0, 0.0]) == 1.0
    res = compare_paired({"p": 1.0, "q": 0.0}, {"p": 1.0, "q": 0.0})
    assert res.p_min_wilcoxon == 1.0 and res.p_min_mcnemar == 1.0
    assert res.explanation.startswith("With 2 problems no difference is reliably detectable; about 97 problems")
    assert res.note == "all per-problem differences are zero"
    big = np.arange(1, 402, dtype=float)  # above the exact limit: the asymptotic method, tiny minimum
    assert wilcoxon_p(big)[1] == "asymptotic" and 0 < wilcoxon_p_min(big) < 1e-10


def test_mcnemar_minimum():
    assert mcnemar_p_min(0) == 1.0 and mcnemar_p_min(1) == 1.0
    assert mcnemar_p_min(2) == 0.5 and mcnemar_p_min(4) == 0.125 and mcnemar_p_min(5) == pytest.approx(1 / 16)
    for k in range(1, 12):
        assert mcnemar_p_min(k) == pytest.approx(mcnemar_exact_p(0, k)) == pytest.approx(mcnemar_exact_p(k, 0))


def _comp(ci_lo: float, ci_hi: float, p: float, differ: int = 12) -> PairedComparison:
    return PairedComparison("a", "b", 20, differ, 0, (ci_lo + ci_hi) / 2, ci_lo, ci_hi, p, 1.0, "exact",
                            p_min_wilcoxon=2 / 2**differ)


@pytest.mark.parametrize(
    ("ci_lo", "ci_hi", "p", "disagree"),
    [
        (1.0, 9.0, 0.20, True),  # CI above 0, p not significant
        (-9.0, -1.0, 0.07, True),  # CI below 0, p not significant
        (-2.0, 9.0, 0.03, True),  # CI includes 0, p significant
        (1.0, 9.0, 0.01, False),
        (-2.0, 9.0, 0.40, False),
        (0.0, 9.0, 0.40, False),  # touching 0 is including it
    ],
)
def test_ci_and_p_sentence_appears_exactly_when_they_disagree(ci_lo, ci_hi, p, disagree):
    text = explain(_comp(ci_lo, ci_hi, p))
    assert (DISAGREE in text) == disagree
    if disagree:
        assert "per-problem differences lean one way" in text
        assert ("The CI excludes 0" in text) == (ci_lo > 0 or ci_hi < 0)
        assert ("but the CI includes 0" in text) == (p < 0.05)


def test_holm_rewrites_the_explanation_once_the_family_is_adjusted():
    a, b = _rates(20, 6)  # p = 2/64 alone, about 0.031
    a2, b2 = _rates(20, 6, 6)  # as many each way: p = 1, so Holm doubles the first
    family = [compare_paired(a, b, a="A", b="B"), compare_paired(a2, b2, a="A", b="C")]
    assert family[0].p_wilcoxon < 0.05 and "Holm" not in family[0].explanation
    adjust_family(family)
    assert family[0].p_holm >= 0.05
    assert "not after Holm's adjustment over the family (p_holm = 0.0625)" in family[0].explanation
    assert "Holm" not in family[1].explanation and NO_RESULT not in family[1].explanation
    small = [compare_paired(*_rates(10, 4)), compare_paired(*_rates(10, 3))]
    adjust_family(small)
    assert "(and Holm's adjustment only raises p)" in small[0].explanation
    assert explain(replace(small[0], p_holm=None)) != small[0].explanation


def test_positional_constructor_keeps_working_with_defaults():
    res = PairedComparison("a", "b", 0, 0, 0, 0.0, 0.0, 0.0, 1.0, 1.0, "none", note="no common problems")
    assert (res.p_min_wilcoxon, res.p_min_mcnemar, res.explanation) == (1.0, 1.0, "")
    assert {"p_min_wilcoxon", "p_min_mcnemar", "explanation"} <= set(res.as_dict())
    assert compare_paired({"x": 1.0}, {"y": 0.0}).explanation == ""


def _records(outcomes: dict[int, dict[str, bool]]) -> list[dict]:
    return [
        {"run_id": run, "problem_id": pid, "category": "c", "condition": "single-oneshot", "seed": 0,
         "trial_index": 0, "passed": ok, "error_class": None if ok else "wrong_answer", "retries_used": 0,
         "wallclock_s": 1.0, "tokens_in": 10, "tokens_out": 5, "llm_calls": 1, "test_source": "problem",
         "feedback_source": "grading"}
        for run, per in outcomes.items()
        for pid, ok in per.items()
    ]


@pytest.fixture(scope="module")
def few_discordant_report() -> StatsReport:
    problems = [f"p{i:02d}" for i in range(10)]
    first = {p: i >= 4 for i, p in enumerate(problems)}  # run 2 alone solves the first four
    second = dict.fromkeys(problems, True)
    return build_report_from_records(_records({1: first, 2: second}), ["1", "2"])


def test_report_from_records_carries_the_limits(few_discordant_report):
    rep = few_discordant_report
    (pair,) = rep.pairs
    assert pair.p_wilcoxon == pytest.approx(0.125) == pair.p_min_wilcoxon
    assert pair.p_min_mcnemar == pytest.approx(0.125)
    assert NO_RESULT in pair.explanation and DISAGREE in pair.explanation
    assert "Holm's adjustment only raises p" in pair.explanation
    assert "2 * 0.5^(b + c)" in rep.method["p_min"] and "0.125 for 4" in rep.method["p_min"]


def test_paired_table_footnotes_the_smallest_p_in_every_format(few_discordant_report):
    rep = few_discordant_report
    table = paired_table(rep)
    (pair,) = rep.pairs
    name = f"{pair.b_name} vs {pair.a_name}"
    floor = next(n for n in table.notes if n.startswith("Smallest attainable p"))
    assert f"{name}: 4 differ, smallest p 0.1250" in floor
    assert any(n.startswith(f"CI and p disagree for {name}") for n in table.notes)
    latex = render(table, "latex")
    check_latex_table(latex)
    assert "smallest p 0.1250" in latex and "2 / 2\\textasciicircum{}n" in latex
    markdown = render(table, "markdown")
    assert "Smallest attainable p" in markdown and "smallest p 0.1250" in markdown
    header = next(csv.reader(io.StringIO(to_csv(table))))
    assert len(header) == len(table.columns) + 1  # the CI's two cells; no new column


def test_paired_table_without_limits_or_old_fields_has_no_footnote(few_discordant_report):
    rep = few_discordant_report.to_json_dict()
    old = {**rep, "pairs": [{k: v for k, v in p.items() if k not in ("p_min_wilcoxon", "explanation")}
                            for p in rep["pairs"]]}
    old["pairs"][0]["ci_lo"] = -1.0  # CI now includes 0 beside p = 0.125: they agree
    read_back = StatsReport.from_json(old)  # a summary.json written before those fields existed
    assert not any(n.startswith(("Smallest attainable p", "CI and p disagree")) for n in paired_table(read_back).notes)
