"""Lenient parsers for everything the agents read back from a model; pure functions, no LLM, no I/O.

Small local models rarely follow an output format exactly: they fence, chat, cut off mid-JSON and
invent their own keys. Every parser here returns `Parsed(value, repairs, ok)`: a usable value
whenever one can be recovered, and the list of repairs that were needed to get it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from execugraph.parsing.code_extract import compile_tree, extract_program
from execugraph.parsing.generated_tests import parse_generated_tests
from execugraph.parsing.lenient_json import iter_json_candidates
from execugraph.parsing.model_text import add_repair, clean_model_text, find_fenced_blocks
from execugraph.parsing.result import Parsed

__all__ = [
    "Parsed",
    "extract_code",
    "normalise_severity",
    "parse_generated_tests",
    "parse_json_object",
    "parse_plan",
    "parse_review",
]

MAX_PLAN_CHARS = 1500
MAX_REVIEW_ITEMS = 12
MAX_REVIEW_ITEM_CHARS = 300

REVIEW_KEYS: dict[str, type] = {"invariants": list, "potential_failures": list, "severity": str}
REVIEW_KEY_ALIASES: dict[str, tuple[str, ...]] = {
    "invariants": ("invariant", "assumptions", "properties", "preconditions"),
    "potential_failures": (
        "failures",
        "potential_failure",
        "potential_issues",
        "issues",
        "risks",
        "bugs",
        "potential_bugs",
        "problems",
        "edge_cases",
        "failure_modes",
        "concerns",
    ),
    "severity": ("risk", "risk_level", "level", "severity_level", "overall_severity", "rating"),
}
_SEVERITY_WORDS = {
    "high": ("high", "critical", "severe", "blocker", "blocking", "major", "serious", "fatal", "error", "hi"),
    "medium": ("medium", "moderate", "med", "mid", "warning", "normal", "average", "intermediate", "moderately"),
    "low": ("low", "minor", "none", "trivial", "info", "ok", "okay", "negligible", "lo", "no", "safe", "minimal"),
}


def extract_code(text: str | None, entry_point: str | None = None, aliases: Iterable[str] = ()) -> Parsed[str]:
    """The program in a model reply (fences, tags or bare code); ok=False when nothing compiles."""
    result = extract_program(text, entry_point, aliases)
    return Parsed(value=result.code, repairs=result.repairs, ok=result.ok)


# -- JSON objects -----------------------------------------------------------------------------------------
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
            items = [_strip_bullet(line) for line in value.split("\n")]
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
    found: dict[str, Any],
    required: Mapping[str, type],
    aliases: Mapping[str, Iterable[str]],
    repairs: list[str],
) -> tuple[dict[str, Any], int]:
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


def _object_candidates(text: str) -> list[tuple[dict[str, Any], list[str]]]:
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
) -> Parsed[dict[str, Any]]:
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

    def score(item: tuple[int, tuple[dict[str, Any], list[str]]]) -> tuple[int, bool, int, int]:
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


# -- review ----------------------------------------------------------------------------------------------
def _severity_from_number(number: float, scale: float | None) -> str:
    if scale is None:
        if 0 <= number <= 1 and not float(number).is_integer():
            scale = 1.0
        elif number <= 5:
            scale = 5.0
        else:
            scale = 10.0
    ratio = number / scale if scale else 0.0
    if ratio >= 0.7:
        return "high"
    if ratio >= 0.4:
        return "medium"
    return "low"


def normalise_severity(raw: Any) -> tuple[str, bool]:
    """("low" | "medium" | "high", recognised): words, synonyms ("critical"), numbers ("7/10", 0.9, 4)."""
    if isinstance(raw, bool) or raw is None:
        return "low", False
    if isinstance(raw, int | float):
        return _severity_from_number(float(raw), None), True
    text = str(raw).strip().lower()
    ratio = re.search(r"(\d+(?:\.\d+)?)\s*(?:/|out of)\s*(\d+(?:\.\d+)?)", text)
    if ratio and float(ratio.group(2)) > 0:
        return _severity_from_number(float(ratio.group(1)), float(ratio.group(2))), True
    words = re.findall(r"[a-z]+|\d+(?:\.\d+)?", text)
    for word in words:
        for level, synonyms in _SEVERITY_WORDS.items():
            if word in synonyms:
                return level, True
        if word[0].isdigit():
            return _severity_from_number(float(word), None), True
    return "low", False


_BULLET = re.compile(r"^\s*(?:[-*•+]|\d+[.)]|\(\w\))\s+")


def _strip_bullet(line: str) -> str:
    """A list item's text without its marker and without bold/italic wrapping the whole item."""
    text = _BULLET.sub("", line).strip()
    for wrap in ("**", "__", "*", "_"):
        if len(text) > 2 * len(wrap) and text.startswith(wrap) and text.endswith(wrap):
            text = text[len(wrap) : -len(wrap)].strip()
    return text


