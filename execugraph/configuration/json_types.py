"""Kept for plugins and older imports: this module now lives in `execugraph.domain.json_types`."""

from execugraph.domain.json_types import (
    JsonObject,
)

__all__ = ["JsonObject"]
