"""Kept for plugins and older imports: this module now lives in `execugraph.domain.run_names`."""

from execugraph.domain.run_names import (
    ARM_SEPARATOR,
    MAX_CONDITIONS_SHOWN,
    MAX_TITLE_WORDS,
    arm_name,
    conditions_of,
    name_of,
    run_name,
    statement_title,
)

__all__ = [
    "ARM_SEPARATOR",
    "MAX_CONDITIONS_SHOWN",
    "MAX_TITLE_WORDS",
    "arm_name",
    "conditions_of",
    "name_of",
    "run_name",
    "statement_title",
]
