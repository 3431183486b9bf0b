"""The node registry: each agent module declares one `NodeSpec` and registers it, and the graph, the trace
view, the step renderer and the charts read the node from here instead of switching on its name.

A spec says what the node is (its function, its step output type, its prompt), how a trace shows its
stored step output (`TraceView`: pure functions from that output to a title's gist and display blocks),
whether it writes a program (`writes`: the `WrittenCode` in its output, which code tracking follows)
and its colour. The seven built-in nodes (`vocabulary.NODES`) register from their own modules
(`execugraph.agents.nodes` imports them all); graph.py wires them as it always has. Any other name is an
*extra* node: it declares the node it `follows`, and graph.py puts it on that node's one plain outgoing
edge. The `NodeName` Literal stays the built-in set: an extra extends the known set at run time
(`known_nodes()`), which is what a stored step's node may be.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Literal

from execugraph.domain.vocabulary import NODES

BlockKind = Literal[
    "markdown",  # Markdown made safe by the spec (md_text / md_rich)
    "caption",  # a small note (safe Markdown)
    "code",  # literal text in a code box (`language`, `line_numbers`)
    "table",  # `rows` as a table
    "diff",  # `text` (a candidate program) as a diff against the program before this step
    "success",  # a passed outcome (safe Markdown)
    "error",  # a failed outcome (safe Markdown)
    "unparsed",  # the drawer warns that the reply was not used as written and shows the raw reply
    "executions",  # the drawer shows the step's sandbox runs from the store
    "explanation",  # the explainer's text, bounded by the drawer
    "json",  # `data` as JSON
]
# Nodes that graph.py leaves by one plain edge: an extra node may follow one of them (the reviewer and the
# evaluator leave by routers, whose targets stay exactly as they are).
STRAIGHT_EXITS = ("planner", "generator", "optimizer", "grade", "explainer")


@dataclass(frozen=True)
class Block:
    """One piece of a step's body on screen; the drawer (ui/steps.py) maps each kind to one widget."""

    kind: BlockKind
    text: str = ""
    language: str = "text"
    line_numbers: bool = False
    rows: tuple[Mapping[str, Any], ...] = ()
    data: Mapping[str, Any] = field(default_factory=dict)


Output = Mapping[str, Any]


def no_gist(output: Output) -> str:
    return ""


def json_body(output: Output) -> list[Block]:
    """What an unknown or undescribed step shows: its output as JSON, then any sandbox runs it made."""
    return [Block("json", data=output), Block("executions")]


def no_signature(output: Output) -> tuple[Any, ...] | None:
    return None


def different_output(output: Output) -> str:
    return "different output"


def always_parsed(output: Output) -> str | None:
    return None


@dataclass(frozen=True)
class WrittenCode:
    """A program one step wrote, as code tracking (the trace's attempts, Compare, the step drawer's diffs) reads it."""

    code: str | None  # the program as the step output holds it; None: the output holds none (a step that failed)
    note: str | None  # what the step says of it: a generator's reason (initial, retry, ...), accepted / rejected
    replaces: bool  # True: it becomes the trial's program (an attempt); False: a candidate only proposed


def writes_nothing(output: Output) -> WrittenCode | None:
    return None


@dataclass(frozen=True)
class TraceView:
    """How a trace shows one node's stored step output, each a pure function of that output.

    gist: the few words after the step's title; body: the blocks under it; signature: the parts of the
    output that steer the workflow (two trials diverge where these differ; None: nothing to compare);
    differs: how a divergence reads when the signature is the content itself ("wrote different code"),
    else describe: those parts in words; unparsed: why the model's reply was not used as written (None
    when it was).
    """

    gist: Callable[[Output], str] = no_gist
    body: Callable[[Output], list[Block]] = json_body
    signature: Callable[[Output], tuple[Any, ...] | None] = no_signature
    differs: str | None = None
    describe: Callable[[Output], str] = different_output
    unparsed: Callable[[Output], str | None] = always_parsed


