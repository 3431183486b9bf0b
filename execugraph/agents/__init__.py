"""The six agents, their prompts, the trial context and execution glue; each node is a plain function
(state, runtime) -> partial state update, its trial's dependencies in `runtime.context` (a TrialContext).
What a node stores as its step output is typed in `execugraph.steps`; reading model replies back is
`execugraph.parsing`'s job."""
