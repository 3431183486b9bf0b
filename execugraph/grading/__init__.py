"""The grading rule (which tests, which protocol, what passes), CPU-time calibration and suite-file caps."""

__all__ = [
    "calibration",
    "executed",
    "findings",
    "limit_use",
    "outcome",
    "rules",
    "suite_files",
]
