"""Lenient JSON: read the JSON-ish values small models write and name every liberty taken.

Strict `json.loads` is tried first. Otherwise a forgiving recursive-descent reader builds the value
directly (no text rewriting, no `eval`): single quotes, Python literals and tuples, comments,
trailing/missing commas, unquoted keys and words, unescaped inner quotes, and output cut off by
the token limit (open strings and brackets are closed). Each liberty becomes a repair tag.

Kept over the json-repair package (0.64.4), measured on the 35 cases of tests/parsing/test_parsing.py
that reach this reader: json-repair read 30 values right (it keeps `'it's'` broken, turns a cut-off
`fal` into the string "fal", invents "" for a key cut off before its value, and reads past a set in
prose), gave our repair tags for 20 (its log has no trailing comma, missing comma or single quotes),
and took about 2x as long per broken JSON body.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from execugraph.parsing.model_text import find_fenced_blocks
from execugraph.parsing.result import add_repair

if TYPE_CHECKING:
    from execugraph.domain.json_types import JsonObject

MAX_DEPTH = 64
MAX_START_POSITIONS = 24

_NUMBER = re.compile(r"[+-]?(?:\d[\d_]*(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
_SPACE = re.compile(r"[ \t\r\n]*")
_STRING_SPECIAL = {'"': re.compile(r'["\\\n]'), "'": re.compile(r"['\\\n]")}
_WORD = re.compile(r"-?[A-Za-z_][A-Za-z0-9_]*")
_WORD_LITERALS: dict[str, tuple[Any, str | None]] = {
    "true": (True, None),
    "false": (False, None),
    "null": (None, None),
    "True": (True, "python_literal"),
    "False": (False, "python_literal"),
    "None": (None, "python_literal"),
    "undefined": (None, "js_literal"),
    "NaN": (float("nan"), "non_finite_number"),
    "Infinity": (float("inf"), "non_finite_number"),
    "-Infinity": (float("-inf"), "non_finite_number"),
}
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "'": "'"}


class JSONRepairError(ValueError):
    """The text holds nothing that can be read as a JSON value, even leniently; says where it stopped."""


@dataclass
class JSONCandidate:
    """One value read from model output, with the repairs it needed and where it came from."""

    value: Any
    repairs: list[str]
    start: int


class _LenientReader:
    """Recursive-descent reader over one string; `pos` ends just after the first complete value."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.repairs: list[str] = []

    # -- low level -------------------------------------------------------------------------------
    def note(self, tag: str) -> None:
        add_repair(self.repairs, tag)

    def at_end(self) -> bool:
        return self.pos >= len(self.text)

    def skip_space(self) -> None:
        """Skip whitespace and //, /* */ and # comments."""
        text = self.text
        while self.pos < len(text):
            spaces = _SPACE.match(text, self.pos)
            self.pos = spaces.end() if spaces else self.pos
            if self.pos >= len(text):
                return
            char = text[self.pos]
            if text.startswith("//", self.pos) or char == "#":
                newline = text.find("\n", self.pos)
                self.pos = len(text) if newline < 0 else newline + 1
                self.note("removed_comments")
            elif text.startswith("/*", self.pos):
                close = text.find("*/", self.pos + 2)
                self.pos = len(text) if close < 0 else close + 2
                self.note("removed_comments")
            else:
                return

    def truncated(self) -> None:
        self.note("closed_truncated_json")

    # -- values ----------------------------------------------------------------------------------
    def read_value(self, closers: str, depth: int) -> Any:
        """One value; `closers` are the brackets that may end the enclosing containers (innermost first)."""
        if depth > MAX_DEPTH:
            raise JSONRepairError(f"nesting deeper than {MAX_DEPTH} levels at offset {self.pos}")
        self.skip_space()
        if self.at_end():
            raise JSONRepairError("text ended where a value was expected")
        char = self.text[self.pos]
        if char == "{":
            return self.read_object(closers, depth + 1)
        if char == "[":
            return self.read_array("]", closers, depth + 1)
        if char == "(":
            self.note("python_literal")
            return self.read_array(")", closers, depth + 1)
        if char in "\"'":
            return self.read_string(char, closers, key=False)
        if self.text.startswith("...", self.pos) or self.text.startswith("…", self.pos):
            raise JSONRepairError(f"ellipsis at offset {self.pos}")
        if char in "+-.0123456789" and not self.text.startswith("-Infinity", self.pos):
            return self.read_number()
        return self.read_word(closers)

    def read_object(self, closers: str, depth: int) -> JsonObject:
        self.pos += 1
        result: JsonObject = {}
        inner = "}" + closers
        after_comma = True
        while True:
            self.skip_space()
            if self.at_end():
                self.truncated()
                return result
            char = self.text[self.pos]
            if char == "}":
                if after_comma and result:
                    self.note("trailing_comma")
                self.pos += 1
                return result
            if char in "])":
                return self._close_mismatched(char, closers, result)
            if char == ",":
                if after_comma:
                    self.note("extra_comma")
                self.pos += 1
                after_comma = True
                continue
            if not after_comma:
                self.note("missing_comma")
            key = self.read_key(inner)
            self.skip_space()
            if self.at_end():
                self.truncated()
                return result
            if self.text[self.pos] in ":=":
                if self.text[self.pos] == "=":
                    self.note("equals_for_colon")
                self.pos += 1
            else:
                self.note("missing_colon")
            self.skip_space()
            if self.at_end():
                self.truncated()
                return result
            if self.text[self.pos] in ",}":
                self.note("missing_value")
                after_comma = False
                continue
            result[key] = self.read_value(inner, depth)
            after_comma = False
            self.skip_space()
            if self.at_end():
                self.truncated()
                return result
            if self.text[self.pos] == ",":
                self.pos += 1
                after_comma = True

    def read_array(self, closer: str, closers: str, depth: int) -> list[Any]:
        self.pos += 1
        result: list[Any] = []
        inner = closer + closers
        after_comma = True
        while True:
            self.skip_space()
            if self.at_end():
                self.truncated()
                return result
            char = self.text[self.pos]
            if char == closer:
                if after_comma and result and closer == "]":  # (1,) is a valid Python tuple
                    self.note("trailing_comma")
                self.pos += 1
                return result
            if char in "]})":
                return self._close_mismatched(char, closers, result)
            if char == ",":
                if after_comma:
                    self.note("extra_comma")
                self.pos += 1
                after_comma = True
                continue
            if self.text.startswith("...", self.pos) or self.text.startswith("…", self.pos):
                self.pos += 3 if self.text[self.pos] == "." else 1
                self.note("dropped_ellipsis")
                self.skip_space()
                after_comma = not self.at_end() and self.text[self.pos] == ","
                self.pos += after_comma
                continue
            if not after_comma:
                self.note("missing_comma")
            result.append(self.read_value(inner, depth))
            after_comma = False
            self.skip_space()
            if not self.at_end() and self.text[self.pos] == ",":
                self.pos += 1
                after_comma = True

    def _close_mismatched(self, char: str, closers: str, result: Any) -> Any:
        """A closing bracket of the wrong kind: leave it to an outer container it fits, else skip it."""
        self.note("mismatched_brackets")
        if char not in closers:
            self.pos += 1
        return result

    def read_key(self, closers: str) -> str:
        char = self.text[self.pos]
        if char in "\"'":
            return self.read_string(char, ":" + closers, key=True)
        if char in "{[(":
            raise JSONRepairError(f"container used as an object key at offset {self.pos}")
        end = self.pos
        stops = ":,\n" + closers
        while end < len(self.text) and self.text[end] not in stops:
            end += 1
        key = self.text[self.pos : end].strip()
        if not key:
            raise JSONRepairError(f"empty object key at offset {self.pos}")
        self.pos = end
        self.note("unquoted_keys")
        return key

    def read_string(self, quote: str, closers: str, key: bool) -> str:
        """A quoted string; an inner quote counts as closing only when structure follows it."""
        if quote == "'":
            self.note("single_quotes")
        text = self.text
        self.pos += 1
        parts: list[str] = []
        structural = ",:" + closers if key else "," + closers
        special = _STRING_SPECIAL[quote]
        while self.pos < len(text):
            stop = special.search(text, self.pos)
            if stop is None:
                parts.append(text[self.pos :])
                self.pos = len(text)
                break
            if stop.start() > self.pos:
                parts.append(text[self.pos : stop.start()])
                self.pos = stop.start()
            char = text[self.pos]
            if char == quote:
                if self._quote_closes(self.pos + 1, structural):
                    self.pos += 1
                    return "".join(parts)
                self.note("unescaped_quotes")
                parts.append(char)
                self.pos += 1
            elif char == "\\":
                parts.append(self._read_escape())
            else:
                if char == "\n":
                    self.note("raw_newline_in_string")
                parts.append(char)
                self.pos += 1
        self.truncated()
        return "".join(parts)

    def _quote_closes(self, after: int, structural: str) -> bool:
        """True when the rest of the line after a quote is empty or starts with structure (`,` `}` ...)."""
        text = self.text
        while after < len(text) and text[after] in " \t":
            after += 1
        return after >= len(text) or text[after] in "\n\r" or text[after] in structural or text[after] in "/#"

    def _read_escape(self) -> str:
        text = self.text
        if self.pos + 1 >= len(text):
            self.pos += 1
            self.truncated()
            return ""
        code = text[self.pos + 1]
        if code == "u":
            digits = text[self.pos + 2 : self.pos + 6]
            if len(digits) == 4 and all(c in "0123456789abcdefABCDEF" for c in digits):
                self.pos += 6
                value = int(digits, 16)
                if 0xD800 <= value < 0xDC00 and text.startswith("\\u", self.pos):
                    low = text[self.pos + 2 : self.pos + 6]
                    if len(low) == 4 and all(c in "0123456789abcdefABCDEF" for c in low):
                        low_value = int(low, 16)
                        if 0xDC00 <= low_value < 0xE000:
                            self.pos += 6
                            return chr(0x10000 + ((value - 0xD800) << 10) + (low_value - 0xDC00))
                return chr(value)
        self.pos += 2
        if code in _ESCAPES:
            if code == "'":
                self.note("invalid_escape")
            return _ESCAPES[code]
        self.note("invalid_escape")
        return "\\" + code

    def read_number(self) -> int | float:
        match = _NUMBER.match(self.text, self.pos)
        if match is None or not any(c.isdigit() for c in match.group()):
            raise JSONRepairError(f"malformed number at offset {self.pos}")
        raw = match.group()
        self.pos = match.end()
        cleaned = raw.replace("_", "")
        if cleaned.startswith("+") or "_" in raw or cleaned.startswith((".", "-.")) or cleaned.endswith("."):
            self.note("non_json_number")
        cleaned = cleaned.lstrip("+")
        if any(c in cleaned for c in ".eE"):
            return float(cleaned)
        return int(cleaned)

    def read_word(self, closers: str) -> Any:
        """A bare word: JSON/Python/JS literal, else an unquoted string running to the next structure."""
        text = self.text
        match = _WORD.match(text, self.pos)
        if match and match.group() in _WORD_LITERALS:
            end = match.end()
            rest = text[end:].lstrip(" \t")
            if not rest or rest[0] in ",\n\r/#" + closers:
                value, tag = _WORD_LITERALS[match.group()]
                if tag:
                    self.note(tag)
                self.pos = end
                return value
        if match and self.pos + len(match.group()) == len(text):
            for word, (value, tag) in _WORD_LITERALS.items():
                if word.startswith(match.group()) and len(match.group()) >= 2:
                    self.pos = len(text)
                    self.truncated()
                    if tag:
                        self.note(tag)
                    return value
        end = self.pos
        stops = ",\n" + closers
        while end < len(text) and text[end] not in stops:
            end += 1
        word = text[self.pos : end].strip()
        if not word:
            raise JSONRepairError(f"unexpected {text[self.pos]!r} at offset {self.pos}")
        self.pos = end
        self.note("unquoted_string")
        return word


