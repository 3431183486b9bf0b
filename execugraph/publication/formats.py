"""What the files of a bundle look like: canonical JSON, value codecs and the errors that name a bad line.

Everything written into a bundle goes through `dumps`/`dumps_pretty` (sorted keys,
ASCII only, no NaN), so the same data always gives the same bytes. Table rows are
encoded column by column from the store tables' shapes (`ColumnCodec`, `store.columns`):
datetimes become ISO 8601 strings with microseconds and an explicit UTC offset,
non-finite floats become the strings "NaN" / "Infinity" / "-Infinity", and every
other value is the JSON of what the store returns. Decoding checks each value's
type against its column, so a hand-edited file is refused with the file, line and
field at fault instead of being half-stored. Issues and the JSON readers are the shared
ones of `execugraph.inputs`; `BundleFormatError` is their error for an import input.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeAlias

from execugraph.domain.json_types import JsonObject
from execugraph.inputs.diagnostics import MAX_REPORTED_ISSUES, InputError, Issue
from execugraph.inputs.diagnostics import IssueCollector as BaseIssueCollector
from execugraph.inputs.readers import TOO_DEEP, read_json_lines, read_json_object
from execugraph.store.columns import TableShape

__all__ = [
    "MAX_REPORTED_ISSUES", "TOO_DEEP", "BundleFormatError", "ColumnCodec", "Issue", "IssueCollector", "Row", "dumps",
    "dumps_pretty", "iter_jsonl", "jsonl_bytes", "load_json_object",
]

Row: TypeAlias = dict[str, Any]
"""One table row as column name -> value: a store row with every column (export), or a bundle line decoded by its
table's codec (import). Generic over the seven bundle tables, whose columns `store.columns` describes."""

_NON_FINITE = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


class BundleFormatError(InputError):
    """An import input is malformed; nothing was written. `issues` lists every problem found (up to a limit)."""


class IssueCollector(BaseIssueCollector):
    """Gathers issues while a whole import input is validated; `raise_if_any` raises BundleFormatError."""

    error = BundleFormatError


def dumps(value: Any) -> str:
    """Compact canonical JSON: one line of a .jsonl file."""
    return json.dumps(value, sort_keys=True, ensure_ascii=True, separators=(",", ":"), allow_nan=False)


def dumps_pretty(value: Any) -> bytes:
    """Indented canonical JSON for the small .json files, newline-terminated."""
    return (json.dumps(value, sort_keys=True, ensure_ascii=True, indent=2, allow_nan=False) + "\n").encode("ascii")


def jsonl_bytes(rows: Iterable[JsonObject]) -> bytes:
    """Rows as JSON Lines, one canonical object per line."""
    return "".join(dumps(row) + "\n" for row in rows).encode("ascii")


def iter_jsonl(data: bytes, file: str, issues: IssueCollector) -> Iterator[tuple[int, JsonObject]]:
    """(line number, object) for every non-blank line; bad lines are recorded as issues and skipped."""
    return read_json_lines(data, file, issues)


def load_json_object(data: bytes, file: str, issues: IssueCollector) -> JsonObject | None:
    """A whole-file JSON object, or None with an issue recorded."""
    return read_json_object(data, file, issues)


def encode_datetime(value: datetime | None) -> str | None:
    """ISO 8601 in UTC with microseconds, e.g. 2025-01-02T03:04:05.000006+00:00."""
    if value is None:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC).isoformat(timespec="microseconds")


def decode_datetime(value: Any) -> datetime:
    """Parse what `encode_datetime` wrote; a value without a UTC offset is refused."""
    if not isinstance(value, str):
        raise ValueError(f"expected an ISO 8601 date-time string, got {value!r}")
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise ValueError(f"not an ISO 8601 date-time: {value!r}") from None
    if parsed.tzinfo is None:
        raise ValueError(f"date-time {value!r} has no UTC offset")
    return parsed.astimezone(UTC)


def encode_float(value: float | None) -> float | str | None:
    """A float as JSON allows it: finite as is, NaN/Infinity as strings."""
    if value is None or math.isfinite(value):
        return value
    return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")


def decode_float(value: Any) -> float:
    """Inverse of `encode_float`; anything else is a ValueError."""
    if isinstance(value, bool):
        raise ValueError(f"expected a number, got {value!r}")
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str) and value in _NON_FINITE:
        return _NON_FINITE[value]
    raise ValueError(f"expected a number, got {value!r}")


@dataclass(frozen=True)
class Field:
    """One column as it appears in a bundle file."""

    name: str
    kind: str  # int | float | bool | str | datetime | json
    nullable: bool
    default: Any  # used when an older bundle lacks the field; _REQUIRED when it must be present


_REQUIRED = object()


class ColumnCodec:
    """Encode/decode one table's rows for a bundle file, column by column.

    `skip` lists columns that never travel (lease bookkeeping); `json_types`
    narrows a JSON column to a Python type (dict or list) checked on decode.
    """

    def __init__(
        self, table: TableShape, file: str, *, skip: Iterable[str] = (), json_types: dict[str, type] | None = None
    ):
        self.file = file
        self.table_name = table.name
        self.json_types = json_types or {}
        skipped = set(skip)
        fields = []
        for column in table.columns:
            if column.name in skipped:
                continue
            default = column.default if column.has_default else _REQUIRED
            if default is _REQUIRED and column.nullable:
                default = None
            fields.append(Field(column.name, column.kind, column.nullable, default))
        self.fields = tuple(fields)
        self.names = frozenset(f.name for f in fields)

    def encode(self, row: Any) -> JsonObject:
        """A store row (mapping or object) as a JSON-ready dict, every field present."""
        get = row.get if isinstance(row, dict) else (lambda name: getattr(row, name))
        out: JsonObject = {}
        for f in self.fields:
            value = get(f.name)
            if f.kind == "datetime":
                value = encode_datetime(value)
            elif f.kind == "float":
                value = encode_float(value)
            out[f.name] = value
        return out

    def decode(
        self, obj: JsonObject, line: int, issues: IssueCollector, *, extra: Iterable[str] = ()
    ) -> Row:
        """Validated column values of one line; problems go to `issues` (the result is then incomplete)."""
        allowed = self.names | set(extra)
        for name in sorted(set(obj) - allowed):
            issues.add(self.file, line, name, f"unknown field; {self.file} lines have: {', '.join(sorted(allowed))}")
        values: Row = {}
        for f in self.fields:
            if f.name not in obj:
                if f.default is _REQUIRED:
                    issues.add(self.file, line, f.name, "missing")
                else:
                    values[f.name] = f.default
                continue
            try:
                values[f.name] = self._decode_value(f, obj[f.name])
            except ValueError as exc:
                issues.add(self.file, line, f.name, str(exc))
        return values

    def _decode_value(self, f: Field, value: Any) -> Any:
        if value is None:
            if not f.nullable:
                raise ValueError("must not be null")
            return None
        if f.kind == "int":
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(f"expected an integer, got {value!r}")
            return value
        if f.kind == "float":
            return decode_float(value)
        if f.kind == "bool":
            if not isinstance(value, bool):
                raise ValueError(f"expected true or false, got {value!r}")
            return value
        if f.kind == "str":
            if not isinstance(value, str):
                raise ValueError(f"expected a string, got {type(value).__name__}")
            return value
        if f.kind == "datetime":
            return decode_datetime(value)
        wanted = self.json_types.get(f.name)
        if wanted is not None and not isinstance(value, wanted):
            raise ValueError(f"expected a JSON {'object' if wanted is dict else 'array'}, got {type(value).__name__}")
        return value
