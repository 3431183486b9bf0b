"""Ablations, Statistics and Export show the statistics report exactly as `build_report` computes it;
bundles download, import back and rescore through the publication core."""

from __future__ import annotations

import io
import json
import zipfile

from execugraph.stats import build_report, holm
from execugraph.stats.family import Family
from tests.ui.conftest import no_exception, texts
from ui.keys import ALL_PAIRS, Ablations, Export, Statistics


def _titles(at) -> list[str]:
    return [json.loads(c.proto.spec)["layout"]["title"]["text"].replace("<br>", " ") for c in at.get("plotly_chart")]


def _figure(at, prefix: str) -> dict:
    return next(
        json.loads(c.proto.spec)
        for c in at.get("plotly_chart")
        if json.loads(c.proto.spec)["layout"]["title"]["text"].replace("<br>", " ").startswith(prefix)
    )


def test_ablations_draws_every_chart_from_the_report(app, seeded_db, db_store):
    at = app("ablations")
    no_exception(at)
    assert at.multiselect(key=Ablations.RUNS).value == [seeded_db.batch]  # the newest finished batch by default
    charts = set(_titles(at))
    assert {
        "Pass rate by arm (95% CI over problems)",
        "Pass rate by category (95% CI)",
        "Why trials failed (share of failures)",
    } <= charts
    assert any(t.startswith("Each arm minus multi-full") for t in charts)
    report = build_report(db_store, [str(seeded_db.batch)], family=Family(baseline="multi-full"))
    bars = _figure(at, "Pass rate by arm")
    assert bars["data"][0]["x"] == [a.name for a in report.arms]
    assert bars["layout"]["xaxis"]["type"] == "category"  # arms are names on a categorical axis
    assert bars["data"][0]["y"] == [100 * a.pass_rate for a in report.arms]
    # four conditions at one budget each: no sweep, so no curve joining them, and the page says why
    assert "Retry budget: accuracy and cost" not in charts and report.retry_budgets == []
    assert any("different conditions are never joined" in str(e.value) for e in at.info)
    assert {m.note for m in report.retry_budget_missing} <= {str(c.value) for c in at.caption}
    # every chart offers SVG and PDF; the page offers the tables for a paper
    labels = [b.proto.label for b in at.get("download_button")]
    assert labels.count("SVG") == len(at.get("plotly_chart")) == labels.count("PDF")
    assert any(label.startswith("Download the tables for a paper") for label in labels)
    sampling, table = at.table[0].value, at.table[1].value
    # two seeds per problem: every arm's pass@1 and pass@2, agreement, and its calls, one row per arm
    assert list(sampling["Arm"]) == [c.name for c in report.sampling.control]
    assert list(sampling["Kind"]) == ["one-shot", "retry", "multi-agent", "multi-agent"]
    assert list(sampling["pass@N (%)"]) == [f"{100 * c.pass_at_n:.1f}" for c in report.sampling.control]
    assert list(table["Arm"]) == [a.name for a in report.arms]
    assert list(table["Overall (%)"]) == [f"{100 * a.pass_rate:.1f}" for a in report.arms]
    at.selectbox(key=Ablations.REFERENCE).set_value("single-oneshot").run()
    assert any(t.startswith("Each arm minus single-oneshot") for t in _titles(at))
    deltas = _figure(at, "Each arm minus single-oneshot")
    assert deltas["data"][0]["y"] == ["single-retry", "multi-full", "multi-rag"]


def test_statistics_table_matches_build_report(app, seeded_db, db_store):
    at = app("statistics", runs=str(seeded_db.batch))
    no_exception(at)
    report = build_report(db_store, [str(seeded_db.batch)])  # four arms: all pairs by default
    assert at.selectbox(key=Statistics.COMPARE).value == ALL_PAIRS
    table = at.table[0].value
    assert list(zip(table["A"], table["B"], strict=True)) == [(p.a_name, p.b_name) for p in report.pairs]
    assert list(table["Delta (pp)"]) == [f"{p.delta_pp:+.1f}" for p in report.pairs]
    assert list(table["p (Holm)"]) == [f"{p.p_holm:.4f}" for p in report.pairs]
    assert list(table["Problems that differ"]) == [str(p.problems_differ) for p in report.pairs]
    assert list(table["Majority-discordant"]) == [str(p.majority_discordant) for p in report.pairs]
    first = report.pairs[0]
    assert list(at.dataframe[0].value["problem"]) == first.a_only
    assert list(at.dataframe[1].value["problem"]) == first.b_only
    labels = [b.proto.label for b in at.get("download_button")]
    assert "Download this report (summary.json)" in labels and labels.count("SVG") == 2  # forest and frontier
    method = " ".join(str(m.value) for m in at.markdown)
    assert "**Multiple comparisons:** Holm-Bonferroni over the 6 comparison(s)" in method  # text, not JSON
    assert not at.get("json")


def test_statistics_baseline_family_is_holm_adjusted_over_its_own_pairs(app, seeded_db, db_store):
    at = app("statistics", runs=str(seeded_db.batch))
    at.selectbox(key=Statistics.COMPARE).set_value("multi-full").run()
    no_exception(at)
    report = build_report(db_store, [str(seeded_db.batch)], family=Family(baseline="multi-full"))
    table = at.table[0].value
    assert list(table["Baseline"]) == ["multi-full"] * 3
    assert list(table["Arm"]) == ["single-oneshot", "single-retry", "multi-rag"]
    assert list(table["p (Holm)"]) == [f"{p.p_holm:.4f}" for p in report.pairs]
    assert [p.p_holm for p in report.pairs] == holm([p.p_wilcoxon for p in report.pairs])
    forest = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert forest["layout"]["title"]["text"].startswith("Each arm minus multi-full")


