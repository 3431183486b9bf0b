"""Runs page: rescores are collapsed under the run they re-graded, named by protocol, at their own cost."""

from __future__ import annotations

from execugraph.configuration.settings import DATA_DIR
from execugraph.publication import import_path
from execugraph.verdicts import rescore_run
from tests.ui.conftest import no_exception, texts
from ui.keys import Runs
from ui.run_parts import family_key
from ui.views.formatting import duration

FIXTURE = DATA_DIR / "fixtures" / "reference_layout" / "grid-demo"


def _sections(at):
    return [e for e in at.expander if e.label.startswith("Rescores of")]


def test_rescores_are_collapsed_under_their_run_named_by_protocol_at_their_own_cost(app, db_store):
    from sandbox import SandboxPool

    runs = {r.name.split("/")[-1]: r.id for r in import_path(db_store, FIXTURE).runs}
    parent_id = runs["e1_so"]
    with SandboxPool(workers=2) as pool:
        standalone = rescore_run(db_store, parent_id, pool=pool, protocol="standalone").run_id
        prompt = rescore_run(db_store, parent_id, pool=pool, protocol="with-prompt").run_id
    at = app("runs")
    no_exception(at)
    table = at.dataframe[0].value
    assert sorted(table["id"]) == sorted(runs.values())  # the parents only
    parent = table[table["id"] == parent_id].iloc[0]
    assert parent["family"] == "2 rescores" and parent["tokens"] > 0 and parent["llm_calls"] > 0
    (section,) = _sections(at)
    assert section.label == f"Rescores of {parent['name']} (2 rescores)"
    assert not section.proto.expanded and len(section.dataframe) == 0  # collapsed, nothing drawn inside

    at.session_state[family_key(parent_id)] = True  # what opening it does
    at.run()
    no_exception(at)
    children = _sections(at)[0].dataframe[0].value
    assert dict(zip(children["id"], children["name"], strict=True)) == {
        standalone: f"{parent['name']} · rescored standalone #{standalone}",
        prompt: f"{parent['name']} · rescored with-prompt #{prompt}",
    }
    assert list(children["llm_calls"]) == [0, 0] and list(children["tokens"]) == [0, 0]
    for child_id, wall in zip(children["id"], children["wall_clock"], strict=True):
        run = db_store.get_run(int(child_id))
        assert wall == duration((run.finished_at - run.started_at).total_seconds()) != parent["wall_clock"]

    at.selectbox(key=Runs.DETAIL).set_value(prompt).run()  # the child's own summary: no tokens, its own time
    no_exception(at)
    metrics = {m.label: m.value for m in at.metric}
    own = children[children["id"] == prompt].iloc[0]["wall_clock"]
    assert metrics["Tokens"] == "0" and metrics["Rescoring took"] == own
    assert any("A rescore: 0 LLM calls, 0 tokens" in c for c in texts(at, "caption"))


def test_a_rescore_whose_run_is_filtered_out_keeps_a_row_of_its_own(app, db_store):
    runs = {r.name.split("/")[-1]: r.id for r in import_path(db_store, FIXTURE).runs}
    child = rescore_run(db_store, runs["e1_so"], protocol="standalone").run_id
    at = app("runs")
    at.selectbox(key=Runs.KIND).set_value("rescore").run()
    no_exception(at)
    table = at.dataframe[0].value
    assert list(table["id"]) == [child] and not _sections(at)
    assert table.iloc[0]["family"] == f"rescore of #{runs['e1_so']}, not listed here"
    assert table.iloc[0]["name"] == f"e1_so #{runs['e1_so']} · rescored standalone #{child}"
