"""Candidate code blocks in a model reply: fences, tags or bare code runs, each cleaned and compiled.

Candidates come from markdown fences (closed or cut off), `<code>`/`[PYTHON]` tags, or, failing
those, runs of code-looking lines between prose. Each is cleaned (stray backticks, REPL prompts,
indentation) and checked with `compile()` only; a block that does not compile is trimmed at its tail
or head until it does. Nothing is ever executed. `code_extract` chooses among the blocks.
"""

from __future__ import annotations

import ast
import re
import textwrap
from dataclasses import dataclass, field

from execugraph.parsing.model_text import PYTHON_LANGS, find_fenced_blocks, text_without_fence_lines
from execugraph.parsing.python_ast import parse_python
from execugraph.parsing.python_source import class_with_method, compile_tree, defines, is_substantive
from execugraph.parsing.result import add_repair

MAX_TRIM_LINES = 120
MAX_HEAD_TRIM_LINES = 12
_TAG_BLOCK = re.compile(
    r"<(?P<tag>code|python|solution)(?:\s[^>]*)?>(?P<body>.*?)(?:</(?P=tag)>|\Z)|\[PYTHON\](?P<body2>.*?)(?:\[/PYTHON\]|\Z)",
    re.DOTALL | re.IGNORECASE,
)
_BLOCK_CONTINUATION = re.compile(r"(else|elif\b.*|except\b.*|finally|try)\s*:")


@dataclass(eq=False)
class CodeBlock:
    """One stretch of text that might be the program, after block-level clean-up."""

    source: str
    index: int
    lang_ok: bool
    repairs: list[str] = field(default_factory=list)
    tree: ast.Module | None = None
    trimmed: bool = False
    cut_off: bool = False  # the block ran to the end of the reply without a closing fence

    @property
    def compiles(self) -> bool:
        return self.tree is not None

    @property
    def size(self) -> int:
        return sum(1 for line in self.source.split("\n") if line.strip())


# -- block clean-up -------------------------------------------------------------------------------------
def _strip_repl(lines: list[str], repairs: list[str]) -> list[str]:
    """Turn a `>>>` transcript into code: keep prompt lines, drop the printed outputs."""
    first = next((line for line in lines if line.strip()), "")
    if not first.lstrip().startswith(">>>"):
        return lines
    kept: list[str] = []
    for line in lines:
        body = line.lstrip()
        if body.startswith((">>> ", "... ")):
            kept.append(body[4:])
        elif body in (">>>", "..."):
            kept.append("")
    add_repair(repairs, "stripped_repl_prompts")
    return kept


def _clean_block(body: str, repairs: list[str]) -> str:
    """Strip stray backticks, REPL prompts and common indentation from one block of text."""
    lines = body.split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    if lines and lines[0].lstrip().startswith("`") and not lines[0].lstrip().startswith("```"):
        lines[0] = lines[0].replace("`", "", 2 if lines[0].lstrip().startswith("``") else 1)
        add_repair(repairs, "stray_backticks")
    if lines and lines[-1].rstrip().endswith("`"):
        lines[-1] = lines[-1].rstrip().rstrip("`")
        add_repair(repairs, "stray_backticks")
    lines = _strip_repl(lines, repairs)
    text = "\n".join(line.rstrip() for line in lines)
    dedented = textwrap.dedent(text)
    if dedented != text:
        add_repair(repairs, "dedented")
    return dedented.strip("\n")


def _drop_cut_off_line(candidate: CodeBlock) -> None:
    """In a block cut off by the token limit, a last line that is a bare word ("retu") is a torn statement."""
    lines = candidate.source.split("\n")
    last = lines[-1].strip() if lines else ""
    try:
        tree = parse_python(last)
    except (SyntaxError, ValueError):
        return
    if len(tree.body) == 1 and isinstance(tree.body[0], ast.Expr):
        if isinstance(tree.body[0].value, ast.Name | ast.Attribute | ast.Constant) and len(lines) > 1:
            candidate.source = "\n".join(lines[:-1]).rstrip()
            candidate.trimmed = True
            add_repair(candidate.repairs, "dropped_truncated_line")


def _compile_candidate(candidate: CodeBlock) -> None:
    """Compile the candidate; if it fails, try expanding tabs, then cutting an unparsable tail or head."""
    if candidate.cut_off:
        _drop_cut_off_line(candidate)
    candidate.tree = compile_tree(candidate.source)
    if candidate.tree is not None:
        return
    if "\t" in candidate.source:
        expanded = candidate.source.expandtabs(4)
        tree = compile_tree(expanded)
        if tree is not None:
            candidate.source, candidate.tree = expanded, tree
            add_repair(candidate.repairs, "expanded_tabs")
            return
    lines = candidate.source.split("\n")
    for cut in range(len(lines) - 1, max(0, len(lines) - MAX_TRIM_LINES) - 1, -1):
        source = "\n".join(lines[:cut]).rstrip()
        if not source.strip():
            break
        tree = compile_tree(source)
        if tree is not None and is_substantive(tree):
            candidate.source, candidate.tree, candidate.trimmed = source, tree, True
            add_repair(candidate.repairs, "dropped_unparsable_tail")
            return
    for start in range(1, min(len(lines), MAX_HEAD_TRIM_LINES + 1)):
        source = textwrap.dedent("\n".join(lines[start:])).strip("\n")
        tree = compile_tree(source)
        if tree is not None and is_substantive(tree):
            candidate.source, candidate.tree, candidate.trimmed = source, tree, True
            add_repair(candidate.repairs, "dropped_unparsable_head")
            return


