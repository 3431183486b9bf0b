"""The reviewer's critique: invariants, potential failures and a low/medium/high severity.

Read from a JSON object when the model wrote one (keys fitted by `json_object`), else from prose
under labels such as "**Potential failures:**"; severity words, synonyms and numbers are mapped to
one of three levels.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from execugraph.parsing.json_object import parse_json_object
from execugraph.parsing.model_text import LIST_MARKER, clean_model_text, strip_bullet
from execugraph.parsing.result import Parsed, add_repair

if TYPE_CHECKING:
    from execugraph.domain.json_types import JsonObject
    from execugraph.domain.steps import Review, Severity

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
_SEVERITY_WORDS: dict[Severity, tuple[str, ...]] = {
    "high": ("high", "critical", "severe", "blocker", "blocking", "major", "serious", "fatal", "error", "hi"),
    "medium": ("medium", "moderate", "med", "mid", "warning", "normal", "average", "intermediate", "moderately"),
    "low": ("low", "minor", "none", "trivial", "info", "ok", "okay", "negligible", "lo", "no", "safe", "minimal"),
}


def _severity_from_number(number: float, scale: float | None) -> Severity:
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


def normalise_severity(raw: Any) -> tuple[Severity, bool]:
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
    plain = LIST_MARKER.sub("", line).replace("**", "").replace("__", "").strip()
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


def _prose_review(text: str) -> tuple[JsonObject, bool]:
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
                sections[current].append(strip_bullet(inline))
            continue
        if current and (LIST_MARKER.match(line) or not sections[current]):
            sections[current].append(strip_bullet(line))
        else:
            current = None
    severity_match = _SEVERITY_LINE.search(text)
    found = bool(sections["invariants"] or sections["potential_failures"] or severity_match)
    review: JsonObject = {k: [item for item in v if item] for k, v in sections.items()}
    if severity_match:
        review["severity"] = severity_match.group(1)
    return review, found


def parse_review(text: str | None) -> Parsed[Review]:
    """The reviewer's {"invariants", "potential_failures", "severity"} from JSON or, failing that, prose.

    Severity is always one of low/medium/high: synonyms and numbers are mapped ("normalised_severity"),
    and a missing or unreadable one becomes "low" with a repair tag.
    """
    parsed = parse_json_object(text, REVIEW_KEYS, REVIEW_KEY_ALIASES)
    repairs = [tag for tag in parsed.repairs if tag != "no_json_found"]
    raw: JsonObject  # the reply's review before its items and severity are checked
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
            empty: Review = {"invariants": [], "potential_failures": [], "severity": "low"}
            return Parsed(value=empty, repairs=repairs, ok=False)
    invariants = _as_text_items(raw.get("invariants") or [], repairs)
    failures = _as_text_items(raw.get("potential_failures") or [], repairs)
    raw_severity = raw.get("severity")
    level: Severity
    if severity_missing or raw_severity in (None, ""):
        add_repair(repairs, "missing_key:severity")
        level = "low"
    else:
        level, recognised = normalise_severity(raw_severity)
        if not recognised:
            add_repair(repairs, "unknown_severity")
        elif str(raw_severity) != level:
            add_repair(repairs, "normalised_severity")
    review: Review = {"invariants": invariants, "potential_failures": failures, "severity": level}
    return Parsed(value=review, repairs=repairs, ok=True)
