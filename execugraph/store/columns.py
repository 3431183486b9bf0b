"""The shape of each store table as plain data: column names, value kinds, nullability and defaults.

The publication bundle encodes and checks rows column by column (see
`publication.formats.ColumnCodec`); it learns the columns from here, so a
column added to a table travels in bundles without the publication code
touching the table objects.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import JSON, Boolean, DateTime, Float, Integer, String, Text
from sqlalchemy.types import TypeDecorator
from sqlmodel import SQLModel

from execugraph.store.validation import table_of

KINDS = ("int", "float", "bool", "str", "datetime", "json")


@dataclass(frozen=True)
class ColumnShape:
    """One column: its name, the kind of value it holds, whether it may be null, and its scalar default."""

    name: str
    kind: str  # one of KINDS
    nullable: bool
    has_default: bool
    default: Any = None


@dataclass(frozen=True)
class TableShape:
    """A table's name and its columns in table order."""

    name: str
    columns: tuple[ColumnShape, ...]


def _kind(column_type: Any) -> str:
    while isinstance(column_type, TypeDecorator):
        column_type = column_type.impl_instance
    if isinstance(column_type, JSON):
        return "json"
    if isinstance(column_type, Boolean):
        return "bool"
    if isinstance(column_type, Integer):
        return "int"
    if isinstance(column_type, Float):
        return "float"
    if isinstance(column_type, DateTime):
        return "datetime"
    if isinstance(column_type, (String, Text)):
        return "str"
    raise TypeError(f"no value kind for column type {column_type!r}")


def table_shape(model: type[SQLModel]) -> TableShape:
    """The shape of `model`'s table."""
    table = table_of(model)
    columns = []
    for column in table.columns:
        scalar = column.default is not None and column.default.is_scalar
        columns.append(
            ColumnShape(
                column.name,
                _kind(column.type),
                bool(column.nullable),
                scalar,
                column.default.arg if scalar else None,  # type: ignore[union-attr]
            )
        )
    return TableShape(table.name, tuple(columns))
