"""What the agents write and the trial streams matches `execugraph.domain.steps` and `execugraph.domain.events`, key for key.

Real trials (real graph, sandbox and SQLite store, scripted models) through every node and
branch: each stored step output and each event is checked against its declared type, and
every key a type declares is seen written at least once, so the types and the writers
cannot drift apart in either direction.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import typing

import pytest

from execugraph.configuration.conditions import resolve_condition
from execugraph.configuration.settings import PROJECT_ROOT
from execugraph.domain.events import NodeFinished, NodeStarted, TrialFinished, TrialStarted
from execugraph.domain.problem import Problem
from execugraph.domain.steps import NODES, OUTPUT_TYPES, brief
from execugraph.workflow.graph import build_graph
from execugraph.workflow.single import run_single
from execugraph.workflow.trial import TrialDeps
from standins.ollama_server import OllamaStandIn
from standins.role_responder import role_responder
from standins.scripted import ScriptedChatModel, fenced, scripted
from tests.support.reference_internal30 import REFERENCE
from tests.support.typed import problems

pytestmark = pytest.mark.integration

GOOD = "def add(a, b):\n    return a + b\n"
WRONG = "def add(a, b):\n    return a - b\n"
CLEAN = "def add(a, b):\n    total = a + b\n    return total\n"
REVIEW_LOW = json.dumps({"invariants": ["returns a sum"], "potential_failures": [], "severity": "low"})
REVIEW_HIGH = json.dumps({"invariants": [], "potential_failures": ["subtracts"], "severity": "high"})
EVENT_TYPES = {"node_started": NodeStarted, "node_finished": NodeFinished, "trial_started": TrialStarted,
               "trial_finished": TrialFinished}


def call(expr: str, expected, visible: bool = False) -> dict:
    return {"kind": "call", "name": expr, "expr": expr, "expected": expected, "visible": visible}


@pytest.fixture
def problem() -> Problem:
    return Problem(id="add", benchmark="adhoc", category="math", statement="Return the sum of a and b.",
                   entry_point="add", tests=[call("add(1, 2)", 3, visible=True), call("add(-1, 1)", 0)])


@pytest.fixture(scope="module")
def pool():
    from sandbox import SandboxPool

    with SandboxPool(workers=1) as shared:
        yield shared


@pytest.fixture(scope="module")
def retriever(tmp_path_factory):
    from execugraph.configuration.settings import DATA_DIR
    from execugraph.retrieval import Retriever

    folder = tmp_path_factory.mktemp("rag")
    shutil.copy(DATA_DIR / "techniques.jsonl", folder / "techniques.jsonl")
    return Retriever.load(library_path=folder / "techniques.jsonl", cache_dir=folder / "index")


def _scenarios(problem: Problem, retriever) -> list[tuple[str, Problem, str, dict, dict]]:
    """(name, problem, condition, chat model replies, overrides): together they take every branch that writes a key."""
    bare = problem.model_copy(update={"tests": [], "id": "add-bare"})
    return [
        ("gated review, retry, accepted optimisation", problem, "multi-full",
         {"planner": ["add them"], "generator": [fenced(WRONG), fenced(WRONG), fenced(GOOD)],
          "reviewer": [REVIEW_HIGH, REVIEW_LOW], "optimizer": [fenced(CLEAN)], "explainer": ["adds"]},
         {"reviewer_gates": True}),
        ("retrieval, unchanged optimisation, with-prompt protocol", problem, "multi-rag",
         {"planner": ["add"], "generator": [fenced(GOOD)], "reviewer": [REVIEW_LOW],
          "optimizer": [fenced(GOOD)], "explainer": ["adds"]},
         {"grading_protocol": "with-prompt", "retriever": retriever}),
        ("model-written tests", bare, "single-oneshot",
         {"generator": [fenced(GOOD)], "evaluator": ['[{"call": "add(2, 3)", "expected": 5}, {"oops": 1}]']}, {}),
        ("best of n", problem, "best-of-n@2", {"generator": [fenced(WRONG), fenced(GOOD)]}, {}),
        ("retry without progress", problem, "single-retry",
         {"generator": [fenced(WRONG), fenced(WRONG), fenced(GOOD)]}, {}),
        ("unparsable reply", problem, "single-oneshot", {"generator": ["no code at all"]}, {}),
    ]


def _run(store, pool, problem, condition, replies, overrides):
    retriever = overrides.pop("retriever", None)
    events: list[dict] = []
    deps = TrialDeps(pool=pool, chat_models=scripted(**replies), emit=events.append, retriever=retriever)
    _, result = run_single(store, problem, resolve_condition(condition, **overrides), deps)
    return result, events


def _check_trial(store, result, events) -> list[str]:
    found = []
    for event in events:
        kind = EVENT_TYPES.get(event.get("type"))
        if kind is None:
            found.append(f"event of unknown type {event.get('type')!r}")
            continue
        found += problems({k: v for k, v in event.items() if k != "output"}, _without_output(kind), event["type"])
        assert event["trial_id"] == result.trial_id
    finished = [e for e in events if e["type"] == "node_finished"]
    steps = store.steps_for_trial(result.trial_id)
    assert [(s.node, s.attempt) for s in steps] == [(e["node"], e["attempt"]) for e in finished]
    for step, event in zip(steps, finished, strict=True):
        assert step.id == event["step_id"] and step.output == event["output"]  # the event carries what was stored
        found += problems(step.output, OUTPUT_TYPES[step.node], f"{step.node} step #{step.seq}",
                          partial="error" in step.output)
    return found


def _without_output(kind: type) -> type:
    """The event type minus `output` (checked per node against the node's own type instead)."""
    hints = {k: v for k, v in typing.get_type_hints(kind).items() if k != "output"}
    return typing.TypedDict(kind.__name__, hints)  # type: ignore[operator]


def test_every_step_output_and_event_matches_its_declared_type(sqlite_store, pool, problem, retriever):
    written: dict[str, set[str]] = {node: set() for node in NODES}
    found: list[str] = []
    for name, prob, condition, replies, overrides in _scenarios(problem, retriever):
        result, events = _run(sqlite_store, pool, prob, condition, replies, dict(overrides))
        assert result.status == "done", (name, result.message)
        found += [f"{name}: {p}" for p in _check_trial(sqlite_store, result, events)]
        for step in sqlite_store.steps_for_trial(result.trial_id):
            written[step.node] |= set(step.output)
    broken = {"generator": ScriptedChatModel(replies=["x"], error="Connection refused")}
    events: list[dict] = []
    _, failed = run_single(sqlite_store, problem, resolve_condition("single-oneshot"),
                           TrialDeps(pool=pool, chat_models=broken, emit=events.append))
    assert failed.status == "error"
    found += [f"failing provider: {p}" for p in _check_trial(sqlite_store, failed, events)]
    (step,) = sqlite_store.steps_for_trial(failed.trial_id)
    written[step.node] |= set(step.output)
    assert "Connection refused" in step.output["error"]
    assert found == []
    declared = {node: set(typing.get_type_hints(OUTPUT_TYPES[node])) - {"error"} for node in NODES}
    never = {node: sorted(declared[node] - keys) for node, keys in written.items() if declared[node] - keys}
    assert never == {}, "declared keys that no trial wrote"


def test_the_checker_catches_a_drifted_output():
    drifted = {"review": {"invariants": [], "potential_failures": []}, "severity": "high", "repairs": [],
               "gated": False}
    found = problems(drifted, OUTPUT_TYPES["reviewer"])
    assert "value has undeclared key 'severity' (ReviewerOutput)" in found
    assert "value['review'] lacks required key 'severity' (Review)" in found
    assert problems({"accepted": "yes", "reason": "", "verdict": None, "repairs": []}, OUTPUT_TYPES["optimizer"]) \
        == ["value['accepted'] is str, not bool"]


def test_the_cli_line_shows_the_severity_the_reviewer_nests_under_review(sqlite_store, pool, problem):
    result, events = _run(sqlite_store, pool, problem, "multi-full",
                          {"planner": ["add"], "generator": [fenced(GOOD)], "reviewer": [REVIEW_HIGH],
                           "optimizer": [fenced(GOOD)], "explainer": ["adds"]}, {})
    reviewer = next(e for e in events if e["type"] == "node_finished" and e["node"] == "reviewer")
    assert "severity" not in reviewer["output"]  # where the CLI used to look
    assert brief("reviewer", reviewer["output"]) == {"severity": "high"}
    evaluator = next(e for e in events if e["type"] == "node_finished" and e["node"] == "evaluator")
    assert brief("evaluator", evaluator["output"]) == {"passed": True, "decision": "optimize", "verdict": "passed"}


def test_run_command_prints_the_reviewers_severity(tmp_path):
    replies = {"planner": ["iterate"], "generator": [fenced(REFERENCE["fib"])], "reviewer": [REVIEW_HIGH],
               "evaluator": ["[]"], "optimizer": [fenced(REFERENCE["fib"])], "explainer": ["iterates"]}
    with OllamaStandIn(responder=role_responder(replies), models=["m"]) as server:
        env = os.environ | {"OLLAMA_HOST": server.url, "EXECUGRAPH_DB": str(tmp_path / "cli.db")}
        done = subprocess.run([sys.executable, "-m", "execugraph", "run", "--problem", "internal30/fib",
                               "--condition", "multi-full", "--model", "ollama:m"], cwd=PROJECT_ROOT, env=env,
                              capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    reviewer = next(line for line in done.stderr.splitlines() if line.strip().startswith("reviewer"))
    assert json.loads(reviewer[reviewer.index("{"):]) == {"severity": "high"}


def test_one_compiled_graph_serves_concurrent_trials_each_with_its_own_context(sqlite_store, pool, problem):
    config = resolve_condition("multi-no-planner")
    graph = build_graph(config)
    assert build_graph(config.model_copy(update={"seed": 7})) is graph  # compiled once per topology
    assert graph.builder.context_schema.__name__ == "TrialContext"
    programs = {"add": GOOD, "add-clean": CLEAN}
    results = {}

    def trial(pid: str) -> None:
        models = scripted(generator=[fenced(programs[pid])], reviewer=[REVIEW_LOW], optimizer=[fenced(programs[pid])],
                          explainer=[f"explains {pid}"])
        results[pid] = run_single(sqlite_store, problem.model_copy(update={"id": pid}), config,
                                  TrialDeps(pool=pool, chat_models=models))[1]

    threads = [threading.Thread(target=trial, args=(pid,)) for pid in programs]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert set(results) == set(programs)
    for pid, result in results.items():
        assert result.passed and result.explanation == f"explains {pid}"
        generator = next(s for s in sqlite_store.steps_for_trial(result.trial_id) if s.node == "generator")
        assert generator.output["code"].strip() == programs[pid].strip()
