"""Kept for plugins and older imports: this module now lives in `execugraph.domain.config`."""

from execugraph.domain.config import (
    EXPLAINER_MAX_TOKENS,
    EXPLAINER_REPEAT_PENALTY,
    ROLES,
    FeedbackSource,
    GradingProtocol,
    Role,
    RunConfig,
    TechniqueLibraryRef,
)

__all__ = [
    "EXPLAINER_MAX_TOKENS",
    "EXPLAINER_REPEAT_PENALTY",
    "FeedbackSource",
    "GradingProtocol",
    "ROLES",
    "Role",
    "RunConfig",
    "TechniqueLibraryRef",
]
