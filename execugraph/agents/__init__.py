"""The six agents, their prompts, the trial context and execution glue; each node is a plain function
(state, ctx) -> partial state update. Reading model replies back is `execugraph.parsing`'s job."""
