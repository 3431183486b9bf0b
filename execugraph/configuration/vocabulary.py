"""Kept for plugins and older imports: this module now lives in `execugraph.domain.vocabulary`."""

from execugraph.domain.vocabulary import (
    FEEDBACK_SOURCES,
    GRADING_PROTOCOLS,
    NODES,
    ROLES,
    TRIAL_ORDERS,
    FeedbackSource,
    GradingProtocol,
    NodeName,
    Role,
    TrialOrder,
)

__all__ = [
    "FEEDBACK_SOURCES",
    "FeedbackSource",
    "GRADING_PROTOCOLS",
    "GradingProtocol",
    "NODES",
    "NodeName",
    "ROLES",
    "Role",
    "TRIAL_ORDERS",
    "TrialOrder",
]
