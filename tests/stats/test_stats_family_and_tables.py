"""Run names, comparison families and the publication tables, on hand-made records with known answers."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime

import pytest

from execugraph.domain.run_names import conditions_of, run_name, statement_title
from execugraph.figures.charts import FOREST_MAX_ROWS, forest
from execugraph.figures.report_figures import comparison_figure, report_figures
from execugraph.stats import build_report_from_records, holm
from execugraph.stats.all_tables import publication_tables
from execugraph.stats.family import Family
from execugraph.stats.table_format import latex_escape, render, render_all, table_files, to_csv
from execugraph.stats.tables import category_table, cross_model_table, paired_table
from execugraph.workflow.single import adhoc_problem, default_title
from tests.stats.test_stats_report import META, hand_records


def _two_benchmarks() -> tuple[list[dict], dict]:
    """Runs 1 and 2 on internal30 (the hand records), run 3 on humaneval with its own problems."""
    records = [r | {"benchmark": "internal30"} for r in hand_records()]
    for i, ok in enumerate([True, False, True, True]):
        records.append(
            {"run_id": 3, "problem_id": f"HumanEval/{i}", "category": "humaneval", "condition": "multi-full",
             "seed": 0, "trial_index": 0, "passed": ok, "benchmark": "humaneval", "llm_calls": 3}
        )
    meta = {**META, "3": {"title": "he", "kind": "import", "models": {"generator": "ollama:other"}}}
    meta["1"] = {**META["1"], "models": {"generator": "llamacpp:default"}}
    meta["2"] = {**META["2"], "models": {"generator": "llamacpp:default"}}
    return records, meta


def test_run_names_carry_title_or_what_ran_and_always_the_id():
    assert run_name(8, "grid e1") == "grid e1 #8"
    created = datetime(2026, 5, 1, 12, tzinfo=UTC)
    assert run_name(9, "", benchmark="humaneval", conditions=["single-oneshot", "multi-full"], created=created) == (
        "humaneval · single-oneshot, multi-full · 2026-05-01 #9"
    )
    many = ["a", "b", "c", "d", "e"]
    assert run_name(3, None, conditions=many) == "a, b, c, +2 #3"
    assert run_name(4, "  ") == "run #4"
    assert conditions_of({"conditions": {"x": {}, "y": {}}}) == ["x", "y"]
    assert conditions_of({"conditions": ["z"]}) == ["z"] and conditions_of({"condition": "w"}) == ["w"]


def test_a_synthesize_run_is_named_after_its_statement():
    problem = adhoc_problem("Return   the n-th prime number, counting from one, as an int please.", "nth_prime")
    assert default_title(problem, "multi-full") == "Return the n-th prime number, counting from one... (multi-full)"
    assert statement_title("Sum two numbers.") == "Sum two numbers"


def test_arms_are_named_and_pairs_across_benchmarks_are_listed_apart():
    records, meta = _two_benchmarks()
    rep = build_report_from_records(records, ["1", "2", "3"], runs_meta=meta)
    assert [a.name for a in rep.arms] == ["oneshot #1", "full #2", "he #3"]
    assert [a.benchmarks for a in rep.arms] == [["internal30"], ["internal30"], ["humaneval"]]
    assert [(p.a_name, p.b_name) for p in rep.pairs] == [("oneshot #1", "full #2")]
    reasons = {(x.a_name, x.b_name): x.reason for x in rep.excluded}
    assert reasons == {
        ("oneshot #1", "he #3"): "different benchmarks (internal30 vs humaneval)",
        ("full #2", "he #3"): "different benchmarks (internal30 vs humaneval)",
    }
    assert rep.family.model_dump() == {
        "mode": "all pairs",
        "baseline": None,
        "baseline_name": None,
        "comparable_only": True,
        "comparisons": 1,
        "excluded": 2,
    }
    # across benchmarks the pairs still need a common problem: never a zero effect from nothing
    loose = build_report_from_records(records, ["1", "2", "3"], runs_meta=meta, family=Family(comparable_only=False))
    assert len(loose.pairs) == 1 and {x.reason for x in loose.excluded} == {"no common problems"}


def test_a_baseline_family_orients_every_delta_against_it_and_holm_counts_only_it():
    records = hand_records() + [dict(r, run_id=3, passed=not r["passed"]) for r in hand_records() if r["run_id"] == 1]
    rep = build_report_from_records(records, ["1", "2", "3"], family=Family(baseline="2"))
    assert [(p.a, p.b) for p in rep.pairs] == [("2", "1"), ("2", "3")]
    assert [p.p_holm for p in rep.pairs] == pytest.approx(holm([p.p_wilcoxon for p in rep.pairs]))
    everything = build_report_from_records(records, ["1", "2", "3"])
    by_pair = {(p.a, p.b): p for p in everything.pairs}
    assert rep.pairs[0].delta_pp == pytest.approx(-by_pair[("1", "2")].delta_pp)
    assert "against the baseline run #2" in rep.method["family"] and "2 comparison(s)" in rep.method["holm"]
    by_condition = build_report_from_records(hand_records(), ["1", "2"], ["single-oneshot", "multi-full"],
                                             family=Family(baseline="1:multi-full"))
    assert by_condition.family.baseline_name == "run #1 · multi-full"
    with pytest.raises(ValueError, match="baseline 'nope' is not one of the arms"):
        build_report_from_records(records, ["1", "2"], family=Family(baseline="nope"))


def test_tables_hold_the_report_numbers_in_every_format():
    records, meta = _two_benchmarks()
    rep = build_report_from_records(records, ["1", "2", "3"], runs_meta=meta)
    pair = rep.pairs[0]
    paired = paired_table(rep)
    (row,) = paired.display_rows()
    assert row == {
        "A": "oneshot #1",
        "B": "full #2",
        "n": "4",
        "Problems that differ": str(pair.problems_differ),
        "Majority-discordant": str(pair.majority_discordant),
        "Delta (pp)": f"{pair.delta_pp:+.1f}",
        "95% CI (pp)": f"[{pair.ci_lo:+.1f}, {pair.ci_hi:+.1f}]",
        "p (Wilcoxon, exact)": f"{pair.p_wilcoxon:.4f}",
        "p (Holm)": f"{pair.p_holm:.4f}",
    }
    assert any("Not compared: he #3 vs oneshot #1 (different benchmarks" in n for n in paired.notes)
    # CSV keeps raw numbers: the CI as two columns, rates as unrounded percentages
    lines = list(csv.reader(io.StringIO(to_csv(paired))))
    assert lines[0][6:8] == ["95% CI low (pp)", "95% CI high (pp)"]
    assert float(lines[1][5]) == pytest.approx(pair.delta_pp) and float(lines[1][6]) == pytest.approx(pair.ci_lo)
    categories = list(csv.reader(io.StringIO(to_csv(category_table(rep)))))
    overall = next(r for r in categories if r[0] == "full #2" and r[1] == "overall")
    assert float(overall[4]) == pytest.approx(100 * rep.arms[1].pass_rate)
    md = render(paired, "markdown")
    assert md.startswith("**Paired comparisons**") and "| oneshot #1 | full #2 | 4 |" in md
    # the cross-model table appears because the arms' generators differ
    keys = [t.key for t in publication_tables(rep)]
    assert keys[:3] == ["category_rates", "paired", "ablation"] and "cross_model" in keys
    cross = cross_model_table(rep).display_rows()
    assert cross[0]["llamacpp:default (%)"] == f"{100 * rep.arms[0].pass_rate:.1f}"
    assert "# paired: Paired comparisons" in render_all(publication_tables(rep), "csv")


def test_retry_cost_error_and_sampling_tables_read_the_report():
    rep = build_report_from_records(hand_records(), ["1", "2"], runs_meta=META)
    tables = {t.key: t for t in publication_tables(rep)}
    # one-shot (budget 0) and multi-full (budget 2) are different conditions: no sweep, so no retry table
    assert "retry_budget" not in tables and len(rep.retry_budget_missing) == 2
    errors = tables["errors"].display_rows()
    assert errors[0]["Failed trials"] == "5" and errors[1]["Failed trials"] == "1"
    assert sum(float(v) for k, v in errors[0].items() if k.endswith("(%)")) == pytest.approx(100.0, abs=0.2)
    sampling = tables["sampling"].display_rows()
    # two trials per problem: run 1 agrees on p1, p3, p4 (not p2); run 2 on p1, p2, p4 (not p3)
    assert [(r["Kind"], r["N (samples)"], r["All samples agree (problems)"], r["Problems with >= 2 samples"],
             r["All agree (%)"]) for r in sampling] == [
        ("one-shot", "2", "3", "4", "75.0"),
        ("multi-agent", "2", "3", "4", "75.0"),
    ]
    assert sampling[0]["pass@1 (%)"] == "37.5" and sampling[0]["pass@N (%)"] == "50.0"
    # one-shot: 1 call per sample, 2 for pass@2; multi-full: 44 calls over 8 trials = 5.5 per attempt, 11 for two
    assert [(r["LLM calls per sample"], r["LLM calls for pass@N"]) for r in sampling] == [("1.00", "2.00"),
                                                                                        ("5.50", "11.00")]
    cost = tables["cost"].display_rows()
    assert cost[0]["Wall-clock median (s)"] == "1.0" and cost[0]["LLM calls mean"] == "1.00"
    assert "cross_model" not in tables  # one generator model only


def test_latex_is_escaped_and_structurally_sound():
    records, meta = _two_benchmarks()
    meta["1"] = {**meta["1"], "title": "one_shot & 50% #x"}
    rep = build_report_from_records(records, ["1", "2", "3"], runs_meta=meta)
    files = table_files(publication_tables(rep), "latex")
    assert r"one\_shot \& 50\% \#x \#1" in files["paired.tex"]
    assert r"\input{paired.tex}" in files["tables.tex"] and r"\usepackage{booktabs}" in files["tables.tex"]
    for name, text in files.items():
        if name != "tables.tex":
            check_latex_table(text)
    assert latex_escape("a·b – c") == r"a$\cdot$b -- c"


def check_latex_table(text: str) -> list[list[str]]:
    """Fail unless the table environment is balanced and every row has as many cells as the column spec;
    returns the rows (header first) as cell lists."""
    assert text.count(r"\begin{table}") == text.count(r"\end{table}") == 1
    assert text.count(r"\begin{tabular}") == text.count(r"\end{tabular}") == 1
    spec = text.split(r"\begin{tabular}{", 1)[1].split("}", 1)[0]
    body = text.split(r"\midrule", 1)[1].split(r"\bottomrule", 1)[0]
    header = text.split(r"\toprule", 1)[1].split(r"\midrule", 1)[0]
    rows = []
    for line in [header, *body.strip().splitlines()]:
        line = line.strip()
        if not line:
            continue
        assert line.endswith(r"\\"), line
        cells = split_cells(line[:-2])
        assert len(cells) == len(spec), (spec, line)
        rows.append(cells)
    depth = 0
    for i, ch in enumerate(text):
        if ch in "{}" and (i == 0 or text[i - 1] != "\\"):
            depth += 1 if ch == "{" else -1
            assert depth >= 0
    assert depth == 0
    for special in ("%", "#", "_"):
        for i, ch in enumerate(text):
            if ch == special and text[i - 1] != "\\":
                line = text[: i + 1].rsplit("\n", 1)[-1]
                assert line.startswith("%"), f"unescaped {special} in {line!r}"
    return rows


def split_cells(line: str) -> list[str]:
    """Split a tabular row on unescaped ampersands."""
    cells, current = [], ""
    for i, ch in enumerate(line):
        if ch == "&" and (i == 0 or line[i - 1] != "\\"):
            cells.append(current.strip())
            current = ""
        else:
            current += ch
    return [*cells, current.strip()]


def test_a_forest_of_twenty_arms_stays_readable_and_all_pairs_become_a_matrix():
    records = []
    for arm in range(20):
        for p in range(6):
            records.append({"run_id": arm + 1, "problem_id": f"p{p}", "condition": "multi-full", "seed": 0,
                            "trial_index": 0, "passed": (p + arm) % 3 == 0, "benchmark": "internal30"})
    ids = [str(i) for i in range(1, 21)]
    meta = {i: {"title": f"grid-main/e{i}_mf"} for i in ids}
    baseline = build_report_from_records(records, ids, runs_meta=meta, family=Family(baseline="1"), n_boot=200)
    fig = comparison_figure(baseline)
    assert len(fig.data[0].y) == 19 and len(set(fig.data[0].y)) == 19 and fig.layout.yaxis.type == "category"
    assert fig.layout.height <= 110 + 28 * 19  # about 28 px a row, not 7,000 px
    everything = build_report_from_records(records, ids, runs_meta=meta, n_boot=200)
    assert len(everything.pairs) == 190 > FOREST_MAX_ROWS
    matrix = comparison_figure(everything)
    assert matrix.data[0].type == "heatmap" and len(matrix.data[0].x) == 20 and matrix.layout.height <= 800
    assert set(report_figures(everything)) >= {"pass_rates", "categories", "comparisons", "cost_accuracy"}
    assert forest([], title="x").layout.height == 220
