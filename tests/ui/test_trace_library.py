"""Trace: a multi-rag trial's retrieval hits are shown with the digest of the library its run searched."""

from __future__ import annotations

import json
from collections import OrderedDict

import pytest

from execugraph.benchmarks import load_benchmark
from execugraph.configuration.conditions import resolve_condition
from execugraph.retrieval import search as retrieval_search
from execugraph.store.technique_library import current_library
from execugraph.workflow.single import run_single
from execugraph.workflow.trial import TrialDeps
from standins.scripted import fenced, scripted
from tests.support.embedders import HashingEmbedder
from tests.support.reference_internal30 import REFERENCE
from tests.ui.conftest import no_exception, texts
from ui.keys import Trace

REVIEW = json.dumps({"invariants": [], "potential_failures": [], "severity": "low"})


def run_once(store, condition: str) -> int:
    problem = next(p for p in load_benchmark("internal30") if p.id == "fib")
    code = fenced(REFERENCE["fib"])
    chat = scripted(planner=["plan"], generator=[code], reviewer=[REVIEW], optimizer=[code], explainer=["ok"])
    _, result = run_single(store, problem, resolve_condition(condition), TrialDeps(chat_models=chat))
    return result.trial_id


@pytest.fixture
def hashing_retrieval(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(retrieval_search, "get_embedder", HashingEmbedder)
    monkeypatch.setattr(retrieval_search, "_retrievers", OrderedDict())


def test_the_hits_tab_names_the_library_digest(app, db_store, hashing_retrieval):
    trial_id = run_once(db_store, "multi-rag")
    digest = current_library(db_store).ref.digest
    at = app("trace", state={Trace.TAB: "Retrieval hits"}, trial=str(trial_id))
    no_exception(at)
    captions = texts(at, "caption")
    assert any(c.startswith("Technique library:") and digest in c for c in captions), captions
    shown = at.dataframe[-1].value
    assert list(shown["id"]) == [h.technique_id for h in db_store.hits_for_trial(trial_id)]


def test_a_trial_that_did_not_retrieve_says_so(app, db_store):
    trial_id = run_once(db_store, "multi-full")
    at = app("trace", state={Trace.TAB: "Retrieval hits"}, trial=str(trial_id))
    no_exception(at)
    assert any("No techniques were retrieved" in i for i in texts(at, "info"))
    assert not any(c.startswith("Technique library:") for c in texts(at, "caption"))
