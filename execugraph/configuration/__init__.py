"""Configuration: named conditions, environment settings, the model axis (RunConfig and the words are in `domain`)."""

__all__ = [
    "conditions",
    "model_axis",
    "settings",
    "validation_errors",
]
