"""The Statistics page's cost choice "model time": the report is rebuilt with model time (summed LLM call seconds)
and the cost column and frontier speak of it; the other choices leave it out."""

from __future__ import annotations

from tests.ui.conftest import no_exception, texts
from ui.keys import Statistics


def _run(store) -> int:
    """Two conditions on four problems: `slow` spends 3.2 s more model time per problem than `fast`."""
    run = store.create_run("batch", "model time", {}, benchmark="internal30")
    for i, problem in enumerate(["p1", "p2", "p3", "p4"]):
        for condition, seconds in (("fast", 1.0 + 0.1 * i), ("slow", 4.2 + 0.1 * i)):
            trial = store.create_trial(run, problem, condition, 0, 0, category="c", benchmark="internal30")
            store.update_trial(trial, status="done", passed=True, tokens_in=10, tokens_out=10, llm_calls=1,
                               wallclock_s=seconds + 1)
            store.add_llm_call(trial, role="generator", latency_s=seconds)
    return run


def test_model_time_is_a_cost_choice(app, db_store):
    run = _run(db_store)
    at = app("statistics", runs=str(run))
    no_exception(at)
    assert "Δ model time s per problem" not in at.table[0].value.columns
    at.radio(key=Statistics.COST).set_value("model-time").run()
    no_exception(at)
    paired = at.table[0].value
    assert "Δ model time s per problem" in paired.columns
    assert [round(abs(float(v)), 1) for v in paired["Δ model time s per problem"]] == [3.2]
    shown = " ".join(texts(at, "markdown"))
    assert "seconds of model time" in shown
