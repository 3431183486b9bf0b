"""Kept for plugins and older imports: this module now lives in `execugraph.domain.events`."""

from execugraph.domain.events import (
    NodeEvent,
    NodeFinished,
    NodeStarted,
    TrialEvent,
    TrialFinished,
    TrialStarted,
)

__all__ = ["NodeEvent", "NodeFinished", "NodeStarted", "TrialEvent", "TrialFinished", "TrialStarted"]
