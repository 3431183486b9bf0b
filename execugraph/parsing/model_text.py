"""Clean-up shared by every parser of raw model output: chat-template tokens, think blocks, fences, bullets.

Small local models leak end-of-turn tokens, wrap answers in reasoning blocks and fence (or half-fence)
everything; the code, JSON and plan parsers all start from the same cleaned text and the same list of
fenced blocks, so a repair is recognised once and named the same way everywhere.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from execugraph.parsing.result import add_repair

# Tokens after which nothing the model wrote is part of its answer (it starts hallucinating a new turn).
_END_TOKENS = re.compile(
    r"<\|im_end\|>|<\|endoftext\|>|<\|eot_id\|>|<\|end\|>|<\|im_start\|>|<\|start_header_id\|>"
    r"|</s>|<end_of_turn>|<start_of_turn>|<\|user\|>|\[INST\]"
)
# Template tokens that carry no content anywhere in an answer.
_NOISE_TOKENS = re.compile(
    r"<\|(?:assistant|fim_prefix|fim_middle|fim_suffix|file_sep|repo_name|begin_of_text)\|>|<s>|\[/INST\]|<bos>"
)
_THINK_OPEN = re.compile(r"<(think|thinking|reasoning)>", re.IGNORECASE)
_THINK_CLOSE = re.compile(r"</(think|thinking|reasoning)>", re.IGNORECASE)

_OPEN_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^`\n]*?)[ \t]*$")
_INLINE_OPEN_FENCE = re.compile(r"^(?P<pre>[^`~]*?\S)[ \t]*(?P<fence>`{3,}|~{3,})(?P<info>[\w+#.-]*)[ \t]*$")

LIST_MARKER = re.compile(r"^\s*(?:[-*•+]|\d+[.)]|\(\w\))\s+")
PYTHON_LANGS = frozenset({"", "python", "python3", "py", "py3", "ipython", "pycon", "python-repl", "sage"})


@dataclass
class CleanText:
    """Model output with template tokens removed and reasoning separated from the answer."""

    answer: str
    thinking: str = ""
    repairs: list[str] = field(default_factory=list)


@dataclass
class FencedBlock:
    """One markdown code block: its language tag (lower case, first word), body and whether it was closed."""

    lang: str
    body: str
    closed: bool
    start_line: int
    inline_fence: bool = False


def clean_model_text(text: str | None) -> CleanText:
    """Normalise newlines, cut at end-of-turn tokens, drop template noise and split off <think> blocks."""
    repairs: list[str] = []
    raw = "" if text is None else str(text)
    cleaned = raw.replace("\r\n", "\n").replace("\r", "\n").lstrip("\ufeff")
    if "\u00a0" in cleaned or "\u200b" in cleaned:
        cleaned = cleaned.replace("\u00a0", " ").replace("\u200b", "")
        add_repair(repairs, "normalised_unicode_spaces")

    end = _END_TOKENS.search(cleaned)
    while end is not None and not cleaned[: end.start()].strip():
        # An end token before any content (e.g. a leading <|im_start|>assistant) is just noise.
        cleaned = cleaned[end.end() :]
        if cleaned.startswith("assistant"):
            cleaned = cleaned[len("assistant") :]
        add_repair(repairs, "stripped_special_tokens")
        end = _END_TOKENS.search(cleaned)
    if end is not None:
        cleaned = cleaned[: end.start()]
        add_repair(repairs, "cut_at_end_token")
    if _NOISE_TOKENS.search(cleaned):
        cleaned = _NOISE_TOKENS.sub("", cleaned)
        add_repair(repairs, "stripped_special_tokens")

    answer, thinking = _split_thinking(cleaned, repairs)
    return CleanText(answer=answer, thinking=thinking, repairs=repairs)


def _split_thinking(text: str, repairs: list[str]) -> tuple[str, str]:
    """Answer text and reasoning text; an unclosed <think> means the whole rest is reasoning (truncated)."""
    closes = list(_THINK_CLOSE.finditer(text))
    if closes:
        last = closes[-1]
        before, after = text[: last.start()], text[last.end() :]
        add_repair(repairs, "stripped_think")
        return after, _THINK_OPEN.sub("", _THINK_CLOSE.sub("", before))
    opening = _THINK_OPEN.search(text)
    if opening:
        add_repair(repairs, "stripped_think")
        add_repair(repairs, "unclosed_think")
        return text[: opening.start()], text[opening.end() :]
    return text, ""


def _lang_of(info: str) -> str:
    """First word of a fence info string, lower-cased, without braces or dots ("{.python}" -> "python")."""
    word = info.strip().split(maxsplit=1)[0] if info.strip() else ""
    return word.strip("{}.").lower()


def find_fenced_blocks(text: str) -> list[FencedBlock]:
    """Every markdown fenced block, including an unterminated last one and fences glued to prose or code.

    A closing fence must use the opening character at least as many times (CommonMark); a line that ends
    in such a fence after code ("    return x```") closes the block too, since models do emit that.
    """
    blocks: list[FencedBlock] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if "```" not in line and "~~~" not in line:
            i += 1
            continue
        opening = _OPEN_FENCE.match(line)
        inline = False
        if opening is None:
            opening = _INLINE_OPEN_FENCE.match(line)
            inline = opening is not None
        if opening is None:
            i += 1
            continue
        fence = opening.group("fence")
        char, size = fence[0], len(fence)
        body: list[str] = []
        closed = False
        j = i + 1
        while j < len(lines):
            current = lines[j]
            stripped = current.strip()
            if stripped and set(stripped) == {char} and len(stripped) >= size:
                closed = True
                break
            trailing = current.rstrip()
            if trailing.endswith(char * size) and trailing.rstrip(char).strip():
                body.append(trailing.rstrip(char).rstrip())
                inline = True
                closed = True
                break
            body.append(current)
            j += 1
        blocks.append(
            FencedBlock(
                lang=_lang_of(opening.group("info")),
                body="\n".join(body),
                closed=closed,
                start_line=i,
                inline_fence=inline,
            )
        )
        i = j + 1
    return blocks


def text_without_fence_lines(text: str) -> str:
    """The text with every fence marker line removed, for a fallback scan when fenced blocks were unusable."""
    kept = [line for line in text.split("\n") if not (("```" in line or "~~~" in line) and _OPEN_FENCE.match(line))]
    return "\n".join(kept)


def strip_bullet(line: str) -> str:
    """A list item's text without its marker and without bold/italic wrapping the whole item."""
    text = LIST_MARKER.sub("", line).strip()
    for wrap in ("**", "__", "*", "_"):
        if len(text) > 2 * len(wrap) and text.startswith(wrap) and text.endswith(wrap):
            text = text[len(wrap) : -len(wrap)].strip()
    return text