def _as_text_items(value: list[Any], repairs: list[str]) -> list[str]:
    items = []
    for item in value:
        if isinstance(item, dict):
            item = " - ".join(str(v) for v in item.values() if v not in (None, ""))
            add_repair(repairs, "flattened_items")
        elif isinstance(item, list):
            item = " ".join(str(v) for v in item)
            add_repair(repairs, "flattened_items")
        text = str(item).strip()
        if text:
            items.append(text[:MAX_REVIEW_ITEM_CHARS])
    if len(items) > MAX_REVIEW_ITEMS:
        add_repair(repairs, "capped_items")
    return items[:MAX_REVIEW_ITEMS]


_SEVERITY_LINE = re.compile(
    r"severity(?:\s+level)?\W{0,4}?[:=\-–]?\s*\**\s*(\d+(?:\.\d+)?\s*(?:/|out of)\s*\d+|\d+(?:\.\d+)?|[a-z]+)",
    re.IGNORECASE,
)
_LABEL = re.compile(r"^#*\s*(?P<label>[A-Za-z][A-Za-z ]{2,40}?)\s*(?::\s*(?P<rest>.*))?$")
_FAILURE_WORDS = re.compile(r"fail|issue|risk|bug|edge case|problem|concern", re.IGNORECASE)


def _section_of(line: str) -> tuple[str | None, str] | None:
    """(section, inline text) when the line is a label such as "**Potential failures:** x" or "### Invariants"."""
    plain = _BULLET.sub("", line).replace("**", "").replace("__", "").strip()
    match = _LABEL.match(plain)
    if match is None:
        return None
    label = match.group("label").lower()
    if not (plain.startswith("#") or match.group("rest") is not None or line.strip().startswith("**")):
        return None
    if "severity" in label:
        return None, ""
    if "invariant" in label:
        return "invariants", (match.group("rest") or "").strip()
    if _FAILURE_WORDS.search(label):
        return "potential_failures", (match.group("rest") or "").strip()
    return None, ""


def _prose_review(text: str) -> tuple[dict[str, Any], bool]:
    """Items under labels naming invariants or failures (bullets, or inline after the label), and a severity."""
    sections: dict[str, list[str]] = {"invariants": [], "potential_failures": []}
    current: str | None = None
    for line in text.split("\n"):
        if not line.strip():
            continue
        section = _section_of(line)
        if section is not None:
            current, inline = section
            if current and inline:
                sections[current].append(_strip_bullet(inline))
            continue
        if current and (_BULLET.match(line) or not sections[current]):
            sections[current].append(_strip_bullet(line))
        else:
            current = None
    severity_match = _SEVERITY_LINE.search(text)
    found = bool(sections["invariants"] or sections["potential_failures"] or severity_match)
    review: dict[str, Any] = {k: [item for item in v if item] for k, v in sections.items()}
    if severity_match:
        review["severity"] = severity_match.group(1)
    return review, found


