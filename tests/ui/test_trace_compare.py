"""Trace's Compare tab: two trials that part at different agents show their final programs as a diff and each
attempt next to the same-numbered one; imported trials compare by their recorded code, on either side, with their
verdict under the published set and under each rescore of their run."""

from __future__ import annotations

from execugraph.configuration.settings import DATA_DIR
from execugraph.publication import import_path
from execugraph.safety.inert_text import md_text
from execugraph.verdicts import rescore_run
from tests.support import diverging_trials as dt
from tests.ui.conftest import no_exception, texts
from ui.keys import Trace

FIXTURES = DATA_DIR / "fixtures" / "reference_layout"


def _diffs(at) -> list[str]:
    return [c.value for c in at.code if c.language == "diff"]


def test_trials_parting_at_different_agents_diff_their_final_code_and_attempts(app, db_store):
    pair = dt.seed_pair(db_store)
    at = app("trace", state={Trace.TAB: "Compare"}, trial=str(pair.reviewed))
    no_exception(at)
    assert at.selectbox(key=Trace.COMPARE).value == pair.retried
    assert any(w.startswith("First divergence at step 3: different agent: reviewer vs evaluator")
               for w in texts(at, "warning")), texts(at, "warning")
    final = _diffs(at)[0]
    assert f"--- trial {pair.reviewed} (final)" in final and "-    a, b = 0, 1" in final
    assert "+    return [0, 1, 1, 2, 3, 5][n]" in final
    markdown = texts(at, "markdown")
    assert f"**Trial #{pair.reviewed}** verdicts: as run: passed" in markdown
    assert f"**Trial #{pair.retried}** verdicts: as run: failed (AssertionError)" in markdown
    labels = [e.label for e in at.expander]
    assert ["Attempt 1: identical", "Attempt 2: differs", f"Attempt 3: only trial #{pair.retried}"] == [
        label for label in labels if label.startswith("Attempt ")]
    assert f"Trial #{pair.reviewed}: no attempt 3" in texts(at, "caption")
    assert dt.LAST.rstrip() in [c.value.rstrip() for c in at.code]
    assert any(label.startswith(":red[") for label in labels)  # both step lists, the divergence highlighted


def test_an_imported_trial_compares_with_an_agent_trial_on_either_side(app, db_store):
    runs = {r.name.split("/")[-1]: r.id for r in import_path(db_store, FIXTURES / "published-demo").runs}
    imported = db_store.find_trial(runs["e1_so"], "fib", "single-oneshot", 0, 0)
    db_store.update_trial(imported.id, error_class="*x*`[y](z)")  # a published log's text: shown, never rendered
    pair = dt.seed_pair(db_store, benchmark=imported.benchmark, problem_id="fib")

    at = app("trace", state={Trace.TAB: "Compare", Trace.COMPARE: pair.retried}, trial=str(imported.id))
    no_exception(at)
    assert any(c.startswith("One of the two trials has no agent steps") for c in texts(at, "caption"))
    assert not any(w.startswith("First divergence") for w in texts(at, "warning"))
    final = _diffs(at)[0]
    assert f"--- trial {imported.id} (final)" in final and "+    return [0, 1, 1, 2, 3, 5][n]" in final
    assert "Attempt 1: differs" in [e.label for e in at.expander]
    assert f"Trial #{imported.id}: no attempt 2" in texts(at, "caption")
    assert f"**Trial #{imported.id}** verdicts: published: passed" in texts(at, "markdown")

    at = app("trace", state={Trace.TAB: "Compare", Trace.COMPARE: imported.id}, trial=str(pair.retried))
    no_exception(at)
    final = _diffs(at)[0]
    assert f"+++ trial {imported.id} (final)" in final and "-    return [0, 1, 1, 2, 3, 5][n]" in final
    assert f"Trial #{imported.id} has no agent steps (imported from a published log, or rescored)." in texts(
        at, "caption")
    db_store.update_trial(imported.id, passed=False)
    at.run()
    line = f"**Trial #{imported.id}** verdicts: {md_text('published: failed (*x*`[y](z))')}"
    assert line in texts(at, "markdown"), texts(at, "markdown")


def test_an_imported_trial_shows_its_rescored_verdicts_beside_the_published_one(app, db_store):
    runs = {r.name.split("/")[-1]: r.id for r in import_path(db_store, FIXTURES / "published-demo").runs}
    standalone = rescore_run(db_store, runs["e2_he_so"], protocol="standalone").run_id
    rescore_run(db_store, runs["e2_he_so"], protocol="with-prompt")
    imported = db_store.find_trial(runs["e2_he_so"], "humaneval_0", "single-oneshot", 0, 0)

    at = app("trace", trial=str(imported.id))  # the recorded grading first, as before
    no_exception(at)
    assert any("Imported from a published log" in i for i in texts(at, "info"))
    assert not any("verdicts:" in m for m in texts(at, "markdown"))

    at.session_state[Trace.TAB] = "Compare"
    at.run()
    no_exception(at)
    rescored = db_store.find_trial(standalone, "humaneval_0", "single-oneshot", 0, 0)
    assert at.selectbox(key=Trace.COMPARE).value == rescored.id  # the opposite outcome first
    family = md_text("published: passed · standalone: failed (runtime_error) · with-prompt: passed")
    markdown = texts(at, "markdown")
    assert f"**Trial #{imported.id}** verdicts: {family}" in markdown, markdown
    assert f"**Trial #{rescored.id}** verdicts: {family}" in markdown
    assert _diffs(at)[0] == "# the two final programs are identical"
    assert "Attempt 1: identical" in [e.label for e in at.expander]
