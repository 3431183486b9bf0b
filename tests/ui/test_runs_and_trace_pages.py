"""Runs: filters, summary, rename / tag / delete with confirmation, selection handed to the analysis pages.
Trace: a linked trial with its timeline, steps, LLM calls, code diffs and a side-by-side comparison."""

from __future__ import annotations

from tests.ui.conftest import no_exception, texts
from ui.keys import SELECTED_RUNS, Runs, Trace


def _table_ids(at):
    frame = at.dataframe[0].value
    return list(frame["id"])


def test_history_lists_every_run_and_filters_in_sql(app, seeded_db):
    at = app("runs")
    assert _table_ids(at) == [seeded_db.cancelled, seeded_db.running, seeded_db.single, seeded_db.batch]
    at.selectbox(key=Runs.KIND).set_value("single").run()
    assert _table_ids(at) == [seeded_db.single]
    at.selectbox(key=Runs.KIND).set_value("any").run()
    at.text_input(key=Runs.TEXT).input("ABLATION").run()
    assert _table_ids(at) == [seeded_db.batch]
    at.text_input(key=Runs.TEXT).input("").run()
    at.text_input(key=Runs.TAG).input("paper").run()
    assert _table_ids(at) == [seeded_db.batch]
    at.text_input(key=Runs.TAG).input("").run()
    at.selectbox(key=Runs.STATUS).set_value("cancelled").run()
    assert _table_ids(at) == [seeded_db.cancelled]
    at.text_input(key=Runs.MODEL).input("no-such-model").run()
    assert any("No run matches these filters" in i for i in texts(at, "info"))


def test_the_summary_shows_pass_rates_by_condition_and_category(app, seeded_db, db_store):
    at = app("runs", state={Runs.DETAIL: seeded_db.batch})
    no_exception(at)
    summary = db_store.run_summary(seeded_db.batch)
    by_condition = at.dataframe[1].value
    assert list(by_condition["condition"]) == [r["condition"] for r in summary["by_condition"]]
    # as text (ui/views/runs_cells.py: a missing rate reads — in the browser, never None)
    assert [v.lstrip("\u2007") for v in by_condition["pass_rate"]] == [
        f"{100 * r['pass_rate']:.1f}%" for r in summary["by_condition"]]
    assert list(at.dataframe[2].value["category"]) == ["dp", "graph"]
    assert at.metric[1].value == f"{100 * summary['overall']['pass_rate']:.1f}%"
    assert len(at.get("plotly_chart")) == 1  # the condition x category heatmap


def test_rename_tag_and_delete_with_confirmation(app, seeded_db, db_store):
    at = app("runs", state={Runs.DETAIL: seeded_db.single})
    assert at.text_input(key=Runs.RENAME).value == "fib (multi-full)"
    at.text_input(key=Runs.RENAME).input("my first synthesis")
    at.button(key=Runs.RENAME_SAVE).click().run()
    assert db_store.get_run(seeded_db.single).title == "my first synthesis"
    assert any("Renamed run" in s for s in texts(at, "success"))
    at.text_input(key=Runs.TAGS).input("demo, keep ,demo")
    at.button(key=Runs.TAGS_SAVE).click().run()
    assert db_store.get_run(seeded_db.single).tags == ["demo", "keep"]

    at.button(key=Runs.DELETE).click().run()
    assert db_store.get_run(seeded_db.single) is not None  # asking is not deleting
    assert any("cannot be undone" in m for m in texts(at, "markdown"))
    at.button(key=Runs.DELETE_CANCEL).click().run()
    assert db_store.get_run(seeded_db.single) is not None and not any(
        "cannot be undone" in m for m in texts(at, "markdown")
    )
    at.button(key=Runs.DELETE).click().run()
    at.button(key=Runs.DELETE_CONFIRM).click().run()
    no_exception(at)
    assert db_store.get_run(seeded_db.single) is None
    assert db_store.trials_for_run(seeded_db.single) == []
    assert seeded_db.single not in _table_ids(at)


