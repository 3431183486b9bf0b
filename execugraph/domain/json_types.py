"""The one name for JSON that has not been given a type yet: what a file, a JSON column or a model's reply holds.

Typed models (pydantic or frozen dataclasses) carry data between packages; `JsonObject` is
only for the edges where JSON is read before it is validated, or written after
`model_dump()` / `asdict()`. A function that passes a `JsonObject` on to another package
is a place where a typed model is missing.
"""

from __future__ import annotations

from typing import Any, TypeAlias

JsonObject: TypeAlias = dict[str, Any]
"""A decoded JSON object (string keys, any JSON values), as read or about to be written."""