# -- finding candidates ---------------------------------------------------------------------------------
def _code_like(stripped: str) -> bool:
    """Whether one unindented line reads as Python rather than prose ("Output: 5" and "Example" do not)."""
    if stripped.startswith(("@", ")", "]", "}")) or _BLOCK_CONTINUATION.fullmatch(stripped):
        return True
    source = stripped + "\n    pass" if stripped.endswith(":") else stripped
    try:
        tree = parse_python(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    if not tree.body:
        return False
    stmt = tree.body[0]
    if isinstance(stmt, ast.Expr) and not isinstance(stmt.value, ast.Call | ast.Await):
        return False
    if isinstance(stmt, ast.AnnAssign) and (
        stmt.value is None or (isinstance(stmt.target, ast.Name) and stmt.target.id[:1].isupper())
    ):
        return False
    return True


def _code_bracket_depth(lines: list[str]) -> int:
    """Rough bracket depth of some code lines (strings and comments ignored approximately)."""
    depth = 0
    for line in lines:
        code = re.sub(r"(\"[^\"]*\"|'[^']*')", "", line.split("#", 1)[0])
        depth += sum(code.count(c) for c in "([{") - sum(code.count(c) for c in ")]}")
    return depth


def _prose_segments(text: str) -> list[tuple[str, int, int]]:
    """Runs of code-looking lines in unfenced text, as (text, first line, last line)."""
    lines = text.split("\n")
    segments: list[tuple[str, int, int]] = []
    current: list[str] = []
    start = base = 0

    def close() -> None:
        while current and not current[-1].strip():
            current.pop()
        if current:
            segments.append(("\n".join(current), start, start + len(current) - 1))
        current.clear()

    for number, line in enumerate(lines):
        stripped = line.strip()
        if not stripped or (stripped.startswith("#") and current):
            if current:
                current.append(line)
            continue
        indent = len(line) - len(line.lstrip())
        if current and (indent > base or _code_bracket_depth(current) > 0):
            current.append(line)
            continue
        if _code_like(stripped):
            if current and indent == base:
                current.append(line)
                continue
            close()
            current.append(line)
            start, base = number, indent
        else:
            close()
    close()
    return segments


def _fenced_candidates(text: str) -> list[CodeBlock]:
    candidates = []
    for number, block in enumerate(find_fenced_blocks(text)):
        repairs = ["stripped_fence"]
        if not block.closed:
            repairs.append("unterminated_fence")
        if block.inline_fence:
            repairs.append("stray_backticks")
        source = _clean_block(block.body, repairs)
        candidates.append(CodeBlock(source, number, block.lang in PYTHON_LANGS, repairs, cut_off=not block.closed))
    return candidates


def _tagged_candidates(text: str, offset: int) -> list[CodeBlock]:
    candidates = []
    for number, match in enumerate(_TAG_BLOCK.finditer(text)):
        repairs = ["stripped_tags"]
        body = match.group("body") if match.group("body") is not None else match.group("body2")
        source = _clean_block(body or "", repairs)
        candidates.append(CodeBlock(source, offset + number, True, repairs))
    return candidates


def _segment_candidates(text: str, offset: int) -> list[CodeBlock]:
    lines = text.split("\n")
    candidates = []
    for number, (segment, first, last) in enumerate(_prose_segments(text)):
        repairs: list[str] = []
        if any(line.strip() for line in lines[:first]):
            repairs.append("dropped_preamble")
        if any(line.strip() for line in lines[last + 1 :]):
            repairs.append("dropped_epilogue")
        source = _clean_block(segment, repairs)
        candidates.append(CodeBlock(source, offset + number, True, repairs))
    return candidates


def _usable(candidates: list[CodeBlock], names: list[str]) -> bool:
    """Some candidate compiles and defines the entry point (or, without one, is a real program)."""
    for candidate in candidates:
        if not candidate.compiles or not candidate.lang_ok:
            continue
        if names and (defines(candidate.tree, names) or class_with_method(candidate.tree, names)):
            return True
        if not names and is_substantive(candidate.tree):
            return True
    return False


def collect_blocks(text: str, names: list[str]) -> list[CodeBlock]:
    """Candidates from fences, then tags, then bare code runs, stopping once something is usable."""
    candidates = _fenced_candidates(text)
    if not candidates:
        candidates = _tagged_candidates(text, 0)
    for candidate in candidates:
        _compile_candidate(candidate)
    if _usable(candidates, names):
        return candidates
    bare_text = _TAG_BLOCK.sub(lambda m: m.group("body") or m.group("body2") or "", text_without_fence_lines(text))
    known = {candidate.source for candidate in candidates}
    extra = [c for c in _segment_candidates(bare_text, len(candidates)) if c.source not in known]
    if candidates:
        for candidate in extra:
            candidate.repairs.insert(0, "code_outside_fence")
    for candidate in extra:
        _compile_candidate(candidate)
    return candidates + extra
