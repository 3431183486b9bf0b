"""How a stdio test's output meets its expected text: our default, or LiveCodeBench's rule (`"compare": "lcb"`).

Why a second rule: LiveCodeBench (lcb_runner's testing_util) strips the whole output,
splits it on newlines, strips every line (leading whitespace too), needs as many lines
as expected, and accepts a line that differs in text when both lines read as the same
list of decimal numbers (`1.0` equals `1`, `2.50` equals `2.5`, exactly: no tolerance).
A suite asks for it per test, so every other stdio verdict stays as it was.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

STDIO_COMPARE_MODES = ("lines", "lcb")  # lines: the default (trailing whitespace and blank lines ignored)


def normalise_stdout(text: str) -> str:
    """APPS-style comparison form: no trailing whitespace on lines, no trailing blank lines, \\n line ends."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return "\n".join(line.rstrip() for line in lines).rstrip("\n")


def _stripped_lines(text: str) -> list[str]:
    return [line.strip() for line in text.strip().split("\n")]


def _decimals(line: str) -> list[Decimal] | None:
    try:
        return [Decimal(token) for token in line.split()]
    except (InvalidOperation, ValueError):
        return None


def lcb_equal(got: str, expected: str) -> bool:
    """LiveCodeBench's stdout rule: stripped lines equal in number, each equal as text or as decimal numbers."""
    mine, theirs = _stripped_lines(got), _stripped_lines(expected)
    if len(mine) != len(theirs):
        return False
    for a, b in zip(mine, theirs, strict=True):
        if a == b:
            continue
        left, right = _decimals(a), _decimals(b)
        try:
            if left is None or right is None or left != right:
                return False
        except InvalidOperation:  # a signalling NaN refuses to compare: LiveCodeBench fails the sample then too
            return False
    return True


def stdout_matches(got: str, expected: str, mode: str = "lines") -> bool:
    """Whether a stdio test's output `got` meets `expected` under `mode` (STDIO_COMPARE_MODES)."""
    if mode == "lcb":
        return lcb_equal(got, expected)
    if mode == "lines":
        return normalise_stdout(got) == normalise_stdout(expected)
    raise ValueError(f"unknown stdio compare mode {mode!r}")
