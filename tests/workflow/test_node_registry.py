"""A seventh agent is one module plus one registration: a toy linter, run offline, stored and shown by the trace.

The toy lives in this file (its "module": a step output type, a node function, how a trace shows it) and
is registered once, by the `linter` fixture's single `registered(...)` call; nothing else in the tree
names it. The built-ins are checked against what the tree said before the registry (node names, output
types, colours), so the registry cannot quietly drift from them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, TypedDict, cast

import pytest
from langgraph.runtime import Runtime

from execugraph.agents import nodes
from execugraph.agents.context import TrialContext
from execugraph.agents.prompts import render
from execugraph.agents.registry import Block, NodeSpec, RegistryError, TraceView, WrittenCode, register, registered
from execugraph.agents.state import TrialState
from execugraph.configuration.conditions import resolve_condition
from execugraph.domain.problem import Problem
from execugraph.domain.steps import NODES, OUTPUT_TYPES
from execugraph.figures import charts
from execugraph.workflow.graph import build_graph
from execugraph.workflow.single import run_single
from execugraph.workflow.trial import TrialDeps
from standins.scripted import fenced, scripted
from ui import views

pytestmark = pytest.mark.integration

GOOD = "def add(a, b):\n    return a + b\n"
LINTER_COLOUR = "#e91e63"


# -- the toy agent's module --------------------------------------------------------------------------------
class LinterOutput(TypedDict):
    findings: list[str]
    clean: bool


def lint(state: TrialState, runtime: Runtime[TrialContext]) -> TrialState:
    """Ask the linter model about the generated code; its findings are its step output, the state is untouched."""
    ctx = runtime.context
    with ctx.step("linter", max(0, state.get("attempt", 1) - 1)) as out:  # type: ignore[arg-type]  # an extra node
        reply = ctx.ask("linter", render("linter", code=state.get("code", "")))
        findings = [line.strip("- ").strip() for line in reply.splitlines() if line.strip()]
        out.update(LinterOutput(findings=findings, clean=not findings))
    return {}


def _lint_body(output: Mapping[str, Any]) -> list[Block]:
    findings = cast(LinterOutput, output).get("findings") or []
    return [Block("markdown", "\n".join(f"- {item}" for item in findings) or "_clean_")]


LINTER = NodeSpec(
    name="linter", run=lint, output_type=LinterOutput, colour=LINTER_COLOUR, follows="generator",
    prompt="linter", template="List the style problems of this program, one a line:\n{code}\n",
    duty=("Linter", "You point out style problems in Python code, one a line."),
    trace=TraceView(
        gist=lambda output: f"{len(output.get('findings') or [])} finding(s)",
        body=_lint_body,
        signature=lambda output: (tuple(output.get("findings") or ()),),
        describe=lambda output: f"{len(output.get('findings') or [])} finding(s)",
    ),
)


# -- a toy agent that writes code: a formatter whose program replaces the generator's --------------------------
class FormatterOutput(TypedDict):
    code: str


def tidy(code: str) -> str:
    return "# formatted\n" + code


def format_code(state: TrialState, runtime: Runtime[TrialContext]) -> TrialState:
    """Head the program with a note (no model call); the tidy program is the trial's program from here."""
    ctx = runtime.context
    with ctx.step("formatter", max(0, state.get("attempt", 1) - 1)) as out:  # type: ignore[arg-type]  # an extra
        out.update(FormatterOutput(code=tidy(state.get("code", ""))))
    return {"code": out["code"]}


FORMATTER = NodeSpec(
    name="formatter", run=format_code, output_type=FormatterOutput, colour="#607d8b", follows="generator",
    trace=TraceView(gist=lambda output: "tidied"),
    writes=lambda output: WrittenCode(code=output.get("code"), note="tidied", replaces=True),
)


# -- the one registration ------------------------------------------------------------------------------------
@pytest.fixture
def linter() -> Iterator[NodeSpec]:
    with registered(LINTER) as spec:
        yield spec


@pytest.fixture
def formatter() -> Iterator[NodeSpec]:
    with registered(FORMATTER) as spec:
        yield spec


@pytest.fixture
def problem() -> Problem:
    tests = [{"kind": "call", "name": e, "expr": e, "expected": v, "visible": i == 0}
             for i, (e, v) in enumerate([("add(1, 2)", 3), ("add(-1, 1)", 0)])]
    return Problem(id="add", benchmark="adhoc", category="math", statement="Return the sum of a and b.",
                   entry_point="add", signature="add(a: int, b: int) -> int", tests=tests)


@pytest.fixture(scope="module")
def pool():
    from sandbox import SandboxPool

    with SandboxPool(workers=1) as shared:
        yield shared


def _edges(config_name: str) -> set[tuple[str, str]]:
    shape = build_graph(resolve_condition(config_name)).get_graph()
    return {(e.source, e.target) for e in shape.edges}


def test_the_built_in_nodes_register_what_the_tree_declared_before_the_registry() -> None:
    assert [s.name for s in nodes.specs()] == list(NODES) == [s.name for s in nodes.BUILT_IN]
    assert {s.name: s.output_type for s in nodes.BUILT_IN} == {n: OUTPUT_TYPES[n] for n in NODES}
    assert {s.name: s.colour for s in nodes.BUILT_IN} == {
        "planner": "#7e57c2", "generator": "#1e88e5", "reviewer": "#00897b", "evaluator": "#f4511e",
        "optimizer": "#fdd835", "grade": "#6d4c41", "explainer": "#43a047",
    }
    assert nodes.colour_of("reference_record") == nodes.UNKNOWN_COLOUR and nodes.extras() == ()


