"""Model providers and endpoint health: the chat-model factory, the per-trial router, outages, failure classes, doctor checks."""

__all__ = [
    "clients",
    "embedded",
    "health",
    "llm",
    "model_router",
    "model_spec",
    "openai_direct",
    "outages",
]
