"""Model time as a column of the cost tables (LaTeX, CSV, Markdown, reproduce's report.md/html and reproduce.json):
its mean where the report read it (`--cost model-time`), an em dash (an empty CSV cell, JSON null) where not."""

from __future__ import annotations

import json
import re

from execugraph.reproduce.document import Document, TableBlock, to_html_text, to_markdown_text
from execugraph.reproduce.report_tables import table_json
from execugraph.safety.inert_text import md_text
from execugraph.stats import build_report
from execugraph.stats.all_tables import publication_tables
from execugraph.stats.table_format import render
from execugraph.stats.tables import MISSING
from tests.stats.test_cost_frontier import HOSTILE
from tests.stats.test_model_time_cost import _store_runs
from tests.stats.test_stats_family_and_tables import check_latex_table


def _cost_tables(report) -> dict:
    return {t.key: t for t in publication_tables(report) if t.key in ("cost", "cost_ci")}


def test_model_time_is_a_column_beside_tokens_calls_and_wall_clock(sqlite_store):
    run = _store_runs(sqlite_store)
    tables = _cost_tables(build_report(sqlite_store, [str(run)], cost="model-time"))
    cost = {r["Arm"]: r for r in tables["cost"].display_rows()}
    assert [cost[a]["Model time mean (s)"] for a in sorted(cost)] == ["1.3", "7.0"]  # 8 s / 6 trials, 21 s / 3
    ci = {r["Arm"]: r for r in tables["cost_ci"].display_rows()}
    assert [ci[a]["model time s mean"] for a in sorted(ci)] == ["1.3", "7.0"]
    assert all(ci[a]["model time s 95% CI low"] != MISSING for a in ci)
    csv = render(tables["cost"], "csv")
    assert "Model time mean (s)" in csv.splitlines()[0] and ",7.0\n" in csv


def test_unread_model_time_is_an_em_dash_everywhere_and_names_stay_inert(sqlite_store):
    run = _store_runs(sqlite_store)
    hostile = sqlite_store.create_run("batch", HOSTILE, {}, benchmark="internal30")  # a run of one condition
    trial = sqlite_store.create_trial(hostile, "p1", "fast", 0, 0, category="c", benchmark="internal30")
    sqlite_store.update_trial(trial, status="done", passed=True, tokens_in=1, tokens_out=1, llm_calls=1,
                              wallclock_s=1.0)
    report = build_report(sqlite_store, [str(run), str(hostile)])  # model time not asked for: not read
    assert any(HOSTILE in a.shown for a in report.arms)
    tables = _cost_tables(report)
    assert tables, "the cost tables are built"
    for table in tables.values():
        model_columns = [c.title for c in table.columns if "odel time" in c.title]
        assert model_columns
        assert {row[t] for row in table.display_rows() for t in model_columns} == {MISSING}
        md, tex, csv = (render(table, f) for f in ("markdown", "latex", "csv"))
        for text in (md, tex, csv):
            assert "None" not in text and "nan" not in text.lower().replace("nanoseconds", "")
        assert md_text(HOSTILE) in md and not re.search(r"(?<!\\)<(script|/script)", md)
        assert "<script>x</script>|$&_" not in tex
        check_latex_table(tex)
        assert HOSTILE in csv and not any(line.startswith(("=", "+", "@")) for line in csv.splitlines())
        html = to_html_text(Document("r", [TableBlock(table)]))
        assert "<script>x</script>" not in html and MISSING in html
        assert MISSING in to_markdown_text(Document("r", [TableBlock(table)]))
        data = table_json(table)  # reproduce.json: the raw values, null where missing
        assert {row[c["key"]] for row in data["rows"] for c in data["columns"] if "odel time" in c["title"]} == {None}
        json.dumps(data)
