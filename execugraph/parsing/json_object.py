"""The JSON object in a model reply, fitted to the keys a caller needs (aliases, types, defaults).

Models rename keys ("issues" for "potential_failures"), change their case and types ("7" for 7),
and leave some out; each of those liberties is repaired and named (`renamed_key:<k>`,
`coerced:<k>`, `missing_key:<k>`) so traces show how much rescuing a reply needed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from execugraph.parsing.lenient_json import iter_json_candidates
from execugraph.parsing.model_text import clean_model_text, strip_bullet
from execugraph.parsing.result import Parsed, add_repair

if TYPE_CHECKING:
    from execugraph.domain.json_types import JsonObject


def _key_form(key: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", str(key).lower()).strip("_")


def _default_for(kind: type) -> Any:
    return kind() if kind in (list, dict, str, int, float, bool) else None


def _coerce(value: Any, kind: type) -> tuple[Any, bool]:
    """`value` as `kind` when a sensible conversion exists: (converted, ok)."""
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value), True
    if isinstance(value, kind) and not (kind is int and isinstance(value, bool)):
        return value, True
    if kind is list:
        if value is None:
            return [], True
        if isinstance(value, str):
            items = [strip_bullet(line) for line in value.split("\n")]
            return [item for item in items if item], True
        if isinstance(value, dict):
            return list(value.values()), True
        return [value], True
    if kind is str:
        if value is None:
            return "", True
        if isinstance(value, list):
            return "; ".join(str(item) for item in value), True
        return str(value), True
    if kind in (int, float) and isinstance(value, str):
        try:
            return kind(value.strip()), True
        except ValueError:
            return _default_for(kind), False
    if kind is bool and isinstance(value, str):
        return value.strip().lower() in ("true", "yes", "1", "y"), True
    return _default_for(kind), False


def _fit_required(
    found: JsonObject,
    required: Mapping[str, type],
    aliases: Mapping[str, Iterable[str]],
    repairs: list[str],
) -> tuple[JsonObject, int]:
    """Map found keys onto the required ones (case, spelling, aliases), coerce types, fill defaults."""
    result = dict(found)
    present = 0
    by_form = {_key_form(k): k for k in found}
    for key, kind in required.items():
        forms = [_key_form(key), *(_key_form(a) for a in aliases.get(key, ()))]
        source_key = next((by_form[f] for f in forms if f in by_form), None)
        if source_key is None:
            result[key] = _default_for(kind)
            add_repair(repairs, f"missing_key:{key}")
            continue
        present += 1
        value = result.pop(source_key)
        if source_key != key:
            add_repair(repairs, f"renamed_key:{key}")
        coerced, fine = _coerce(value, kind)
        if coerced is not value and coerced != value:
            add_repair(repairs, f"coerced:{key}" if fine else f"wrong_type:{key}")
        result[key] = coerced
    return result, present


def _object_candidates(text: str) -> list[tuple[JsonObject, list[str]]]:
    found = []
    for candidate in iter_json_candidates(text, openers="{["):
        value = candidate.value
        repairs = list(candidate.repairs)
        if isinstance(value, list):
            value = next((item for item in value if isinstance(item, dict)), None)
            add_repair(repairs, "unwrapped_list")
        if isinstance(value, dict):
            found.append((value, repairs))
    return found


def parse_json_object(
    text: str | None,
    required: Mapping[str, type] | None = None,
    aliases: Mapping[str, Iterable[str]] | None = None,
) -> Parsed[JsonObject]:
    """The JSON object in a reply; missing `required` keys get type defaults and a `missing_key:<k>` tag.

    `aliases` maps a required key to other spellings a model may use for it. ok is False when no
    object was found, or when none of the required keys was present.
    """
    required = dict(required or {})
    aliases = dict(aliases or {})
    cleaned = clean_model_text(text)
    repairs = list(cleaned.repairs)
    candidates = _object_candidates(cleaned.answer)
    if not candidates and cleaned.thinking:
        candidates = _object_candidates(cleaned.thinking)
        if candidates:
            add_repair(repairs, "used_thinking")

    def score(item: tuple[int, tuple[JsonObject, list[str]]]) -> tuple[int, bool, int, int]:
        order, (value, found_repairs) = item
        forms = {_key_form(k) for k in value}
        hits = sum(1 for key in required if {_key_form(key), *(_key_form(a) for a in aliases.get(key, ()))} & forms)
        return hits, bool(value), -len(found_repairs), -order

    if not candidates:
        add_repair(repairs, "no_json_found")
        value, _ = _fit_required({}, required, aliases, repairs)
        return Parsed(value=value, repairs=repairs, ok=False)
    _, (found, found_repairs) = max(enumerate(candidates), key=score)
    for tag in found_repairs:
        add_repair(repairs, tag)
    value, present = _fit_required(found, required, aliases, repairs)
    return Parsed(value=value, repairs=repairs, ok=not required or present > 0)
