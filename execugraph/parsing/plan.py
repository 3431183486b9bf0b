"""The planner's (and explainer's) prose: chatter, intros, sign-offs and code dropped, length capped."""

from __future__ import annotations

import re

from execugraph.parsing.model_text import clean_model_text, find_fenced_blocks
from execugraph.parsing.python_source import compile_tree
from execugraph.parsing.result import Parsed, add_repair

MAX_PLAN_CHARS = 1500

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
