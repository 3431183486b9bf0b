"""Find the program inside a model's reply, the way a patient human reader would, and say what was fixed.

Candidates come from markdown fences (closed or cut off), `<code>`/`[PYTHON]` tags, or, failing
those, runs of code-looking lines between prose. Each candidate is checked with `compile()` only;
nothing is ever executed. The winner is the block that defines the entry point (helpers it needs from
other blocks are pulled in), else the longest block that compiles. For function-style problems,
example usage at module level (`input()`, prints, asserts, a `__main__` guard) is removed so that
importing the candidate cannot block or crash before the tests run.
"""

from __future__ import annotations

import ast
import builtins
import re
import textwrap
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache

from execugraph.parsing.model_text import (
    PYTHON_LANGS,
    add_repair,
    clean_model_text,
    find_fenced_blocks,
    text_without_fence_lines,
)

MAX_TRIM_LINES = 120
MAX_HEAD_TRIM_LINES = 12
_BUILTIN_NAMES = frozenset(dir(builtins)) | {"__name__", "__file__", "__doc__"}
_TAG_BLOCK = re.compile(
    r"<(?P<tag>code|python|solution)(?:\s[^>]*)?>(?P<body>.*?)(?:</(?P=tag)>|\Z)|\[PYTHON\](?P<body2>.*?)(?:\[/PYTHON\]|\Z)",
    re.DOTALL | re.IGNORECASE,
)
_BLOCK_CONTINUATION = re.compile(r"(else|elif\b.*|except\b.*|finally|try)\s*:")
_IO_CALLS = frozenset({"print", "input", "exit", "quit", "main", "testmod", "pprint"})


@dataclass
class CodeResult:
    """What extraction found: the code, whether it compiles, and the repairs applied."""

    code: str
    ok: bool
    repairs: list[str]


@dataclass(eq=False)
class _Candidate:
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