def loads_lenient(text: str) -> tuple[Any, list[str]]:
    """The first JSON value in `text` (which should start at it) and the repairs it needed.

    Raises JSONRepairError when not even a lenient reading is possible.
    """
    stripped = text.strip()
    try:
        return json.loads(stripped), []
    except (ValueError, RecursionError):
        pass
    reader = _LenientReader(stripped)
    value = reader.read_value("", 0)
    reader.skip_space()
    if not reader.at_end():
        reader.note("dropped_epilogue")
    return value, reader.repairs


def _start_positions(text: str, openers: str) -> Iterator[int]:
    count = 0
    for index, char in enumerate(text):
        if char in openers:
            yield index
            count += 1
            if count >= MAX_START_POSITIONS:
                return


def iter_json_candidates(text: str, openers: str = "{[") -> Iterator[JSONCandidate]:
    """Every JSON-ish value in model output: fenced blocks first, then values starting at `openers` in prose.

    A value nested inside one already read from the prose is not read again; callers pick among the
    candidates (the first one of the right shape is usually the answer).
    """
    for block in find_fenced_blocks(text):
        body = block.body.strip()
        if not body or body[0] not in "{[(":
            continue
        try:
            value, repairs = loads_lenient(body)
        except (JSONRepairError, RecursionError):
            continue
        repairs = ["stripped_fence", *repairs]
        if not block.closed:
            add_repair(repairs, "closed_truncated_json")
        yield JSONCandidate(value=value, repairs=repairs, start=-1)
    covered_until = -1
    for start in _start_positions(text, openers):
        if start < covered_until:
            continue
        try:
            value, end = json.JSONDecoder().raw_decode(text, start)
            repairs: list[str] = []
        except (ValueError, RecursionError):
            reader = _LenientReader(text[start:])
            try:
                value = reader.read_value("", 0)
            except (JSONRepairError, RecursionError):
                continue
            repairs, end = list(reader.repairs), start + reader.pos
        covered_until = end
        if text[:start].strip():
            repairs.insert(0, "dropped_preamble")
        if text[end:].strip():
            add_repair(repairs, "dropped_epilogue")
        yield JSONCandidate(value=value, repairs=repairs, start=start)
