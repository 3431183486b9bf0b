"""Turning what a user typed into core objects, with errors that name the row and field at fault.

The Synthesize and Batch forms collect free text (test rows, assert source,
aliases, model choices); these functions validate it with the same rules the
benchmark loader applies to suite files, and check model choices against what
is actually available before anything is launched.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from typing import Any

from execugraph.benchmarks.suite_format import record_faults
from execugraph.settings import EMBEDDED_MODEL

EMBEDDED_SPEC = EMBEDDED_MODEL
_TEST_PATH = re.compile(r"^tests\[(\d+)\]\.?(.*)$")


def parse_aliases(text: str) -> list[str]:
    """`a, b c` -> ['a', 'b', 'c'] (commas or spaces, duplicates dropped, order kept)."""
    return list(dict.fromkeys(part for part in re.split(r"[,\s]+", text or "") if part))


def _value(text: Any, row: int) -> Any:
    """An expected value typed as JSON (`[1, 2]`, `null`) or as a Python literal (`(1, 2)`, `None`)."""
    if not isinstance(text, str):
        return text
    try:
        return json.loads(text)
    except ValueError:
        pass
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        raise ValueError(
            f"test row {row}, field expected: {text!r} is neither JSON nor a Python literal "
            '(quote strings, e.g. "abc"; use null or None for None)'
        ) from None


def _check(tests: list[dict[str, Any]], entry_point: str | None, rows: list[int], label: str) -> None:
    record = {"id": "adhoc", "statement": "adhoc", "entry_point": entry_point or None, "tests": tests}
    issues = record_faults(record, None)
    if issues:
        messages = []
        for issue in issues:
            match = _TEST_PATH.match(issue.field)
            if match:
                field = {"expr": "call"}.get(match[2], match[2] or "test")
                messages.append(f"{label} {rows[int(match[1])]}, field {field}: {issue.message}")
            else:
                messages.append(f"{issue.field.replace('_', ' ')}: {issue.message}")
        raise ValueError("; ".join(messages))


def adhoc_tests_from_rows(rows: list[dict[str, Any]], entry_point: str | None = None) -> list[dict[str, Any]]:
    """Call tests from table rows {call, expected, visible}; blank rows are skipped. Rows count from 1."""
    tests: list[dict[str, Any]] = []
    numbers: list[int] = []
    for number, row in enumerate(rows, start=1):
        call = str(row.get("call") or "").strip()
        expected = row.get("expected")
        expected_text = "" if expected is None else str(expected).strip()
        if not call and not expected_text:
            continue
        if not call:
            raise ValueError(f"test row {number}, field call: empty; write an expression such as add(1, 2)")
        if not expected_text:
            raise ValueError(f"test row {number}, field expected: empty; write the expected value (null for None)")
        tests.append(
            {
                "kind": "call",
                "name": f"row {number}",
                "expr": call,
                "expected": _value(expected_text, number),
                "visible": bool(row.get("visible") or False),
            }
        )
        numbers.append(number)
    if tests:
        _check(tests, entry_point, numbers, "test row")
    return tests


def adhoc_tests_from_assert(source: str, call: str = "", entry_point: str | None = None) -> list[dict[str, Any]]:
    """One HumanEval-style assert test: `source` defines a checker, `call` runs it (default check(candidate))."""
    if not (source or "").strip():
        return []
    test = {"kind": "assert", "name": "assert", "source": source, "call": (call or "").strip() or "check(candidate)"}
    _check([test], entry_point, [1], "assert test")
    return [test]


def model_choices(ollama_host: str, openai_base_url: str | None = None) -> tuple[list[str], str | None]:
    """Model specs one can pick now (embedded first, then Ollama's and the OpenAI-compatible server's models)
    and, when neither server answers, why."""
    from execugraph.health import ollama_models

    choices, missing = [EMBEDDED_SPEC], []
    try:
        choices += [f"ollama:{name}" for name in ollama_models(ollama_host)]
    except (OSError, ValueError) as exc:
        missing.append(f"Ollama not reachable at {ollama_host} ({getattr(exc, 'reason', exc)})")
    served, why = _openai_served(openai_base_url)
    if served is None:
        missing.append(why)
    else:
        choices += [f"openai:{name}" for name in served]
    return choices, "; ".join(missing) if len(missing) == 2 else None


def _openai_served(base_url: str | None) -> tuple[list[str] | None, str]:
    """The models the OpenAI-compatible server lists, or None and why not."""
    from execugraph.health import openai_models
    from execugraph.settings import load_settings

    settings = load_settings()
    url = base_url or settings.openai_base_url
    try:
        return openai_models(url, api_key=settings.openai_api_key), ""
    except (OSError, ValueError) as exc:
        return None, f"OpenAI-compatible server not reachable at {url} ({getattr(exc, 'reason', exc)})"


@dataclass(frozen=True)
class ModelProblem:
    """A chosen model that cannot answer: which spec, what is wrong, what to do."""

    spec: str
    problem: str
    fix: str

    def __str__(self) -> str:
        return f"{self.spec}: {self.problem} - {self.fix}"


def model_problems(specs: list[str], ollama_host: str, openai_base_url: str | None = None) -> list[ModelProblem]:
    """Pre-flight check of model specs before a launch; empty when all of them can be served."""
    from execugraph.health import ollama_models
    from execugraph.llm import LLMError, embedded_model_path, parse_spec
    from execugraph.settings import load_settings

    problems: list[ModelProblem] = []
    pulled: list[str] | None = None
    reachable = True
    served: tuple[list[str] | None, str] | None = None
    openai_url = openai_base_url or load_settings().openai_base_url
    for spec in dict.fromkeys(specs):
        try:
            parsed = parse_spec(spec)
        except LLMError as exc:
            problems.append(ModelProblem(spec, str(exc), "pick a model from the list"))
            continue
        if parsed.provider == "ollama":
            if pulled is None and reachable:
                try:
                    pulled = ollama_models(ollama_host)
                except (OSError, ValueError):
                    reachable = False
            if not reachable:
                problems.append(
                    ModelProblem(
                        spec,
                        f"Ollama not reachable at {ollama_host}",
                        "start it (`ollama serve`) or choose the embedded model",
                    )
                )
            elif parsed.name not in (pulled or []):
                problems.append(
                    ModelProblem(
                        spec,
                        f"model {parsed.name!r} is not pulled on {ollama_host}",
                        f"run `ollama pull {parsed.name}` or choose another model",
                    )
                )
        elif parsed.provider == "openai":
            served = served or _openai_served(openai_url)
            listed, why = served
            if listed is None:
                problems.append(
                    ModelProblem(
                        spec,
                        why,
                        "start the server (vLLM, llama-server, LM Studio; see the README) and set "
                        "EXECUGRAPH_OPENAI_BASE_URL, or choose another model",
                    )
                )
            elif parsed.name not in listed:
                problems.append(
                    ModelProblem(
                        spec,
                        f"model {parsed.name!r} is not served by {openai_url} (it serves: {', '.join(listed) or 'none'})",
                        "pick one of those, or start the server with that model",
                    )
                )
        elif parsed.provider == "llamacpp":
            if parsed.name == "default":
                try:
                    embedded_model_path()
                except LLMError as exc:
                    problems.append(ModelProblem(spec, str(exc), "run `make run` to install the embedded model"))
            else:
                from pathlib import Path

                if not Path(parsed.name).is_file():
                    problems.append(
                        ModelProblem(
                            spec,
                            f"GGUF file not found: {parsed.name}",
                            "give the path of a .gguf file or choose the embedded model",
                        )
                    )
    return problems


TESTS_FROM_TABLE = "Call / expected table"
TESTS_FROM_ASSERT = "Assert source"
TESTS_GENERATED = "None (the evaluator writes tests)"
TEST_MODES = (TESTS_FROM_TABLE, TESTS_FROM_ASSERT, TESTS_GENERATED)
CONDITION_DEFAULT = "condition default"


def readable_error(exc: Exception) -> str:
    """A pydantic ValidationError as 'field: message' lines; anything else as its message."""
    errors = getattr(exc, "errors", None)
    if callable(errors):
        parts = []
        for err in errors():
            where = ".".join(str(p) for p in err.get("loc", ()))
            message = str(err.get("msg", "")).removeprefix("Value error, ")
            parts.append(f"{where}: {message}" if where else message)
        return "; ".join(parts)
    return str(exc)


@dataclass
class SynthesisRequest:
    """Everything the Synthesize form collects; `build()` validates it into a Problem and a RunConfig."""

    statement: str
    condition: str = "multi-full"
    entry_point: str = ""
    aliases: str = ""
    signature: str = ""
    tests_mode: str = TESTS_FROM_TABLE
    rows: list[dict[str, Any]] | None = None
    assert_source: str = ""
    assert_call: str = ""
    default_model: str = EMBEDDED_SPEC
    models: dict[str, str] | None = None
    retry_budget: str = CONDITION_DEFAULT
    retrieval: str = CONDITION_DEFAULT
    feedback_tests: str = "grading"
    test_timeout_s: float = 5.0

    def build(self) -> tuple[Any, Any]:
        """(Problem, RunConfig), or ValueError saying which input is wrong and how to fix it."""
        from execugraph.conditions import resolve_condition
        from execugraph.single import adhoc_problem

        if not self.statement.strip():
            raise ValueError("the problem statement is empty: describe what the program must do")
        entry = self.entry_point.strip() or None
        if self.tests_mode == TESTS_FROM_TABLE:
            tests = adhoc_tests_from_rows(list(self.rows or []), entry)
        elif self.tests_mode == TESTS_FROM_ASSERT:
            tests = adhoc_tests_from_assert(self.assert_source, self.assert_call, entry)
            if not tests:
                raise ValueError(
                    "assert source is empty: write a checker such as "
                    "`def check(candidate): assert candidate(1, 2) == 3`, or choose another test mode"
                )
        else:
            tests = []
        aliases = parse_aliases(self.aliases)
        if aliases and not entry:
            raise ValueError("aliases need an entry point: name the function the tests call")
        problem = adhoc_problem(self.statement, entry, aliases, tests, self.signature.strip())
        overrides: dict[str, Any] = {
            "models": dict(self.models or {}),
            "default_model": self.default_model,
            "feedback_tests": self.feedback_tests,
            "test_timeout_s": float(self.test_timeout_s),
        }
        if self.retry_budget != CONDITION_DEFAULT:
            overrides["retry_budget"] = int(self.retry_budget)
        if self.retrieval != CONDITION_DEFAULT:
            overrides["retrieval"] = self.retrieval == "on"
        try:
            config = resolve_condition(self.condition, **overrides)
        except ValueError as exc:
            message = readable_error(exc)
            if "retrieval" in message:
                message += (
                    " (retrieval feeds the planner: choose a multi-* condition with a planner, or turn retrieval off)"
                )
            raise ValueError(message) from None
        return problem, config


def models_needed(config: Any, problem: Any) -> list[str]:
    """The model specs a trial of `problem` under `config` will call (for the pre-flight check)."""
    roles = ["generator"]
    roles += [r for r in ("planner", "reviewer", "optimizer", "explainer") if getattr(config, r)]
    if config.feedback_tests == "generated" or not problem.tests:
        roles.append("evaluator")  # the evaluator model writes the tests
    return list(dict.fromkeys(config.model_for(role) for role in roles))


def parse_upload(benchmark: str, data: bytes, name: str, max_bytes: int | None = None) -> list[Any]:
    """Problems from an uploaded suite file (`user` schema, APPS rows or the published layout); faults are named.

    A file over `max_bytes` (default: the upload_max_bytes setting) is refused with FileTooLargeError.
    """
    from execugraph.benchmarks import parse_apps_jsonl, parse_published_jsonl, parse_user_jsonl
    from execugraph.settings import load_settings
    from execugraph.suite_files import check_size

    limit = load_settings().upload_max_bytes if max_bytes is None else max_bytes
    check_size(len(data), limit, "an uploaded suite", name, "EXECUGRAPH_UPLOAD_MAX_BYTES")

    if benchmark == "apps":
        return parse_apps_jsonl(data, source=name)
    if benchmark == "published":
        return parse_published_jsonl(data, source=name)
    return parse_user_jsonl(data, source=name, benchmark=benchmark)


def keep_upload(data: bytes, name: str, folder: Any) -> Any:
    """Save an uploaded suite under `folder` by content hash, so the batch config points at a file that exists."""
    import hashlib
    from pathlib import Path

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    suffix = Path(name).suffix or ".jsonl"
    path = folder / f"{hashlib.sha256(data).hexdigest()[:16]}{suffix}"
    if not path.exists():
        path.write_bytes(data)
    return path


@dataclass(frozen=True)
class BatchPlan:
    """How big a batch is and what it can detect, shown before launch."""

    problems: int
    conditions: int
    seeds: int
    trials_per_seed: int
    total_trials: int
    pairs: int
    mdd_pp: float | None
    mdd_holm_pp: float | None
    note: str
    baseline: float = 0.5

    def describe(self) -> str:
        """The plan in one paragraph (markdown), as the Batch page shows it before launch."""
        per_arm = self.seeds * self.trials_per_seed
        grid = (
            f"{self.problems} problems x {self.conditions} conditions x {self.seeds} seeds x "
            f"{self.trials_per_seed} trials = **{self.total_trials} trials**."
        )
        if self.mdd_pp is None:
            return f"{grid} No improvement is reliably detectable ({self.note})."
        detect = (
            f"With {per_arm} trial(s) per problem and condition, the smallest improvement over a "
            f"{self.baseline:.0%} baseline it can detect (paired, 80% power, two-sided alpha 0.05) is "
            f"**{self.mdd_pp:.1f} percentage points**"
        )
        if self.pairs > 1 and self.mdd_holm_pp is not None:
            detect += f"; under Holm's correction over {self.pairs} comparisons the strictest step needs {self.mdd_holm_pp:.1f} pp"
        return f"{grid} {detect}."


def plan_batch(
    spec: Any, problems: list[Any], baseline: float, *, alpha: float = 0.05, power: float = 0.8
) -> BatchPlan:
    """Grid size and the minimum detectable difference (paired, per comparison and under Holm's strictest step)."""
    from execugraph.stats import minimum_detectable_difference

    chosen = spec.select(problems)
    k = len(spec.conditions)
    pairs = k * (k - 1) // 2
    per_arm = len(spec.seeds) * spec.trials
    total = len(chosen) * k * per_arm
    if len(chosen) < 2:
        return BatchPlan(
            len(chosen),
            k,
            len(spec.seeds),
            spec.trials,
            total,
            pairs,
            None,
            None,
            "a paired comparison needs at least 2 problems",
            baseline,
        )
    mdd = minimum_detectable_difference(len(chosen), per_arm, baseline, alpha=alpha, power=power)
    strict = minimum_detectable_difference(len(chosen), per_arm, baseline, alpha=alpha / max(1, pairs), power=power)
    return BatchPlan(
        len(chosen), k, len(spec.seeds), spec.trials, total, pairs, mdd.mdd_pp, strict.mdd_pp, mdd.note, baseline
    )