@lru_cache(maxsize=64)
def compile_tree(source: str) -> ast.Module | None:
    """The AST if `source` compiles as a module (parse and bytecode compile, never run), else None.

    Cached because extraction re-checks the same source at several stages; callers must not mutate it.
    """
    try:
        tree = ast.parse(source)
        compile(tree, "<candidate>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, TypeError, RecursionError, MemoryError, OverflowError):
        return None
    return tree


def _is_substantive(tree: ast.Module | None) -> bool:
    """True unless the module is only bare non-call expressions (an output sample like `6` or `[1, 2]`)."""
    if tree is None:
        return False
    for stmt in tree.body:
        if not isinstance(stmt, ast.Expr) or isinstance(stmt.value, ast.Call | ast.Await):
            return True
    return False


def _top_level_names(tree: ast.Module | None) -> set[str]:
    """Names a module binds at top level: defs, classes, assignments, imports, loop and with targets."""
    names: set[str] = set()
    for stmt in tree.body if tree is not None else []:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(stmt.name)
        elif isinstance(stmt, ast.Import | ast.ImportFrom):
            for alias in stmt.names:
                names.add((alias.asname or alias.name).split(".")[0])
        else:
            for node in ast.walk(stmt):
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                    names.add(node.id)
    return names


def _unresolved_names(tree: ast.Module | None) -> set[str]:
    """Names read somewhere but bound nowhere in the module (coarse: any binding anywhere counts)."""
    loaded: set[str] = set()
    bound: set[str] = set()
    for node in ast.walk(tree) if tree is not None else []:
        if isinstance(node, ast.Name):
            (loaded if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
    return loaded - bound - _BUILTIN_NAMES


def _defines(tree: ast.Module | None, names: Iterable[str]) -> bool:
    return bool(_top_level_names(tree) & set(names))


def _class_with_method(tree: ast.Module | None, names: Iterable[str]) -> tuple[str, str] | None:
    """(class, method) when the entry point exists only as a method (LeetCode's `class Solution`)."""
    if tree is None:
        return None
    wanted = set(names)
    for stmt in tree.body:
        if isinstance(stmt, ast.ClassDef):
            for item in stmt.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and item.name in wanted:
                    return stmt.name, item.name
    return None


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


def _drop_cut_off_line(candidate: _Candidate) -> None:
    """In a block cut off by the token limit, a last line that is a bare word ("retu") is a torn statement."""
    lines = candidate.source.split("\n")
    last = lines[-1].strip() if lines else ""
    try:
        tree = ast.parse(last)
    except (SyntaxError, ValueError):
        return
    if len(tree.body) == 1 and isinstance(tree.body[0], ast.Expr):
        if isinstance(tree.body[0].value, ast.Name | ast.Attribute | ast.Constant) and len(lines) > 1:
            candidate.source = "\n".join(lines[:-1]).rstrip()
            candidate.trimmed = True
            add_repair(candidate.repairs, "dropped_truncated_line")


def _compile_candidate(candidate: _Candidate) -> None:
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
        if tree is not None and _is_substantive(tree):
            candidate.source, candidate.tree, candidate.trimmed = source, tree, True
            add_repair(candidate.repairs, "dropped_unparsable_tail")
            return
    for start in range(1, min(len(lines), MAX_HEAD_TRIM_LINES + 1)):
        source = textwrap.dedent("\n".join(lines[start:])).strip("\n")
        tree = compile_tree(source)
        if tree is not None and _is_substantive(tree):
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
        tree = ast.parse(source)
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


def _open_brackets(lines: list[str]) -> int:
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
        if current and (indent > base or _open_brackets(current) > 0):
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


def _fenced_candidates(text: str) -> list[_Candidate]:
    candidates = []
    for number, block in enumerate(find_fenced_blocks(text)):
        repairs = ["stripped_fence"]
        if not block.closed:
            repairs.append("unterminated_fence")
        if block.inline_fence:
            repairs.append("stray_backticks")
        source = _clean_block(block.body, repairs)
        candidates.append(_Candidate(source, number, block.lang in PYTHON_LANGS, repairs, cut_off=not block.closed))
    return candidates


def _tagged_candidates(text: str, offset: int) -> list[_Candidate]:
    candidates = []
    for number, match in enumerate(_TAG_BLOCK.finditer(text)):
        repairs = ["stripped_tags"]
        body = match.group("body") if match.group("body") is not None else match.group("body2")
        source = _clean_block(body or "", repairs)
        candidates.append(_Candidate(source, offset + number, True, repairs))
    return candidates


def _segment_candidates(text: str, offset: int) -> list[_Candidate]:
    lines = text.split("\n")
    candidates = []
    for number, (segment, first, last) in enumerate(_prose_segments(text)):
        repairs: list[str] = []
        if any(line.strip() for line in lines[:first]):
            repairs.append("dropped_preamble")
        if any(line.strip() for line in lines[last + 1 :]):
            repairs.append("dropped_epilogue")
        source = _clean_block(segment, repairs)
        candidates.append(_Candidate(source, offset + number, True, repairs))
    return candidates


def _usable(candidates: list[_Candidate], names: list[str]) -> bool:
    """Some candidate compiles and defines the entry point (or, without one, is a real program)."""
    for candidate in candidates:
        if not candidate.compiles or not candidate.lang_ok:
            continue
        if names and (_defines(candidate.tree, names) or _class_with_method(candidate.tree, names)):
            return True
        if not names and _is_substantive(candidate.tree):
            return True
    return False


def _collect(text: str, names: list[str]) -> list[_Candidate]:
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


# -- choosing and assembling ----------------------------------------------------------------------------
def _choose(candidates: list[_Candidate], names: list[str], repairs: list[str]) -> _Candidate | None:
    compiling = [c for c in candidates if c.compiles and c.lang_ok]
    if names:
        defining = [c for c in compiling if _defines(c.tree, names)]
        if not defining:
            defining = [c for c in compiling if _class_with_method(c.tree, names)]
        if defining:
            best = max(defining, key=lambda c: (not c.trimmed, c.index))
            if len(candidates) > 1:
                add_repair(repairs, "picked_block_defining_entry_point")
            if len(defining) > 1:
                add_repair(repairs, "picked_last_of_several_solutions")
            return best
    programs = [c for c in compiling if _is_substantive(c.tree)]
    if programs:
        best = max(programs, key=lambda c: (not c.trimmed, c.size, -c.index))
        if len(candidates) > 1:
            add_repair(repairs, "picked_longest_compiling_block")
        return best
    return None


def _with_helpers(chosen: _Candidate, candidates: list[_Candidate], repairs: list[str]) -> str:
    """Prepend other blocks that define names the chosen block uses but never binds (imports, helpers)."""
    missing = _unresolved_names(chosen.tree)
    picked: list[_Candidate] = []
    changed = True
    while missing and changed:
        changed = False
        for other in candidates:
            if other is chosen or any(other is p for p in picked) or not other.compiles or not other.lang_ok:
                continue
            provided = _top_level_names(other.tree) & missing
            if provided:
                picked.append(other)
                missing = (missing - provided) | (_unresolved_names(other.tree) - _known_names(picked, chosen))
                changed = True
    if not picked:
        return chosen.source
    add_repair(repairs, "concatenated_blocks")
    ordered = sorted([*picked, chosen], key=lambda c: c.index)
    return "\n\n\n".join(c.source for c in ordered)


def _known_names(picked: list[_Candidate], chosen: _Candidate) -> set[str]:
    names: set[str] = set()
    for candidate in [*picked, chosen]:
        names |= _top_level_names(candidate.tree)
    return names


def _callee(node: ast.Call) -> str:
    func = node.func
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def _does_io(stmt: ast.stmt, names: set[str]) -> bool:
    """Whether a top-level statement reads input, prints, exits, or calls the entry point."""
    for node in ast.walk(stmt):
        if isinstance(node, ast.Call) and _callee(node) in (_IO_CALLS | names):
            return True
        if isinstance(node, ast.Attribute) and node.attr in ("stdin", "argv"):
            return True
    return False


def _is_main_guard(stmt: ast.stmt) -> bool:
    if not isinstance(stmt, ast.If) or not isinstance(stmt.test, ast.Compare):
        return False
    parts = [stmt.test.left, *stmt.test.comparators]
    has_name = any(isinstance(p, ast.Name) and p.id == "__name__" for p in parts)
    has_main = any(isinstance(p, ast.Constant) and p.value == "__main__" for p in parts)
    return has_name and has_main


def _strip_module_level_io(source: str, names: list[str], repairs: list[str]) -> str:
    """Drop the `__main__` guard and top-level example usage so importing the module runs no I/O."""
    tree = compile_tree(source)
    if tree is None:
        return source
    wanted = set(names)
    drop: list[tuple[int, int]] = []
    tags: list[str] = []
    for stmt in tree.body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Import | ast.ImportFrom):
            continue
        if _is_main_guard(stmt):
            drop.append((stmt.lineno, stmt.end_lineno or stmt.lineno))
            tags.append("removed_main_guard_io" if _does_io(stmt, wanted) else "removed_main_guard")
        elif isinstance(stmt, ast.Assert) or _does_io(stmt, wanted):
            drop.append((stmt.lineno, stmt.end_lineno or stmt.lineno))
            tags.append("removed_top_level_io")
    if not drop:
        return source
    lines = source.split("\n")
    removed = {n for first, last in drop for n in range(first, last + 1)}
    kept = "\n".join(line for number, line in enumerate(lines, start=1) if number not in removed)
    kept = re.sub(r"\n{4,}", "\n\n\n", kept).strip("\n")
    result_tree = compile_tree(kept)
    if result_tree is None or not (_defines(result_tree, names) or _class_with_method(result_tree, names)):
        return source
    for tag in tags:
        add_repair(repairs, tag)
    return kept


def _add_method_shim(source: str, names: list[str], repairs: list[str]) -> str:
    """When the entry point exists only as `Class.method`, add a module-level function calling it."""
    tree = compile_tree(source)
    if tree is None or _defines(tree, names):
        return source
    found = _class_with_method(tree, names)
    if found is None:
        return source
    class_name, method = found
    shim = f"\n\n\ndef {method}(*args, **kwargs):\n    return {class_name}().{method}(*args, **kwargs)\n"
    if compile_tree(source + shim) is None:
        return source
    add_repair(repairs, "added_function_for_method")
    return source.rstrip("\n") + shim


def _extract_from(text: str, names: list[str], repairs: list[str]) -> CodeResult | None:
    candidates = _collect(text, names)
    if not candidates:
        return None
    local: list[str] = []
    chosen = _choose(candidates, names, local)
    if chosen is None:
        fallback = max(candidates, key=lambda c: (c.lang_ok, c.size))
        if not fallback.source.strip():
            return None
        for tag in [*fallback.repairs, "no_compilable_code"]:
            add_repair(repairs, tag)
        return CodeResult(code=fallback.source.rstrip() + "\n", ok=False, repairs=repairs)
    for tag in [*chosen.repairs, *local]:
        add_repair(repairs, tag)
    source = _with_helpers(chosen, candidates, repairs)
    if names:
        source = _add_method_shim(source, names, repairs)
        source = _strip_module_level_io(source, names, repairs)
        if not _defines(compile_tree(source), names):
            add_repair(repairs, "entry_point_not_defined")
    ok = compile_tree(source) is not None
    return CodeResult(code=source.rstrip() + "\n", ok=ok, repairs=repairs)


def extract_program(text: str | None, entry_point: str | None = None, aliases: Iterable[str] = ()) -> CodeResult:
    """The program in a model reply; ok is False when nothing compiles (the best effort is still returned)."""
    cleaned = clean_model_text(text)
    repairs = list(cleaned.repairs)
    names = [n for n in [entry_point, *aliases] if n]
    result = _extract_from(cleaned.answer, names, repairs)
    if (result is None or not result.ok) and cleaned.thinking.strip():
        from_thinking = _extract_from(cleaned.thinking, names, [*repairs, "used_thinking"])
        if from_thinking is not None and (result is None or from_thinking.ok):
            result = from_thinking
    if result is None:
        add_repair(repairs, "no_code_found")
        return CodeResult(code="", ok=False, repairs=repairs)
    return result
