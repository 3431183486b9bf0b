"""The six agents; each node is a plain function (state, ctx) -> partial state update."""
