"""How a rejected configuration is told to a person: one line per field, for the CLI and the forms alike."""

from __future__ import annotations


def readable_error(exc: Exception) -> str:
    """A pydantic ValidationError as 'field: message' lines; anything else as its message."""
    errors = getattr(exc, "errors", None)
    if callable(errors):
        parts = []
        for err in errors():
            where = ".".join(str(p) for p in err.get("loc", ()))
            message = str(err.get("msg", "")).removeprefix("Value error, ")
            parts.append(f"{where}: {message}" if where else message)
        return "; ".join(parts)
    return str(exc)
