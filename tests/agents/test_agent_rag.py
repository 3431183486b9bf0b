"""multi-rag through the real graph and the real retriever: techniques reach the planner, hits are stored."""

from __future__ import annotations

import json
import shutil

import pytest

from execugraph.batch.control import enqueue_batch
from execugraph.batch.runner import Worker
from execugraph.batch.spec import BatchSpec
from execugraph.benchmarks import load_benchmark
from execugraph.configuration.settings import DATA_DIR
from execugraph.retrieval import Retriever
from execugraph.workflow.trial import TrialDeps
from standins.scripted import fenced, scripted
from tests.support.reference_internal30 import REFERENCE

pytestmark = pytest.mark.integration

REVIEW = json.dumps({"invariants": [], "potential_failures": [], "severity": "low"})


@pytest.fixture(scope="module")
def retriever(tmp_path_factory):
    folder = tmp_path_factory.mktemp("rag")
    library = folder / "techniques.jsonl"
    shutil.copy(DATA_DIR / "techniques.jsonl", library)
    return Retriever.load(library_path=library, cache_dir=folder / "index")


def models(code: str):
    return scripted(planner=["use the retrieved technique"], generator=[fenced(code)], reviewer=[REVIEW],
                    optimizer=[fenced(code)], explainer=["ok"])


def test_multi_rag_batch_feeds_techniques_to_the_planner_and_stores_hits(sqlite_store, retriever):
    problem = next(p for p in load_benchmark("internal30") if p.id == "dijkstra")
    run_id = enqueue_batch(sqlite_store, BatchSpec(conditions=["multi-rag", "multi-full"], problem_ids=["dijkstra"]),
                           [problem])
    planners = []

    def deps() -> TrialDeps:
        chat = models(REFERENCE["dijkstra"])
        planners.append(chat["planner"])
        return TrialDeps(chat_models=chat, retriever=retriever)

    Worker(sqlite_store, deps_factory=deps).run_forever(exit_when_idle=True)
    trials = {t.condition: t for t in sqlite_store.trials_for_run(run_id)}
    assert trials["multi-rag"].passed and trials["multi-full"].passed
    hits = sqlite_store.hits_for_trial(trials["multi-rag"].id)
    assert [h.rank for h in hits] == [1, 2, 3] and hits[0].query == problem.statement
    assert any("dijkstra" in h.technique_id or "shortest" in h.technique_id for h in hits)
    assert not sqlite_store.hits_for_trial(trials["multi-full"].id)  # the lever is off in the control arm
    rag_prompt = next(p.prompts[0] for p in planners if "Techniques that may apply" in p.prompts[0])
    assert hits[0].technique_name in rag_prompt
    planner_step = sqlite_store.steps_for_trial(trials["multi-rag"].id)[0]
    assert planner_step.node == "planner" and len(planner_step.output["hits"]) == 3
