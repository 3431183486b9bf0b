"""Batch cards (issue 41): per-condition counts, elapsed time, tokens, the trial in flight, the subset drawn,
the scroll to a launched batch, and a Resume that shows at once (one fragment id across reruns)."""

from __future__ import annotations

from execugraph.store import utcnow
from tests.ui.conftest import no_exception, texts
from tests.ui.test_batch_page import _one_dp_problem
from ui.keys import Batch


def _fragment_ids(at) -> set[str]:
    return set(at._fragment_storage._fragments)  # AppTest keeps the session's fragment storage across runs


def test_a_running_card_counts_each_condition_and_links_the_trial_in_flight(app, seeded_db, db_store):
    run_id = seeded_db.running
    queued = db_store.trials_for_run(run_id, status="queued")[0]
    db_store.update_trial(queued.id, status="running", started_at=utcnow())
    at = app("batch")
    no_exception(at)
    captions = " ".join(texts(at, "caption"))
    assert "elapsed " in captions and " tokens" in captions, captions
    conditions = {t.condition for t in db_store.trials_for_run(run_id)}
    for condition in conditions:
        assert f"{condition}: " in captions and " finished, " in captions
    links = [link for link in at.get("page_link") if "trial #" in link.proto.label]
    assert [link.proto.label.split(" · ")[0] for link in links] == [f"trial #{queued.id}"]
    label = links[0].proto.label
    assert queued.problem_id in label and queued.condition in label and "running " in label
    assert links[0].proto.page.endswith("trace") and f"trial={queued.id}" in links[0].proto.query_string


def test_a_launched_subset_lists_its_problems_and_the_page_scrolls_to_its_card(app, db_store):
    at = _one_dp_problem(app("batch"))
    at.button(key=Batch.LAUNCH).click().run()
    no_exception(at)
    run_id = at.session_state[Batch.LAUNCHED]
    drawn = {t.problem_id for t in db_store.trials_for_run(run_id)}
    assert [e.label for e in at.expander if e.label.startswith("Random subset")] == [
        "Random subset: the 1 problems drawn"]
    assert any(p in " ".join(texts(at, "caption")) for p in drawn)
    scripts = [h.proto.body for h in at.get("html") if "scrollIntoView" in h.proto.body]
    assert len(scripts) == 1 and f".st-key-{Batch.CARD}{run_id}" in scripts[0]
    at.run()
    assert not [h for h in at.get("html") if "scrollIntoView" in h.proto.body]  # once, not on every rerun


def test_resume_shows_the_resumed_batch_at_once_and_the_panel_keeps_its_fragment_id(app, seeded_db, db_store):
    at = app("batch")
    no_exception(at)
    live = _fragment_ids(at)  # the seeded running batch: the panel polls
    assert live
    db_store.update_run(seeded_db.running, status="done", finished_at=utcnow())
    at.run()
    idle = _fragment_ids(at)
    assert live & idle, (live, idle)  # the same fragment, polling or not: a click from a stale card still finds it
    resume = at.button(key=f"{Batch.RESUME}{seeded_db.cancelled}")
    assert not resume.disabled
    resume.click().run()
    no_exception(at)
    assert db_store.get_run(seeded_db.cancelled).status == "queued"
    heads = [m for m in texts(at, "markdown") if "cancelled batch (seeded)" in m]
    assert heads and heads[0].endswith("· queued"), heads
    assert not [b for b in at.button if b.key == f"{Batch.RESUME}{seeded_db.cancelled}"]


def test_a_batch_listed_by_two_status_queries_gets_one_card() -> None:
    """Between the queued, running and finished queries a batch can move on and be listed twice: one card."""
    from types import SimpleNamespace

    from ui.views.runs import first_of_each

    runs = [SimpleNamespace(id=3), SimpleNamespace(id=1), SimpleNamespace(id=3), SimpleNamespace(id=2),
            SimpleNamespace(id=1)]
    assert [r.id for r in first_of_each(runs)] == [3, 1, 2]
