"""Kept for plugins and older imports: this module now lives in `execugraph.agents.state`."""

from execugraph.agents.state import (
    Decision,
    Grading,
    Sample,
    TrialState,
)

__all__ = ["Decision", "Grading", "Sample", "TrialState"]