@dataclass(frozen=True)
class NodeSpec:
    """One node of the workflow, declared once by its module."""

    name: str
    run: Callable[..., Any]  # (state, runtime) -> partial TrialState update, its context in runtime.context
    output_type: type  # the TypedDict it stores as its step output (execugraph.domain.steps for the built-ins)
    colour: str  # its bars in the step timeline
    prompt: str | None = None  # the template it renders (agents/prompts/<name>.txt, or `template` below)
    template: str | None = None  # the template's text, for a node whose prompt is not a file under prompts/
    duty: tuple[str, str] | None = None  # (title, duty) of its role's system prompt; built-ins: prompts.ROLE_DUTIES
    icon: str = ":material/radio_button_checked:"
    trace: TraceView = TraceView()
    follows: str | None = None  # extra nodes only: the built-in node it runs right after
    # The program its step output holds, for code tracking (None: the node writes no code).
    writes: Callable[[Output], WrittenCode | None] = writes_nothing
    # A node that runs in a graph of its own (an external loop's step), never wired into the agents' graph.
    standalone: bool = False
    # A plugin's node: wired only into the conditions whose `nodes` list names it.
    opt_in: bool = False


_SPECS: dict[str, NodeSpec] = {}


class RegistryError(ValueError):
    """A spec that cannot be wired: a built-in given a position, an extra without one, a name taken."""


def register(spec: NodeSpec) -> NodeSpec:
    """Add `spec` (re-registering the same name replaces it); returns it, so a module can keep it."""
    if spec.name in NODES:
        if spec.follows is not None:
            raise RegistryError(f"{spec.name} is a built-in node: graph.py wires it, it takes no `follows`")
    elif spec.standalone:
        if spec.follows is not None:
            raise RegistryError(f"{spec.name} runs in a graph of its own: it takes no `follows`")
    elif spec.follows not in STRAIGHT_EXITS:
        raise RegistryError(
            f"extra node {spec.name!r} must follow one of {', '.join(STRAIGHT_EXITS)} (got {spec.follows!r})"
        )
    if spec.template is not None and spec.prompt is None:
        raise RegistryError(f"node {spec.name!r} gives a template without a prompt name")
    _SPECS[spec.name] = spec
    return spec


def unregister(name: str) -> None:
    """Forget an extra node (built-ins stay: the graph needs them)."""
    if name in NODES:
        raise RegistryError(f"{name} is a built-in node and cannot be unregistered")
    _SPECS.pop(name, None)


@contextmanager
def registered(spec: NodeSpec) -> Iterator[NodeSpec]:
    """`spec` registered for the duration of a block (tests, experiments), then forgotten."""
    register(spec)
    try:
        yield spec
    finally:
        unregister(spec.name)


def spec_for(name: str) -> NodeSpec | None:
    """The registered spec of `name` (None: not registered, e.g. an imported trial's record step)."""
    return _SPECS.get(name)


def specs() -> list[NodeSpec]:
    """Every registered spec: the built-ins in `NODES` order, then the extras in registration order."""
    built_in = [_SPECS[n] for n in NODES if n in _SPECS]
    return built_in + list(extras())


def extras() -> tuple[NodeSpec, ...]:
    """The registered nodes that are not built in, in registration order."""
    return tuple(s for s in _SPECS.values() if s.name not in NODES and not s.standalone)


def wired_extras(nodes: Iterable[str] = ()) -> tuple[NodeSpec, ...]:
    """The extras a condition's graph carries: every non-plugin extra, and the plugin nodes it names in `nodes`."""
    named = set(nodes)
    return tuple(s for s in extras() if not s.opt_in or s.name in named)


def known_nodes() -> tuple[str, ...]:
    """The built-in node names and every registered extra's."""
    return (*NODES, *(s.name for s in _SPECS.values() if s.name not in NODES))


def inline_template(name: str) -> str | None:
    """The template text a registered node carries under `name` (None: none does)."""
    for spec in _SPECS.values():
        if spec.prompt == name and spec.template is not None:
            return spec.template
    return None


def role_duty(role: str) -> tuple[str, str] | None:
    """The (title, duty) a registered node declares for its role's system prompt."""
    spec = _SPECS.get(role)
    return spec.duty if spec is not None else None
