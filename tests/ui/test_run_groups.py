"""Rescores listed under the run they re-graded: named by their verdict set, at their own cost, never the parent's.

A real import, real rescores in the sandbox, a real SQLite store."""

from __future__ import annotations

from pathlib import Path

import pytest

from execugraph.configuration.settings import DATA_DIR
from execugraph.publication import import_path
from execugraph.store import Store
from execugraph.verdicts import rescore_run
from tests.support import db_files
from ui import views
from ui.views.formatting import duration
from ui.views.run_groups import GONE, MISSING, family_count, own_seconds, rescore_label

pytestmark = pytest.mark.integration

FIXTURE = DATA_DIR / "fixtures" / "reference_layout" / "grid-demo"


@pytest.fixture(scope="module")
def family(tmp_path_factory: pytest.TempPathFactory):
    """grid-demo imported, e1_so rescored three ways (standalone, with-prompt, standalone on current tests)."""
    from sandbox import SandboxPool

    path = tmp_path_factory.mktemp("groups") / "runs.db"
    with Store.open(str(path)) as store, SandboxPool(workers=2) as pool:
        runs = {r.name.split("/")[-1]: r.id for r in import_path(store, FIXTURE).runs}
        memo: dict = {}
        children = {
            "standalone": rescore_run(store, runs["e1_so"], pool=pool, protocol="standalone", memo=memo).run_id,
            "with-prompt": rescore_run(store, runs["e1_so"], pool=pool, protocol="with-prompt", memo=memo).run_id,
            "current": rescore_run(store, runs["e1_so"], pool=pool, protocol="standalone", tests="current",
                                   memo=memo).run_id,
        }
    return path, runs, children


@pytest.fixture
def store(family, tmp_path: Path):
    db_files.copy_database(family[0], tmp_path / "copy.db")
    with Store.open(str(tmp_path / "copy.db")) as opened:
        yield opened


def _groups(store: Store, **filters):
    return views.group_runs(store, views.run_rows(store, **filters))


def test_rescores_are_grouped_under_their_parent_and_named_by_protocol(family, store: Store) -> None:
    _, runs, children = family
    groups = _groups(store)
    assert {g.row["id"] for g in groups} == set(runs.values())  # only parents in the table
    parent = next(g for g in groups if g.row["id"] == runs["e1_so"])
    plain = views.run_rows(store)
    parent_name = next(r["name"] for r in plain if r["id"] == runs["e1_so"])
    assert parent.row["name"] == parent_name and parent.row["family"] == "3 rescores"
    names = {c["id"]: c["name"] for c in parent.children}
    assert names == {
        children["standalone"]: f"{parent_name} · rescored standalone #{children['standalone']}",
        children["with-prompt"]: f"{parent_name} · rescored with-prompt #{children['with-prompt']}",
        children["current"]: f"{parent_name} · rescored standalone on current tests #{children['current']}",
    }
    assert {c["family"] for c in parent.children} == {f"rescore of #{runs['e1_so']}"}
    listed = [r["id"] for r in views.listed_rows(groups)]
    at = listed.index(runs["e1_so"])
    assert set(listed[at + 1 : at + 4]) == set(children.values())  # each parent followed by its children


def test_a_rescore_costs_no_call_no_token_and_its_own_time(family, store: Store) -> None:
    _, runs, children = family
    parent = next(g for g in _groups(store) if g.row["id"] == runs["e1_so"])
    trials = store.trials_for_run(runs["e1_so"])
    assert parent.row["llm_calls"] == sum(t.llm_calls for t in trials) > 0
    assert parent.row["tokens"] == sum(t.tokens_in + t.tokens_out for t in trials) > 0
    assert parent.row["wall_clock"] == duration(sum(t.wallclock_s for t in trials))
    for child in parent.children:
        copied = store.trials_for_run(child["id"])
        assert sum(t.tokens_in for t in copied) > 0  # why: the child's trials keep how the programs were made
        run = store.get_run(child["id"])
        assert (child["llm_calls"], child["tokens"]) == (0, 0)
        assert child["wall_clock"] == duration((run.finished_at - run.started_at).total_seconds())
        assert child["wall_clock"] != parent.row["wall_clock"]


def test_a_child_whose_parent_is_filtered_out_or_deleted_keeps_its_own_row(family, store: Store) -> None:
    _, runs, children = family
    alone = _groups(store, kind="rescore")
    assert {g.row["id"] for g in alone} == set(children.values()) and all(not g.children for g in alone)
    row = next(g.row for g in alone if g.row["id"] == children["with-prompt"])
    assert row["family"] == f"rescore of #{runs['e1_so']}, not listed here"
    assert row["name"].endswith(f" · rescored with-prompt #{children['with-prompt']}")
    assert row["name"].startswith("e1_so")

    store.delete_run(runs["e1_so"])
    orphans = [g.row for g in _groups(store) if g.row["id"] in children.values()]
    assert len(orphans) == 3 and {r["family"] for r in orphans} == {f"rescore; {GONE}"}
    standalone = next(r for r in orphans if r["id"] == children["standalone"])
    assert standalone["name"].startswith("e1_so") and " · rescored standalone #" in standalone["name"]
    assert (standalone["llm_calls"], standalone["tokens"]) == (0, 0)


def test_a_rescore_of_a_rescore_is_listed_under_the_run_both_came_from(family, store: Store) -> None:
    _, runs, children = family
    grand = store.create_run("rescore", f"rescore of run {children['standalone']}", {"rescore": {"tests": "stronger"}},
                             parent_run_id=children["standalone"], status="done")
    parent = next(g for g in _groups(store) if g.row["id"] == runs["e1_so"])
    assert parent.row["family"] == "4 rescores"
    row = next(c for c in parent.children if c["id"] == grand)
    assert row["name"].endswith(f"rescored standalone #{children['standalone']} · rescored as recorded on "
                                f"stronger tests #{grand}")
    assert row["wall_clock"] == MISSING and (row["llm_calls"], row["tokens"]) == (0, 0)  # nothing recorded
    alone = next(g for g in _groups(store, kind="rescore") if g.row["id"] == children["standalone"])
    assert [c["id"] for c in alone.children] == [grand]
    assert alone.row["family"] == f"rescore of #{runs['e1_so']}, not listed here; 1 rescore"


def test_labels_and_times_read_what_the_child_recorded() -> None:
    assert rescore_label({"rescore": {"grading_protocol": {"with-prompt": 2, "standalone": 3}}}) == (
        "rescored standalone + with-prompt"
    )
    assert rescore_label({"rescore": {"grading_protocol": "with-prompt", "tests": "stronger_tests"}}) == (
        "rescored with-prompt on stronger tests"
    )
    assert rescore_label(None) == "rescored as recorded"
    assert own_seconds(None, None, {"rescore": {"duration_s": 2.5}}) == 2.5
    assert own_seconds(None, None, {"rescore": {}}) is None
    assert family_count([{"derived": "rescore"}, {"derived": "derived"}]) == "1 rescore, 1 derived run"
