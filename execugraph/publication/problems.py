"""Kept for plugins and older imports: this module now lives in `execugraph.verdicts.problems`."""

from execugraph.verdicts.problems import (
    ProblemResolver,
    Resolution,
)

__all__ = ["ProblemResolver", "Resolution"]
