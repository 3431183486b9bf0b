"""Prompt templates (text files under prompts/), their renderer, and the execution-feedback formatter.

Templates use `{name}` placeholders and optional sections `{?name}...{/name}` that disappear when
`name` is given as an empty string. Literal braces (JSON examples) need no escaping: only
`{identifier}` is a placeholder. Substitution is a single pass, so braces inside values (code,
statements) are never interpreted.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from execugraph.agents.registry import inline_template, role_duty
from execugraph.domain.problem import Problem

PROMPT_DIR = Path(__file__).with_name("prompts")
PROMPT_NAMES = (
    "planner",
    "generator",
    "generator_retry",
    "generator_revise",
    "reviewer",
    "test_writer",
    "test_writer_stdio",
    "optimizer",
    "explainer",
    "single",
    "system",
)
ROLE_DUTIES = {
    "planner": ("Planner", "You write short step-by-step plans, never code."),
    "generator": ("Generator", "You write complete, correct Python code."),
    "reviewer": ("Logical Reviewer", "You find logic errors in code and report them as JSON."),
    "evaluator": ("Evaluator", "You write small, certain test cases as JSON."),
    "optimizer": ("Optimizer", "You make working code simpler or faster without changing its results."),
    "explainer": ("Explainer", "You explain solutions briefly and clearly."),
}
MAX_FEEDBACK_CHARS = 1500
MAX_VALUE_CHARS = 300
MAX_STDERR_CHARS = 700

_PLACEHOLDER = re.compile(r"\{([a-z_][a-z0-9_]*)\}")
_SECTION = re.compile(r"\{\?([a-z_][a-z0-9_]*)\}(.*?)\{/\1\}", re.DOTALL)
_SECTION_NAMES = re.compile(r"\{\?([a-z_][a-z0-9_]*)\}")


class PromptError(KeyError):
    """A prompt cannot be rendered: unknown template, or a placeholder without a value (named in the message)."""

    def __str__(self) -> str:  # KeyError would show the message in quotes
        return str(self.args[0]) if self.args else ""


def load_template(name: str) -> str:
    """The raw text of prompts/<name>.txt, or the template a registered node carries under `name`."""
    carried = inline_template(name)
    return carried if carried is not None else _template_file(name)


@cache
def _template_file(name: str) -> str:
    path = PROMPT_DIR / f"{name}.txt"
    if not path.is_file():
        raise PromptError(f"no prompt template {name!r} (looked for {path}); known: {', '.join(PROMPT_NAMES)}")
    return path.read_text(encoding="utf-8")


def placeholders(name: str) -> set[str]:
    """Every value the template needs, including optional sections' names (which may be empty strings)."""
    template = load_template(name)
    return set(_PLACEHOLDER.findall(template)) | set(_SECTION_NAMES.findall(template))


def render(name: str, **values: Any) -> str:
    """The prompt `name` filled with `values`; raises PromptError naming any placeholder left without a value.

    Extra values are ignored, so callers can pass one common set of problem fields to every prompt.
    None counts as an empty string (an optional section then disappears).
    """
    template = load_template(name)
    missing = sorted(placeholders(name) - values.keys())
    if missing:
        raise PromptError(
            f"prompt {name!r} needs a value for placeholder(s) {', '.join(missing)}"
            f" (given: {', '.join(sorted(values)) or 'nothing'})"
        )
    text = {key: "" if value is None else str(value) for key, value in values.items()}

    def keep_section(match: re.Match[str]) -> str:
        return match.group(2) if text[match.group(1)].strip() else ""

    template = _SECTION.sub(keep_section, template)
    template = re.sub(r"\n{3,}", "\n\n", template)
    return _PLACEHOLDER.sub(lambda m: text[m.group(1)].strip("\n"), template).strip() + "\n"


def system_prompt(role: str) -> str:
    """A one-paragraph system message for an agent role (planner, generator, reviewer, ... or a registered node's)."""
    declared = ROLE_DUTIES.get(role) or role_duty(role)
    if declared is None:
        raise PromptError(f"no system prompt for role {role!r}; known roles: {', '.join(ROLE_DUTIES)}")
    title, duty = declared
    return render("system", role=title, duty=duty)


