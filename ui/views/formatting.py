"""How numbers and names read on screen: durations, counts, model specs, bounded model text, mapped tracebacks.

A missing number reads as `MISSING` (an em dash) through `number`, the same helper the tables, reports and CLI use.
"""

from __future__ import annotations

import importlib
import math
import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from execugraph.stats.table_format import MISSING, interval, number

__all__ = [  # MISSING, interval and number are re-exported: pages format every possibly missing number with them
    "MISSING",
    "bounded_explanation",
    "counted",
    "duration",
    "interval",
    "map_traceback",
    "model_label",
    "number",
    "without_repeats",
]

MAX_EXPLANATION_CHARS = 1500
_TABLE_FORMAT = ("MISSING", "interval", "number")  # from execugraph.stats.table_format, which loads SciPy with `tables`


def __getattr__(name: str) -> Any:
    """MISSING, interval and number, imported on first use (PEP 562): the first page, which formats only durations
    and counts, does not wait for SciPy."""
    if name not in _TABLE_FORMAT:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module("execugraph.stats.table_format"), name)
    globals()[name] = value
    return value


def duration(seconds: float | None) -> str:
    """Seconds as '0.1 ms', '850 ms', '12.3 s' or '4 min 05 s' (MISSING for None or NaN); never scientific notation."""
    if seconds is None or not math.isfinite(seconds):
        return __getattr__("MISSING")  # the shared em dash, imported with the first missing duration
    if seconds < 0.001:
        return f"{seconds * 1000:.2f} ms" if seconds >= 0.00001 else "<0.01 ms"
    if seconds < 1:
        return f"{seconds * 1000:.0f} ms"
    if seconds < 120:
        return f"{seconds:.1f} s"
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes} min {rest:02d} s"


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """'1 seed', '2 seeds', '1,200 trials': a count with its noun in the right number."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"


def model_label(provider: str | None, model: str | None) -> str:
    """`llamacpp:default` whether the call recorded the bare name or the whole spec (never `llamacpp:llamacpp:...`)."""
    provider, model = (provider or "").strip(), (model or "").strip()
    if not provider or model.startswith(f"{provider}:"):
        return model or provider or "?"
    return f"{provider}:{model}" if model else provider


def without_repeats(text: str) -> tuple[str, int]:
    """Drop a paragraph or sentence the model already wrote (small models loop); returns (text, repeats dropped)."""
    kept: list[str] = []
    seen: set[str] = set()
    dropped = 0
    for paragraph in re.split(r"\n\s*\n", text or ""):
        sentences = re.split(r"(?<=[.!?])\s+", paragraph.strip())
        out = []
        for sentence in sentences:
            key = " ".join(sentence.lower().split())
            if key and key in seen:
                dropped += 1
                continue
            seen.add(key)
            out.append(sentence)
        if out:
            kept.append(" ".join(out))
    return "\n\n".join(kept), dropped


def bounded_explanation(text: str, limit: int = MAX_EXPLANATION_CHARS) -> tuple[str, str]:
    """The explanation to show (repeats dropped, at most `limit` characters) and a note of what was cut ('' if nothing)."""
    cleaned, dropped = without_repeats(text)
    notes = []
    if dropped:
        notes.append(f"{dropped} repeated sentence(s) dropped")
    if len(cleaned) > limit:
        cut = cleaned[:limit].rsplit(" ", 1)[0]
        notes.append(f"shortened from {len(cleaned):,} characters")
        cleaned = cut + " ..."
    return cleaned, "; ".join(notes)


_FRAME = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+)')
PROGRAM_FILE = "<candidate>"  # the name our sandbox compiles the program under
TEST_FILES = ("<test>", "<check>", "<check call>")  # the test expression and an assert suite's checker


def map_traceback(stderr: str, program: str) -> str:
    """A traceback whose line numbers refer to `program` as shown (numbered from 1).

    Frames of the program itself (our sandbox names it `<candidate>`) are kept. A frame of any other file
    whose source line occurs exactly once in the program (a harness that wrapped the program, as published
    logs do) is renumbered to that line and marked; other frames are marked as not part of the program.
    """
    if not stderr or not program:
        return stderr or ""
    program_lines = [line.strip() for line in program.splitlines()]
    lines = stderr.splitlines()
    out = []
    for index, line in enumerate(lines):
        match = _FRAME.search(line)
        if match is None or match["file"] == PROGRAM_FILE:
            out.append(line)
            continue
        if match["file"] in TEST_FILES:
            out.append(line + "  [test code, not the program]")
            continue
        source = lines[index + 1].strip() if index + 1 < len(lines) else ""
        hits = [i + 1 for i, text in enumerate(program_lines) if source and text == source]
        if len(hits) == 1:
            number = hits[0]
            mapped = line[: match.start()] + f'File "<program>", line {number}' + line[match.end() :]
            out.append(mapped + f"  [was {match['file']}, line {match['line']}]")
        else:
            out.append(line + "  [not in the program shown]")
    return "\n".join(out)
