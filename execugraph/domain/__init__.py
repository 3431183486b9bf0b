"""The ground floor: the Problem, step outputs, events, RunConfig, the project's words, JSON types and run names.

Every other package may import it; it imports nothing of ours (`tests/layout/test_layers.py`).
"""

__all__ = ["config", "events", "json_types", "lazy_names", "problem", "run_names", "steps", "vocabulary"]