# -- values for the templates -----------------------------------------------------------------------------
def task_values(problem: Problem) -> dict[str, str]:
    """statement, signature and entry_point for any Problem; stdin/stdout problems get a `solve()` contract."""
    entry_point = problem.entry_point
    signature = problem.signature or ""
    if entry_point:
        return {
            "statement": problem.statement,
            "signature": signature or f"{entry_point}(...)",
            "entry_point": entry_point,
        }
    return {
        "statement": problem.statement,
        "signature": "solve() -> None: a whole program that reads the input from standard input and prints the"
        " answer to standard output (no prompts, nothing else printed); call solve() at the end of the file",
        "entry_point": "solve",
    }


def format_review(review: Mapping[str, Any]) -> str:
    """A review dict as short bulleted text for the revise prompt (small models read lists better than JSON)."""
    lines = [f"Severity: {review.get('severity', 'low')}"]
    failures = [str(item) for item in review.get("potential_failures") or []]
    invariants = [str(item) for item in review.get("invariants") or []]
    if failures:
        lines.append("Potential failures:")
        lines.extend(f"- {item}" for item in failures)
    if invariants:
        lines.append("Invariants the code must keep:")
        lines.extend(f"- {item}" for item in invariants)
    return "\n".join(lines)


def _shorten(value: Any, limit: int = MAX_VALUE_CHARS) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=repr)
    text = text.replace("\r", "")
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _tail(text: str, limit: int) -> str:
    """The last `limit` characters on a line boundary (a traceback's useful end), marked when cut."""
    text = text.strip("\n")
    if len(text) <= limit:
        return text
    cut = text[-limit:]
    newline = cut.find("\n")
    if 0 <= newline < limit // 2:
        cut = cut[newline + 1 :]
    return "...\n" + cut


def _first(result: Mapping[str, Any], keys: Sequence[str]) -> Any:
    for key in keys:
        if key in result and result[key] not in (None, ""):
            return result[key]
    return None


def format_feedback(
    test_results: Sequence[Mapping[str, Any]],
    error_class: str | None,
    stderr: str | None,
    tests: Sequence[Mapping[str, Any]] | None = None,
    max_chars: int = MAX_FEEDBACK_CHARS,
) -> str:
    """Structured execution feedback for the retry prompt: the first failing test's call, expected vs got,
    its error class, and a stderr excerpt (the traceback's end), within `max_chars` in total.

    `tests` (the suite that was run) supplies the call expression when a result carries only the
    test's name.
    """
    calls = {str(t.get("name")): t.get("expr") or t.get("call") for t in tests or [] if t.get("name") is not None}
    total = len(test_results)
    passed = sum(1 for r in test_results if r.get("passed") is True)
    failing = [r for r in test_results if r.get("passed") is not True]
    lines = [f"Verdict: {error_class or ('passed' if total and not failing else 'failed')}"]
    if total:
        lines[0] += f" ({passed} of {total} tests passed)"
    if failing:
        first = failing[0]
        name = _first(first, ("name",))
        call = _first(first, ("call", "expr", "expression")) or calls.get(str(name))
        if call is None and first.get("args") is not None:
            call = f"args {_shorten(first['args'])}"
        lines.append(f"First failing test: {_shorten(call if call is not None else name or '?')}")
        if _first(first, ("stdin",)) is not None:
            lines.append(f"Input: {_shorten(first['stdin'])}")
        expected = _first(first, ("expected", "expected_stdout", "expected_output"))
        got = _first(first, ("got", "actual", "output", "stdout", "result"))
        if expected is not None:
            lines.append(f"Expected: {_shorten(expected)}")
        if got is not None or expected is not None:
            lines.append(f"Got: {_shorten(got) if got is not None else '(nothing)'}")
        test_error = _first(first, ("error_class", "error", "error_type", "verdict", "status"))
        if test_error is not None:
            lines.append(f"Error class: {_shorten(test_error, 120)}")
        message = _first(first, ("message", "error_message", "detail"))
        if message is not None:
            lines.append(f"Message: {_shorten(message)}")
        if len(failing) > 1:
            lines.append(f"Other failing tests: {len(failing) - 1}")
    excerpt = stderr or ""
    if not excerpt.strip() and failing:
        excerpt = str(_first(failing[0], ("stderr", "stderr_excerpt")) or "")
    head = "\n".join(lines)
    room = max_chars - len(head) - len("\nstderr (end):\n")
    if excerpt.strip() and room > 80:
        head += "\nstderr (end):\n" + _tail(excerpt.rstrip().lstrip("\n"), min(room, MAX_STDERR_CHARS))
    return head[:max_chars]
