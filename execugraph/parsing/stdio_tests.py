"""Turn tests a model wrote for a stdin/stdout program into sandbox `stdio` tests; drop and count malformed ones.

Accepted shapes: a JSON list (possibly wrapped as {"tests": [...]}) of objects with the input text
("input"/"stdin") and the expected output text ("output"/"expected_output"/"expected_stdout"/
"expected"/"stdout"), or [input, output] pairs. Texts are data only: strings, numbers, or lists of
them (one item per line); anything else is dropped and counted.
"""

from __future__ import annotations

import re
from typing import Any

from execugraph.parsing.lenient_json import iter_json_candidates
from execugraph.parsing.model_text import clean_model_text
from execugraph.parsing.result import Parsed, add_repair
from execugraph.parsing.suite_tests import StdioTest

MAX_TESTS = 20
MAX_TEXT_CHARS = 10_000
_INPUT_KEYS = ("input", "stdin", "inputs")
_OUTPUT_KEYS = ("output", "expected_output", "expected_stdout", "expected", "stdout", "outputs", "answer")
_LIST_KEYS = ("tests", "test_cases", "testcases", "cases", "examples")


def _norm(key: Any) -> str:
    return re.sub(r"[^a-z0-9]+", "_", str(key).lower()).strip("_")


def _text(value: Any) -> str | None:
    """The value as program text (a list becomes one item per line); None when it is not plain data."""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, str):
        return value
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, list) and all(isinstance(v, str | int | float) and not isinstance(v, bool) for v in value):
        return "\n".join(str(v) for v in value)
    return None


def _items(value: Any) -> list[Any] | None:
    if isinstance(value, list):
        return value
    if isinstance(value, dict):
        for key, item in value.items():
            if _norm(key) in _LIST_KEYS and isinstance(item, list):
                return item
        if {_norm(k) for k in value} & set(_INPUT_KEYS):
            return [value]
    return None


def _pair(item: Any) -> tuple[Any, Any, Any] | None:
    """(input, output, name) from one test item, or None when it has no recognisable input and output."""
    if isinstance(item, list) and len(item) == 2:
        return item[0], item[1], None
    if not isinstance(item, dict):
        return None
    keys = {_norm(k): k for k in item}
    source = next((keys[k] for k in _INPUT_KEYS if k in keys), None)
    target = next((keys[k] for k in _OUTPUT_KEYS if k in keys), None)
    if source is None or target is None:
        return None
    name = next((item[keys[k]] for k in ("name", "description") if k in keys), None)
    return item[source], item[target], name


def _build(items: list[Any]) -> tuple[list[StdioTest], list[str], int]:
    tests: list[StdioTest] = []
    seen: dict[str, str] = {}
    repairs: list[str] = []
    dropped = 0
    for item in items:
        pair = _pair(item)
        stdin = expected = None
        if pair is not None:
            stdin, expected = _text(pair[0]), _text(pair[1])
        reason = ("unrecognised_item" if pair is None else "non_text_value" if stdin is None or expected is None
                  else "too_long" if len(stdin) > MAX_TEXT_CHARS or len(expected) > MAX_TEXT_CHARS
                  else "no_expected" if not expected.strip() else "")
        if reason:
            dropped += 1
            add_repair(repairs, f"dropped:{reason}")
            continue
        assert stdin is not None and expected is not None and pair is not None
        if stdin and not stdin.endswith("\n"):
            stdin += "\n"  # input() and line readers expect the last line to end
        if stdin in seen:
            if seen[stdin].rstrip() != expected.rstrip():
                dropped += 1
                add_repair(repairs, "dropped:conflicting_duplicate")
            else:
                add_repair(repairs, "dropped_duplicates")
            continue
        if len(tests) >= MAX_TESTS:
            add_repair(repairs, "capped_tests")
            break
        seen[stdin] = expected
        name = pair[2]
        label = str(name).strip()[:80] if isinstance(name, str | int) and str(name).strip() else ""
        label = label if label and all(t["name"] != label for t in tests) else f"generated_{len(tests) + 1}"
        tests.append(StdioTest(kind="stdio", name=label, stdin=stdin, expected_stdout=expected))
    return tests, repairs, dropped


def parse_generated_stdio_tests(text: str | None) -> Parsed[list[StdioTest]]:
    """Sandbox stdio tests `{"kind": "stdio", "name", "stdin", "expected_stdout"}` from a model's reply.

    `Parsed.dropped` counts malformed tests (also named as `dropped:<reason>` repairs); ok is False
    when no usable test was found.
    """
    cleaned = clean_model_text(text)
    repairs = list(cleaned.repairs)
    first: tuple[list[StdioTest], list[str], int] | None = None
    for source in (cleaned.answer, cleaned.thinking):
        if not source.strip():
            continue
        for candidate in iter_json_candidates(source, openers="[{"):
            items = _items(candidate.value)
            if not items:
                continue
            built = _build(items)
            if built[0]:
                for tag in [*candidate.repairs, *built[1], *(["used_thinking"] if source is cleaned.thinking else [])]:
                    add_repair(repairs, tag)
                return Parsed(value=built[0], repairs=repairs, ok=True, dropped=built[2])
            first = first or built
    if first is None:
        add_repair(repairs, "no_tests_found")
        return Parsed(value=[], repairs=repairs, ok=False, dropped=0)
    for tag in first[1]:
        add_repair(repairs, tag)
    return Parsed(value=[], repairs=repairs, ok=False, dropped=first[2])
