"""Result formats are found through the registry alike: the built-ins' shared finder runs once, each claim keeps
its own format, and a plugin's format is asked only about the files no built-in claimed."""

from __future__ import annotations

import json

from execugraph.plugins import build_registry, hookimpl, use_registry
from execugraph.plugins.entries import ResultFormatEntry
from execugraph.publication.harness import find_inputs
from execugraph.publication.harness.detect import Found
from execugraph.publication.source import FileSet


def _jsonl(*rows: object) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in rows).encode()


class _NotesFormat:
    """A plugin format that claims `.notes` files and records which paths it was offered."""

    offered: list[list[str]] = []

    @staticmethod
    def find(fileset: FileSet, paths: list[str], used: set[str]) -> list[Found]:
        _NotesFormat.offered.append(list(paths))
        return [Found("anything", {"notes": p}) for p in paths if p.endswith(".notes")]

    @hookimpl
    def register_result_formats(self, register):  # noqa: ANN001, ANN201 - pluggy's hook signature
        register(ResultFormatEntry("notes", _NotesFormat.find, lambda *a: None, "test notes"))


def test_built_in_claims_keep_their_format_and_a_plugin_sees_only_free_files(monkeypatch) -> None:  # noqa: ANN001
    from execugraph.publication.harness import detect

    calls = []
    original = detect.builtin_inputs
    monkeypatch.setattr(detect, "builtin_inputs", lambda fileset: calls.append(1) or original(fileset))
    _NotesFormat.offered.clear()
    old = use_registry(build_registry(_NotesFormat()))
    try:
        fileset = FileSet.from_bytes("in", {
            "a/samples.jsonl": _jsonl({"task_id": "HumanEval/0", "completion": "x"}),
            "c/generations_humaneval.json": b"[]",
            "d/run.notes": b"hello",
        })
        found = sorted((f.format, tuple(sorted(f.files.items()))) for f in find_inputs(fileset))
    finally:
        use_registry(old)
    assert found == [
        ("bigcode", (("generations", "c/generations_humaneval.json"),)),
        ("human-eval", (("samples", "a/samples.jsonl"),)),
        ("notes", (("notes", "d/run.notes"),)),
    ]
    assert len(calls) == 1  # four built-in formats, one paired detection
    assert _NotesFormat.offered == [["d/run.notes"]]