def test_a_registration_that_cannot_be_wired_is_refused() -> None:
    with pytest.raises(RegistryError, match="built-in"):
        register(NodeSpec(name="planner", run=lint, output_type=LinterOutput, colour="#000", follows="generator"))
    with pytest.raises(RegistryError, match="must follow"):
        register(NodeSpec(name="linter", run=lint, output_type=LinterOutput, colour="#000", follows="reviewer"))
    with pytest.raises(RegistryError, match="must follow"):
        register(NodeSpec(name="linter", run=lint, output_type=LinterOutput, colour="#000"))
    assert nodes.spec_for("linter") is None


def test_the_registered_linter_sits_on_the_generators_plain_edge_and_leaves_with_its_registration() -> None:
    before = _edges("multi-full")
    with registered(LINTER):
        wired = _edges("multi-full")
        assert ("generator", "linter") in wired and ("linter", "reviewer") in wired
        assert ("generator", "reviewer") not in wired
        assert wired - {("generator", "linter"), ("linter", "reviewer")} == before - {("generator", "reviewer")}
        assert ("linter", "evaluator") in _edges("single-oneshot")  # no reviewer: straight on to the evaluator
    assert _edges("multi-full") == before and "linter" not in build_graph(resolve_condition("multi-full")).nodes


def test_a_trial_with_the_toy_linter_stores_its_step_and_the_trace_shows_it_in_its_colour(
    linter, sqlite_store, pool, problem,
) -> None:
    models = scripted(generator=[fenced(GOOD)], linter=["- name the sum\n- add a docstring"])
    config = resolve_condition("single-oneshot")
    _, result = run_single(sqlite_store, problem, config, TrialDeps(pool=pool, chat_models=models))
    assert result.status == "done" and result.passed
    assert result.nodes == ["generator", "linter", "evaluator", "grade"]
    stored = {s.node: s for s in sqlite_store.steps_for_trial(result.trial_id)}
    assert stored["linter"].output == {"findings": ["name the sum", "add a docstring"], "clean": False}
    prompt = models["linter"].prompts[0]
    assert "You point out style problems" in prompt and "return a + b" in prompt  # its duty and its template
    assert [c.role for c in sqlite_store.llm_calls_for_trial(result.trial_id)] == ["generator", "linter"]

    rows = views.step_rows(sqlite_store, result.trial_id)
    linted = next(r for r in rows if r["node"] == "linter")
    shown = nodes.trace_of("linter")
    assert shown.gist(linted["output"]) == "2 finding(s)"
    assert shown.body(linted["output"]) == [Block("markdown", "- name the sum\n- add a docstring")]
    fig = charts.step_timeline(rows)
    colours = {bar.name: bar.marker.color for bar in fig.data}
    assert colours["linter"] == LINTER_COLOUR and colours["generator"] == "#1e88e5"

    other = [dict(r) for r in rows]
    other[1] = {**other[1], "output": {"findings": [], "clean": True}}
    split = views.first_divergence(rows, other)  # type: ignore[arg-type]
    assert split is not None and split.index == 1 and split.reason == "linter: 2 finding(s) vs 0 finding(s)"


def test_the_step_renderer_titles_the_linter_step_from_its_registration(linter) -> None:
    from ui.steps import _icon, step_title

    step = {"step_id": None, "seq": 2, "node": "linter", "attempt": 0, "output": {"findings": ["x"], "clean": False}}
    assert step_title(step) == "#2 linter · attempt 0 · 1 finding(s)"  # type: ignore[arg-type]
    assert _icon("linter") == LINTER.icon and _icon("reference_record") == ":material/radio_button_checked:"


def test_a_toy_node_that_writes_code_shows_in_code_tracking_from_its_registration(
    formatter, sqlite_store, pool, problem,
) -> None:
    from ui.views import trial_compare
    from ui.views.trace import program_after

    messy, tidy_code = GOOD, tidy(GOOD)
    models = scripted(generator=[fenced(messy)])
    _, result = run_single(sqlite_store, problem, resolve_condition("single-oneshot"),
                           TrialDeps(pool=pool, chat_models=models))
    assert result.status == "done" and result.passed
    assert result.nodes == ["generator", "formatter", "evaluator", "grade"]
    trial = sqlite_store.get_trial(result.trial_id)
    assert trial is not None and trial.final_code == tidy_code  # the formatter's program is what was graded

    rows = views.step_rows(sqlite_store, result.trial_id)
    assert [(a["label"], a["code"]) for a in views.code_attempts(rows)] == [
        ("attempt 0 (step 1, initial)", messy), ("attempt 0 (step 2, tidied)", tidy_code)]
    assert [(a.number, a.reason, a.code) for a in trial_compare.attempts(trial, rows)] == [
        (1, "initial", messy), (2, "tidied", tidy_code)]
    code = ""
    for row in rows:  # the step drawer diffs each step against the program before it
        code = program_after(row, code)
        if row["node"] == "generator":
            assert code == messy
    assert code == tidy_code
    assert nodes.written_code("linter", {"findings": []}) is None  # a node that writes no code is not tracked
