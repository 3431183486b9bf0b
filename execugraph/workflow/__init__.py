"""One trial and its LangGraph workflow: the graph and run_trial (the types it passes around live in `domain`)."""

__all__ = [
    "single",
    "trial",
]
