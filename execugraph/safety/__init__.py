"""Secrets redaction and data-derived text made inert for every place it is shown."""

__all__ = [
    "inert_text",
    "redaction",
]
