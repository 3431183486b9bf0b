"""The six agents (and the grade node), their prompts, the trial context and execution glue; each node is a plain
function (state, runtime) -> partial state update, its trial's dependencies in `runtime.context` (a TrialContext).
Each node's module registers one `NodeSpec` (`registry`: its function, step output type, prompt, how a trace
shows it, colour); `nodes` loads them all, and the graph, trace view, step renderer and charts read it.
What a node stores as its step output is typed in `execugraph.domain.steps`; reading model replies back is
`execugraph.parsing`'s job."""

__all__ = [
    "context",
    "external_loop",
    "nodes",
    "registry",
    "state",
]
