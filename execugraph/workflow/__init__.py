"""One trial and its LangGraph workflow: the Problem, typed state, step outputs, events, the graph and run_trial."""