def test_a_running_batch_cannot_be_deleted_from_under_its_worker(app, seeded_db):
    at = app("runs", state={Runs.DETAIL: seeded_db.running})
    assert at.button(key=Runs.DELETE).disabled


def test_selected_runs_are_handed_to_statistics(app, seeded_db):
    at = app("runs")
    at.multiselect(key=Runs.SELECT).set_value([seeded_db.batch]).run()
    assert at.session_state[SELECTED_RUNS] == [seeded_db.batch]
    link = next(e.proto for e in at.get("page_link") if e.proto.label == "Compare in Statistics")
    assert link.query_string == f"runs={seeded_db.batch}" and not link.disabled  # a link: one history entry
    at.switch_page("pages/statistics.py").run()
    no_exception(at)
    assert at.title[0].value == "Statistics"
    assert at.multiselect(key="stats.runs").value == [seeded_db.batch]
    assert at.dataframe  # the pairs table of the batch's conditions


def test_trace_opens_a_linked_trial_with_its_whole_story(app, seeded_db, db_store):
    at = app("trace", trial=str(seeded_db.passed_trial))
    no_exception(at)
    assert at.selectbox(key=Trace.TRIAL).value == seeded_db.passed_trial
    assert at.metric[0].value == "passed"
    figure = at.get("plotly_chart")[0].proto.spec
    steps = db_store.steps_for_trial(seeded_db.passed_trial)
    for step in steps:
        assert f"#{step.seq} {step.node}" in figure
    labels = [e.label for e in at.expander]
    assert sum(label.startswith("#") for label in labels) >= len(steps)
    captions = texts(at, "caption")
    assert any(c.startswith("LLM call · planner · llamacpp:default") for c in captions)
    assert any(c.startswith("Sandbox run (feedback): passed") for c in captions)
    hits = at.dataframe  # per-test results and retrieval hits are tables
    assert hits


def test_trace_compares_two_trials_and_names_the_first_divergence(app, seeded_db, db_store):
    at = app("trace", trial=str(seeded_db.failed_trial))
    assert not any(w.startswith("First divergence") for w in texts(at, "warning"))  # only the open tab is drawn
    at.session_state[Trace.TAB] = "Compare"
    at.run()
    no_exception(at)
    warnings = texts(at, "warning")
    assert any(w.startswith("First divergence at step 1:") for w in warnings), warnings
    other = at.selectbox(key=Trace.COMPARE).value
    assert db_store.get_trial(other).passed  # the opposite outcome is offered first
    assert any(f"internal30 ablation (seeded) #{seeded_db.batch} · " in o for o in at.selectbox(key=Trace.COMPARE).options)
    assert any(label.startswith(":red[") for label in (e.label for e in at.expander))


def test_trace_filters_and_code_diffs(app, seeded_db, db_store):
    at = app("trace", state={Trace.RUN: seeded_db.batch})
    at.selectbox(key=Trace.CONDITION).set_value("single-retry").run()
    at.selectbox(key=Trace.OUTCOME).set_value("passed").run()
    options = at.selectbox(key=Trace.TRIAL).options
    assert options and all("single-retry" in o and o.endswith("passed") for o in options)

    retried = next(t for t in db_store.trials_for_run(seeded_db.batch) if t.retries_used >= 1)
    at = app("trace", state={Trace.TAB: "Code per attempt"}, trial=str(retried.id))
    no_exception(at)
    assert at.selectbox(key=Trace.DIFF_FROM).value.startswith("attempt 0")
    assert at.selectbox(key=Trace.DIFF_TO).value.startswith("attempt 1")
    diff = next(c.value for c in at.code if c.language == "diff")
    assert "-    # attempt 0" in diff and "+    # attempt 1" in diff

    at.query_params["trial"] = "999999"
    at.run()
    assert any("Trial 999999 from the link does not exist" in w for w in texts(at, "warning"))
