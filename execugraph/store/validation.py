"""What the store checks before any write: settable fields, enumerated values, aware timestamps, tags, messages.

Every Store method that writes calls these first, so bad input is refused with
a ValueError naming the model and field before a transaction starts, and
nothing already stored is touched.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from sqlalchemy import Table
from sqlmodel import SQLModel

from execugraph.store.models import (
    EXECUTION_PURPOSES,
    FEEDBACK_SOURCES,
    GRADING_PROTOCOLS,
    RUN_KINDS,
    RUN_STATUSES,
    TEST_SOURCES,
    TRIAL_STATUSES,
)

# Allowed values of the enumerated columns, checked on every write.
CHOICES: dict[tuple[str, str], tuple[str, ...]] = {
    ("run", "kind"): RUN_KINDS,
    ("run", "status"): RUN_STATUSES,
    ("trial", "status"): TRIAL_STATUSES,
    ("trial", "test_source"): TEST_SOURCES,
    ("trial", "feedback_source"): FEEDBACK_SOURCES,
    ("trial", "grading_protocol"): GRADING_PROTOCOLS,
    ("execution", "purpose"): EXECUTION_PURPOSES,
}
# The type of each field of a trial key (see `Store.ensure_trials`).
KEY_TYPES = {"problem_id": str, "condition": str, "seed": int, "trial_index": int, "category": str, "benchmark": str}


def table_of(model: type[SQLModel]) -> Table:
    """The SQLAlchemy table behind a SQLModel class."""
    return model.__table__  # type: ignore[attr-defined,no-any-return]


def check_fields(model: type[SQLModel], fields: Mapping[str, object], *, frozen: Iterable[str] = ("id",)) -> None:
    """Reject field names the table does not have (or must not be set), and bad enum values."""
    table = table_of(model)
    columns = set(table.columns.keys()) - set(frozen)
    unknown = sorted(set(fields) - columns)
    if unknown:
        raise ValueError(
            f"{model.__name__} has no settable field {', '.join(map(repr, unknown))}; "
            f"settable fields: {', '.join(sorted(columns))}"
        )
    for name, value in fields.items():
        allowed = CHOICES.get((table.name, name))
        if allowed is not None and value is not None and value not in allowed:
            raise ValueError(f"{model.__name__}.{name} must be one of {', '.join(allowed)}; got {value!r}")
        if allowed is not None and value is None and not table.c[name].nullable:
            raise ValueError(f"{model.__name__}.{name} must be one of {', '.join(allowed)}; got None")
        if isinstance(value, datetime) and value.utcoffset() is None:
            raise ValueError(
                f"{model.__name__}.{name} must be a timezone-aware datetime (use store.utcnow()); got {value!r}"
            )


def check_tags(tags: Any) -> list[str]:
    """Tags as stored: strings, stripped, empty and repeated ones dropped, order kept."""
    if not isinstance(tags, (list, tuple)) or not all(isinstance(t, str) for t in tags):
        raise ValueError(f"tags must be a list of strings; got {tags!r}")
    cleaned: list[str] = []
    for tag in (t.strip() for t in tags):
        if tag and tag not in cleaned:
            cleaned.append(tag)
    return cleaned


def check_messages(messages: Any) -> None:
    """Refuse LLM-call messages that are not a list of {role, content} dicts."""
    if not isinstance(messages, list) or not all(
        isinstance(m, dict) and "role" in m and "content" in m for m in messages
    ):
        raise ValueError("LLMCall.messages must be a list of {'role': ..., 'content': ...} dicts")

