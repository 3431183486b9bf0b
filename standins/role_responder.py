"""An Ollama stand-in responder that answers by agent role, read from the system prompt."""

from __future__ import annotations

import threading
from typing import Any

ROLE_TITLES = {
    "Planner": "planner",
    "Generator": "generator",
    "Logical Reviewer": "reviewer",
    "Evaluator": "evaluator",
    "Optimizer": "optimizer",
    "Explainer": "explainer",
}


def role_of(messages: list[dict[str, Any]]) -> str:
    system = next((str(m.get("content")) for m in messages if m.get("role") == "system"), "")
    for title, role in ROLE_TITLES.items():
        if f"You are the {title}" in system:
            return role
    return "generator"


def role_responder(replies: dict[str, list[str]]):
    """Replies per role, in order; the last one repeats. Records which roles were asked."""
    lock = threading.Lock()
    counters: dict[str, int] = {}
    asked: list[str] = []

    def respond(model: str, messages: list[dict[str, Any]], options: dict[str, Any]) -> str:
        role = role_of(messages)
        with lock:
            asked.append(role)
            index = counters.get(role, 0)
            counters[role] = index + 1
        script = replies[role]
        return script[min(index, len(script) - 1)]

    respond.asked = asked  # type: ignore[attr-defined]
    return respond