def test_statistics_shows_the_paired_tests_per_category_beside_the_category_rates(app, seeded_db, db_store):
    at = app("statistics", runs=str(seeded_db.batch))
    at.selectbox(key=Statistics.COMPARE).set_value("multi-full").run()
    no_exception(at)
    report = build_report(db_store, [str(seeded_db.batch)], family=Family(baseline="multi-full"))
    tables = [t.value for t in at.table] + [d.value for d in at.dataframe]
    rates = next(t for t in tables if "95% CI (%)" in t.columns and "Category" in t.columns)
    assert "Delta vs multi-full (pp)" in rates.columns and "p (Holm)" in rates.columns
    per_category = next(t for t in tables if "p (Holm, within comparison)" in t.columns)
    expected = [(p.b_name, c.category, f"{c.delta_pp:+.1f}", f"{c.p_holm:.4f}")
                for p in report.pairs for c in p.categories]
    assert expected and list(zip(per_category["Arm"], per_category["Category"], per_category["Delta (pp)"],
                                 per_category["p (Holm, within comparison)"], strict=True)) == expected
    for pair in report.pairs:
        assert [c.p_holm for c in pair.categories] == holm([c.p_wilcoxon for c in pair.categories])


def test_statistics_restricts_to_chosen_conditions(app, seeded_db, db_store):
    at = app("statistics", runs=str(seeded_db.batch))
    at.multiselect(key=Statistics.CONDITIONS).set_value(["single-oneshot", "multi-full"]).run()
    no_exception(at)
    table = at.table[0].value
    assert list(zip(table["A"], table["B"], strict=True)) == [("single-oneshot", "multi-full")]
    passk = next(d.value for d in at.dataframe if "pass@1 (%)" in d.value.columns)
    assert list(passk["arm"]) == ["single-oneshot", "multi-full"] and "pass@2 (%)" in passk.columns


def test_statistics_says_when_there_is_nothing_to_pair(app, seeded_db):
    at = app("statistics", runs=str(seeded_db.single))
    assert any("Only one arm" in i for i in texts(at, "info"))


def test_export_import_and_rescore_round_trip(app, seeded_db, db_store):
    at = app("export", runs=str(seeded_db.batch))
    no_exception(at)
    at.button(key=Export.PREPARE).click().run()
    no_exception(at)
    _, data, names = at.session_state[Export.BUNDLE]
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        assert {"summary.json", "trials.jsonl", "steps.jsonl", "llm_calls.jsonl"} <= set(archive.namelist())
        summary = json.loads(archive.read("summary.json"))
    expected = build_report(db_store, [str(seeded_db.batch)])
    assert [p["delta_pp"] for p in summary["pairs"]] == [p.delta_pp for p in expected.pairs]
    assert any(b.proto.label.startswith("Download execugraph-runs-") for b in at.get("download_button"))

    # the bundle comes back in through the upload widget as a new run with every trial
    known = {r.id for r in db_store.list_runs()}
    at.get("file_uploader")[0].upload("bundle.zip", data, "application/zip")
    at.run()
    at.button(key=Export.IMPORT).click().run()
    no_exception(at)
    imported = [r for r in db_store.list_runs() if r.id not in known]
    assert len(imported) == 1 and len(db_store.trials_for_run(imported[0].id)) == len(
        db_store.trials_for_run(seeded_db.batch)
    )
    assert any(s.startswith(f"Imported: run #{imported[0].id}") for s in texts(at, "success")), texts(at, "success")

    # rescoring reruns the stored programs in the real sandbox and lists what flipped
    at.selectbox(key=Export.RESCORE_RUN).set_value(seeded_db.single).run()
    at.button(key=Export.RESCORE).click().run()
    no_exception(at)
    rescore = db_store.list_runs(kind="rescore")
    assert len(rescore) == 1 and rescore[0].parent_run_id == seeded_db.single
    assert any(m.label == "Rescored" and m.value == "1" for m in at.metric), [(m.label, m.value) for m in at.metric]


def test_import_refuses_a_zip_that_is_no_bundle_naming_the_problem(app, db_store):
    at = app("export")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("notes.txt", "not a bundle")
    at.get("file_uploader")[0].upload("notes.zip", buffer.getvalue(), "application/zip")
    at.run()
    at.button(key=Export.IMPORT).click().run()
    errors = texts(at, "error")
    assert any(
        e.startswith("Nothing was imported from notes.zip:") and "neither an ExecuGraph bundle" in e for e in errors
    ), errors
    assert db_store.list_runs() == []


def test_the_chosen_runs_survive_a_visit_to_another_page(app, seeded_db):
    at = app("statistics", runs=f"{seeded_db.batch},{seeded_db.single}")
    assert at.multiselect(key=Statistics.RUNS).value == [seeded_db.batch, seeded_db.single]
    at.switch_page("pages/runs.py").run()
    at.switch_page("pages/statistics.py").run()
    no_exception(at)
    assert at.multiselect(key=Statistics.RUNS).value == [seeded_db.batch, seeded_db.single]
    at.multiselect(key=Statistics.RUNS).set_value([]).run()  # a cleared picker stays cleared
    at.switch_page("pages/runs.py").run()
    at.switch_page("pages/statistics.py").run()
    assert at.multiselect(key=Statistics.RUNS).value == []
