"""Kept for plugins and older imports: this module now lives in `execugraph.domain.problem`."""

from execugraph.domain.problem import (
    Problem,
)

__all__ = ["Problem"]
