"""multi-rag runs record the technique library they searched, and search exactly that one.

Real graph, real sandbox, real store and FAISS index; scripted chat models and
the hashing embedder stand in for the LLMs and MiniLM. A technique whose
"when to use" is the problem statement itself is ranked first whenever the
library searched holds it, which tells which library a trial searched.
"""

from __future__ import annotations

import json
from collections import OrderedDict

import pytest

from execugraph.batch.control import enqueue_batch
from execugraph.batch.runner import Worker
from execugraph.batch.spec import BatchSpec, batch_spec_of
from execugraph.benchmarks import load_benchmark
from execugraph.configuration.conditions import resolve_condition
from execugraph.publication import export_bundle, import_path
from execugraph.retrieval import Technique
from execugraph.retrieval import search as retrieval_search
from execugraph.store import Store
from execugraph.store.technique_library import add_technique, current_library
from execugraph.workflow.single import run_single
from execugraph.workflow.trial import TrialDeps
from standins.scripted import fenced, scripted
from tests.support.embedders import HashingEmbedder
from tests.support.reference_internal30 import REFERENCE
from ui import views

pytestmark = pytest.mark.integration

REVIEW = json.dumps({"invariants": [], "potential_failures": [], "severity": "low"})


@pytest.fixture(autouse=True)
def hashing_retrieval(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    """Retrievers built by the code under test embed with the hashing embedder, indexes cached in tmp_path."""
    monkeypatch.setattr(retrieval_search, "get_embedder", HashingEmbedder)
    monkeypatch.setattr(retrieval_search, "_retrievers", OrderedDict())
    monkeypatch.setenv("EXECUGRAPH_CACHE_DIR", str(tmp_path / "cache"))


@pytest.fixture(scope="module")
def problem():
    return next(p for p in load_benchmark("internal30") if p.id == "dijkstra")


def deps() -> TrialDeps:
    code = REFERENCE["dijkstra"]
    return TrialDeps(chat_models=scripted(planner=["use the retrieved technique"], generator=[fenced(code)],
                                          reviewer=[REVIEW], optimizer=[fenced(code)], explainer=["ok"]))


def echo_of(problem) -> Technique:
    """A technique that reads exactly like the problem: first hit whenever the library holds it."""
    return Technique(id="echo-of-the-problem", name="Echo", category="graph", when_to_use=problem.statement,
                     key_idea="k", complexity="O(1)", pitfalls="p", tags=["echo"])


def recorded(store: Store, run_id: int, condition: str) -> dict | None:
    return store.get_run(run_id).config["conditions"][condition].get("technique_library")


def test_a_single_run_records_its_library_and_a_later_edit_changes_the_digest(sqlite_store, problem) -> None:
    store = sqlite_store
    config = resolve_condition("multi-rag")
    first_id, first = run_single(store, problem, config, deps())
    assert first.passed
    pinned = recorded(store, first_id, "multi-rag")
    library = current_library(store).ref
    assert pinned == library.model_dump() and pinned["techniques"] == library.techniques
    first_hits = store.hits_for_trial(first.trial_id)
    assert [h.rank for h in first_hits] == [1, 2, 3] and "echo-of-the-problem" not in [h.technique_id for h in first_hits]

    add_technique(store, echo_of(problem))
    second_id, second = run_single(store, problem, config, deps())
    after = recorded(store, second_id, "multi-rag")
    assert after["digest"] != pinned["digest"] and after["techniques"] == pinned["techniques"] + 1
    assert after["edits"] == 1 and after["digest"] == current_library(store).ref.digest
    assert store.hits_for_trial(second.trial_id)[0].technique_id == "echo-of-the-problem"
    assert recorded(store, first_id, "multi-rag") == pinned  # the earlier run's record is untouched

    trial = store.get_trial(first.trial_id)  # what the Trace page shows beside the hits
    assert views.trial_library(store, trial).digest == pinned["digest"]
    caption = views.library_caption(views.trial_library(store, trial))
    assert pinned["digest"] in caption and "data/techniques.jsonl" in caption
    assert "1 edit kept in the database" in views.library_caption(views.trial_library(store,
                                                                                        store.get_trial(second.trial_id)))


def test_a_non_retrieving_run_records_no_library(sqlite_store, problem) -> None:
    run_id, result = run_single(sqlite_store, problem, resolve_condition("multi-full"), deps())
    assert recorded(sqlite_store, run_id, "multi-full") is None
    trial = sqlite_store.get_trial(result.trial_id)
    assert views.trial_library(sqlite_store, trial) is None
    assert "not recorded" in views.library_caption(None)


def test_a_queued_batch_searches_the_library_pinned_when_it_was_queued(sqlite_store, problem) -> None:
    store = sqlite_store
    spec = BatchSpec(conditions=["multi-rag", "multi-full"], problem_ids=["dijkstra"])
    run_id = enqueue_batch(store, spec, [problem])
    pinned = recorded(store, run_id, "multi-rag")
    assert pinned is not None and recorded(store, run_id, "multi-full") is None
    assert store.get_run(run_id).config["batch"]["technique_library"] == pinned
    # what the worker and the Ray driver rebuild from the stored run: the same pin
    stored = batch_spec_of(store.get_run(run_id))
    assert stored.run_config("multi-rag").technique_library.model_dump() == pinned
    assert stored.run_config("multi-full").technique_library is None

    add_technique(store, echo_of(problem))  # edited after queueing, before any trial ran
    Worker(store, deps_factory=deps).run_forever(exit_when_idle=True)
    trials = {t.condition: t for t in store.trials_for_run(run_id)}
    assert trials["multi-rag"].passed and trials["multi-full"].passed
    hits = store.hits_for_trial(trials["multi-rag"].id)
    assert len(hits) == 3 and "echo-of-the-problem" not in [h.technique_id for h in hits]
    assert not store.hits_for_trial(trials["multi-full"].id)

    later = enqueue_batch(store, spec, [problem])  # queued after the edit: the edited library
    assert recorded(store, later, "multi-rag")["digest"] == current_library(store).ref.digest != pinned["digest"]
    Worker(store, deps_factory=deps).run_forever(exit_when_idle=True)
    rag = next(t for t in store.trials_for_run(later) if t.condition == "multi-rag")
    assert store.hits_for_trial(rag.id)[0].technique_id == "echo-of-the-problem"


def test_a_trial_whose_pinned_library_is_gone_ends_saying_so(sqlite_store, problem, tmp_path) -> None:
    spec = BatchSpec(conditions=["multi-rag"], problem_ids=["dijkstra"])
    with Store.open(str(tmp_path / "elsewhere.db")) as elsewhere:
        add_technique(elsewhere, echo_of(problem))
        foreign = enqueue_batch(elsewhere, spec, [problem])
        foreign_spec = batch_spec_of(elsewhere.get_run(foreign))
    with pytest.raises(ValueError, match="does not hold"):  # a rerun of that config here is refused up front
        enqueue_batch(sqlite_store, foreign_spec, [problem])
    # a config that got past that check (queued by an older version) ends its trial naming the library
    config = foreign_spec.run_config("multi-rag")
    run_id = sqlite_store.create_run("single", "gone", {"conditions": {"multi-rag": config.model_dump()}})
    from execugraph.workflow.trial import run_trial

    result = run_trial(problem, config, sqlite_store, run_id=run_id, deps=deps())
    assert result.status == "error" and result.verdict == "harness_error"
    assert "does not hold" in result.message and config.technique_library.digest[:12] in result.message


def test_export_and_import_carry_the_library_record(sqlite_store, problem, tmp_path) -> None:
    run_id, _ = run_single(sqlite_store, problem, resolve_condition("multi-rag"), deps())
    pinned = recorded(sqlite_store, run_id, "multi-rag")
    export_bundle(sqlite_store, [run_id], tmp_path / "bundle")
    with Store.open(str(tmp_path / "imported.db")) as other:
        imported = import_path(other, tmp_path / "bundle").runs[0].id
        assert recorded(other, imported, "multi-rag") == pinned
        trial = other.trials_for_run(imported)[0]
        assert views.trial_library(other, trial).digest == pinned["digest"]
