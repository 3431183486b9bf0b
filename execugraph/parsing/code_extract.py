"""Find the program inside a model's reply, the way a patient human reader would, and say what was fixed.

The winner among the candidate blocks (`code_blocks`) is the block that defines the entry point
(helpers it needs from other blocks are pulled in), else the longest block that compiles. For
function-style problems, example usage at module level (`input()`, prints, asserts, a `__main__`
guard) is removed so that importing the candidate cannot block or crash before the tests run.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable

from execugraph.parsing.code_blocks import CodeBlock, collect_blocks
from execugraph.parsing.model_text import clean_model_text
from execugraph.parsing.python_source import (
    class_with_method,
    compile_tree,
    defines,
    is_substantive,
    top_level_names,
    unresolved_names,
)
from execugraph.parsing.result import Parsed, add_repair

_IO_CALLS = frozenset({"print", "input", "exit", "quit", "main", "testmod", "pprint"})


# -- choosing and assembling ----------------------------------------------------------------------------
def _choose(candidates: list[CodeBlock], names: list[str], repairs: list[str]) -> CodeBlock | None:
    compiling = [c for c in candidates if c.compiles and c.lang_ok]
    if names:
        defining = [c for c in compiling if defines(c.tree, names)]
        if not defining:
            defining = [c for c in compiling if class_with_method(c.tree, names)]
        if defining:
            best = max(defining, key=lambda c: (not c.trimmed, c.index))
            if len(candidates) > 1:
                add_repair(repairs, "picked_block_defining_entry_point")
            if len(defining) > 1:
                add_repair(repairs, "picked_last_of_several_solutions")
            return best
    programs = [c for c in compiling if is_substantive(c.tree)]
    if programs:
        best = max(programs, key=lambda c: (not c.trimmed, c.size, -c.index))
        if len(candidates) > 1:
            add_repair(repairs, "picked_longest_compiling_block")
        return best
    return None


def _with_helpers(chosen: CodeBlock, candidates: list[CodeBlock], repairs: list[str]) -> str:
    """Prepend other blocks that define names the chosen block uses but never binds (imports, helpers)."""
    missing = unresolved_names(chosen.tree)
    picked: list[CodeBlock] = []
    changed = True
    while missing and changed:
        changed = False
        for other in candidates:
            if other is chosen or any(other is p for p in picked) or not other.compiles or not other.lang_ok:
                continue
            provided = top_level_names(other.tree) & missing
            if provided:
                picked.append(other)
                missing = (missing - provided) | (unresolved_names(other.tree) - _known_names(picked, chosen))
                changed = True
    if not picked:
        return chosen.source
    add_repair(repairs, "concatenated_blocks")
    ordered = sorted([*picked, chosen], key=lambda c: c.index)
    return "\n\n\n".join(c.source for c in ordered)


def _known_names(picked: list[CodeBlock], chosen: CodeBlock) -> set[str]:
    names: set[str] = set()
    for candidate in [*picked, chosen]:
        names |= top_level_names(candidate.tree)
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
    if result_tree is None or not (defines(result_tree, names) or class_with_method(result_tree, names)):
        return source
    for tag in tags:
        add_repair(repairs, tag)
    return kept


def _add_method_shim(source: str, names: list[str], repairs: list[str]) -> str:
    """When the entry point exists only as `Class.method`, add a module-level function calling it."""
    tree = compile_tree(source)
    if tree is None or defines(tree, names):
        return source
    found = class_with_method(tree, names)
    if found is None:
        return source
    class_name, method = found
    shim = f"\n\n\ndef {method}(*args, **kwargs):\n    return {class_name}().{method}(*args, **kwargs)\n"
    if compile_tree(source + shim) is None:
        return source
    add_repair(repairs, "added_function_for_method")
    return source.rstrip("\n") + shim


def _extract_from(text: str, names: list[str], repairs: list[str]) -> Parsed[str] | None:
    candidates = collect_blocks(text, names)
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
        return Parsed(value=fallback.source.rstrip() + "\n", repairs=repairs, ok=False)
    for tag in [*chosen.repairs, *local]:
        add_repair(repairs, tag)
    source = _with_helpers(chosen, candidates, repairs)
    if names:
        source = _add_method_shim(source, names, repairs)
        source = _strip_module_level_io(source, names, repairs)
        if not defines(compile_tree(source), names):
            add_repair(repairs, "entry_point_not_defined")
    ok = compile_tree(source) is not None
    return Parsed(value=source.rstrip() + "\n", repairs=repairs, ok=ok)


def extract_code(text: str | None, entry_point: str | None = None, aliases: Iterable[str] = ()) -> Parsed[str]:
    """The program in a model reply (fences, tags or bare code); ok=False when nothing compiles.

    The best effort is still returned when nothing compiles; an empty string when no code was found.
    """
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
        return Parsed(value="", repairs=repairs, ok=False)
    return result