def parse_review(text: str | None) -> Parsed[dict[str, Any]]:
    """The reviewer's {"invariants", "potential_failures", "severity"} from JSON or, failing that, prose.

    Severity is always one of low/medium/high: synonyms and numbers are mapped ("normalised_severity"),
    and a missing or unreadable one becomes "low" with a repair tag.
    """
    parsed = parse_json_object(text, REVIEW_KEYS, REVIEW_KEY_ALIASES)
    repairs = [tag for tag in parsed.repairs if tag != "no_json_found"]
    raw: dict[str, Any]
    if parsed.ok:
        raw = parsed.value
        severity_missing = "missing_key:severity" in repairs
    else:
        cleaned = clean_model_text(text)
        raw, found = _prose_review(cleaned.answer or cleaned.thinking)
        repairs = [tag for tag in repairs if not tag.startswith("missing_key:")]
        add_repair(repairs, "parsed_prose_review" if found else "no_review_found")
        for key in REVIEW_KEYS:
            if key not in raw or (key != "severity" and not raw[key]):
                add_repair(repairs, f"missing_key:{key}")
        severity_missing = "severity" not in raw
        if not found:
            review = {"invariants": [], "potential_failures": [], "severity": "low"}
            return Parsed(value=review, repairs=repairs, ok=False)
    review = {
        "invariants": _as_text_items(raw.get("invariants") or [], repairs),
        "potential_failures": _as_text_items(raw.get("potential_failures") or [], repairs),
    }
    raw_severity = raw.get("severity")
    if severity_missing or raw_severity in (None, ""):
        add_repair(repairs, "missing_key:severity")
        review["severity"] = "low"
    else:
        level, recognised = normalise_severity(raw_severity)
        if not recognised:
            add_repair(repairs, "unknown_severity")
        elif str(raw_severity) != level:
            add_repair(repairs, "normalised_severity")
        review["severity"] = level
    return Parsed(value=review, repairs=repairs, ok=True)


# -- plan ------------------------------------------------------------------------------------------------
_CHATTER_OPENERS = re.compile(
    r"^(?:sure|certainly|of course|okay|ok|alright|absolutely|great|gladly|happy to help|no problem)\b", re.IGNORECASE
)
_INTRO_LINE = re.compile(r"^(?:here(?:'s| is| are)|below is|the following|i(?:'ll| will)|let(?:'s| me))\b.*:\s*$", re.I)
_CLOSING_CHATTER = re.compile(
    r"(?:let me know|hope (?:this|that|it) helps|feel free|happy coding|good luck|if you have any|any questions)",
    re.IGNORECASE,
)


def _unwrap_plan_fences(text: str, repairs: list[str]) -> str:
    """Keep prose fenced as text/markdown; drop fenced code (a plan is steps, not a solution)."""
    blocks = find_fenced_blocks(text)
    if not blocks:
        return text
    lines = text.split("\n")
    out: list[str] = []
    cursor = 0
    for block in blocks:
        out.extend(lines[cursor : block.start_line])
        body_lines = block.body.split("\n")
        end = block.start_line + len(body_lines) + (2 if block.closed else 1)
        prose_tag = block.lang in ("", "text", "txt", "markdown", "md", "plaintext", "plan")
        looks_like_code = "def " in block.body and compile_tree(block.body) is not None
        is_code = not prose_tag or looks_like_code
        if is_code:
            add_repair(repairs, "dropped_code_from_plan")
        else:
            add_repair(repairs, "stripped_fence")
            out.extend(body_lines)
        cursor = end
    out.extend(lines[cursor:])
    return "\n".join(out)


def parse_plan(text: str | None, max_chars: int = MAX_PLAN_CHARS) -> Parsed[str]:
    """The plan without chatter or code, capped at `max_chars` on a line boundary."""
    cleaned = clean_model_text(text)
    repairs = list(cleaned.repairs)
    body = cleaned.answer
    if not body.strip() and cleaned.thinking.strip():
        body = cleaned.thinking
        add_repair(repairs, "used_thinking")
    body = _unwrap_plan_fences(body, repairs)
    lines = [line.rstrip() for line in body.split("\n")]
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and (_CHATTER_OPENERS.match(lines[0].strip()) or _INTRO_LINE.match(lines[0].strip())):
        first = lines.pop(0).strip()
        rest = re.split(r"(?<=[!.:])\s+", first, maxsplit=1)
        if _CHATTER_OPENERS.match(first) and len(rest) == 2 and not _INTRO_LINE.match(rest[1]):
            lines.insert(0, rest[1])  # "Sure! First, sort the list." keeps its content
        add_repair(repairs, "dropped_preamble")
        while lines and not lines[0].strip():
            lines.pop(0)
    while lines and (not lines[-1].strip() or _CLOSING_CHATTER.search(lines[-1])):
        if lines.pop().strip():
            add_repair(repairs, "dropped_epilogue")
    plan = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
    if len(plan) > max_chars:
        cut = plan.rfind("\n", 0, max_chars)
        plan = plan[: cut if cut > max_chars // 2 else max_chars].rstrip()
        add_repair(repairs, "truncated_plan")
    if not plan:
        add_repair(repairs, "empty_plan")
        return Parsed(value="", repairs=repairs, ok=False)
    return Parsed(value=plan, repairs=repairs, ok=True)
