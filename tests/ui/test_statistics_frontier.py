"""The Statistics page on arms shaped like the paper's HumanEval arms: a cost column beside each delta, multi-agent
named as dominated by retry with the paired token difference and its interval, the frontier chart, one-shot's
pass@k at the multi-agent budget, and the cost choice switching all of it to LLM calls."""

from __future__ import annotations

import json

from execugraph.safety.inert_text import md_text
from tests.stats.paper_arms import MULTI, ONE_SHOT, RETRY, write_paper_run
from tests.ui.conftest import no_exception, texts
from ui.keys import Statistics


def test_statistics_names_the_dominated_arm_and_the_matched_budget(app, db_store):
    run = write_paper_run(db_store)
    at = app("statistics", runs=str(run))
    no_exception(at)
    shown = " ".join(texts(at, "markdown"))
    assert md_text(f"{RETRY} dominates {MULTI}: +1.2 pp accuracy (95% CI") in shown
    assert md_text("3,029.4 fewer tokens per problem (95% CI 3,011.1 to 3,047.7") in shown
    assert md_text(f"{ONE_SHOT} at the budget of {MULTI} (3,727.4 tokens per trial = 9.4 samples of 396.0): "
                   "pass@5 57.9% against 80.5%") in shown
    assert md_text("the budget buys 9 samples but 164 problem(s) have fewer") in shown
    paired = at.table[0].value
    assert "Δ tokens per problem" in paired.columns and "tokens 95% CI" in paired.columns
    assert list(paired["Δ tokens per problem"]) == ["302.0", "3331.4", "3029.4"]
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    frontier = next(c for c in charts if c["layout"]["title"]["text"].startswith("Accuracy-cost frontier"))
    dominated = next(t for t in frontier["data"] if t.get("name") == "dominated")
    assert dominated["text"] == [MULTI] and dominated["error_x"]["array"][0] > 0 and dominated["error_y"]["array"][0] > 0
    at.radio(key=Statistics.COST).set_value("calls").run()
    no_exception(at)
    shown = " ".join(texts(at, "markdown"))
    assert md_text("7.00 fewer LLM calls per problem") in shown and "fewer tokens" not in shown
    assert "Δ LLM calls per problem" in at.table[0].value.columns
