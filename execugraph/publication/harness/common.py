"""What every harness reader shares: options, the record shape it produces, and small readers.

Why one shape: each reader maps its format to records of the published layout
(`published_records.RECORD_FIELDS`), so storing, rescoring and statistics are the
ones the published layout already has.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any

from execugraph.domain.json_types import JsonObject
from execugraph.inputs.readers import read_json_document
from execugraph.publication.formats import IssueCollector
from execugraph.publication.source import FileSet
from execugraph.publication.source import jsonl_objects as stream_jsonl

DEFAULT_CONDITION = "imported"
PLUS_VERDICT_SET = "evalplus-plus"
_HUMANEVAL = re.compile(r"^HumanEval/(\d+)$")
_MBPP = re.compile(r"^Mbpp/(\d+)$")


@dataclass(frozen=True)
class HarnessOptions:
    """What the files do not say: the condition their trials ran under and the model (default: the file name)."""

    condition: str | None = None
    model: str | None = None


@dataclass
class HarnessRun:
    """One run read from a harness file: records in the published layout plus what the run config keeps."""

    title: str
    format: str  # human-eval | evalplus | bigcode | livecodebench
    files: dict[str, str]  # role (samples, results, ...) -> path within the input
    sha256: dict[str, str]  # path -> SHA-256 of the original file
    records: list[tuple[int, JsonObject]]  # (line or position, record)
    graded: bool  # whether the records carry the file's own verdicts
    extra: JsonObject = field(default_factory=dict)  # format facts kept in config["harness"]
    plus: list[tuple[int, JsonObject]] | None = None  # EvalPlus: the same trials under plus tests
    warnings: list[str] = field(default_factory=list)
    by_line: bool = True  # a record's position is its line in `records_file` (else its number among the records)
    code_field: str = "completion"  # what the file calls the text stored as a record's `code` (EvalPlus: per sample)
    records_path: str = ""  # the file the records' positions refer to (default: its first file)
    place: str | None = None  # where the run sits in its input, a folder or file path (default: its first file)

    @property
    def records_file(self) -> str:
        """The file the records' positions refer to."""
        return self.records_path or next(iter(self.files.values()))


# What the store cannot hold as written (PostgreSQL refuses NUL; UTF-8 cannot encode a lone surrogate):
# `models.CleanTextColumn` stores each as U+FFFD, and an import says so (`unstorable_text_warnings`).
_UNSTORABLE = re.compile(r"[\x00\ud800-\udfff]")


def _unstorable_names(text: str) -> list[str]:
    """`a NUL character (U+0000)`, `a lone surrogate (U+D800)`: each kind `text` holds, once, first seen first."""
    names: list[str] = []
    for found in _UNSTORABLE.findall(text):
        name = "a NUL character (U+0000)" if found == "\x00" else f"a lone surrogate (U+{ord(found):04X})"
        if name not in names:
            names.append(name)
    return names


def _code_field(run: HarnessRun, rec: JsonObject) -> str:
    """The file's name for the text a record stores as `code` (an EvalPlus sample has a solution or a completion)."""
    if run.format == "evalplus":
        return "solution" if rec.get("grading_protocol") == "standalone" else "completion"
    return run.code_field


def unstorable_text_warnings(run: HarnessRun) -> list[str]:
    """One warning per record holding text the store replaces by U+FFFD, naming file, line or record, and field:
    `samples.jsonl:3: completion holds a NUL character (U+0000); stored as U+FFFD`."""
    out = []
    for position, rec in run.records:
        said = []
        for key, value in rec.items():
            if isinstance(value, str) and _UNSTORABLE.search(value):
                name = _code_field(run, rec) if key == "code" else "result" if key == "stderr" else key
                said.append(f"{name} holds {' and '.join(_unstorable_names(value))}")
        if said:
            where = (f"{run.records_file}:{position}" if run.by_line
                     else f"{run.records_file}: record {position} ({terminal_safe(rec.get('task_id'))})")
            out.append(f"{where}: {', '.join(said)}; stored as U+FFFD")
    return out


def terminal_safe(value: Any) -> str:
    """A value from the file, shown on one line with anything unprintable escaped."""
    return ascii(value) if not isinstance(value, str) else ascii(value)[1:-1]


def problem_of(task_id: str) -> tuple[str, str]:
    """(our problem id, benchmark) for a harness task id: `HumanEval/7` -> (`humaneval_7`, `humaneval`)."""
    match = _HUMANEVAL.match(task_id)
    if match:
        return f"humaneval_{int(match.group(1))}", "humaneval"
    match = _MBPP.match(task_id)
    if match:
        return f"mbpp_{int(match.group(1))}", "mbpp"
    head = task_id.split("/", 1)[0].lower()
    return task_id, head if head != task_id.lower() else ""


def record(task_id: str, index: int, code: str, protocol: str, options: HarnessOptions, model: str,
           verdict: tuple[bool, str | None] | None, **extra: Any) -> JsonObject:
    """One published-layout record; an ungraded record is marked (`passed` None) until `grade` fills it."""
    problem_id, benchmark = problem_of(task_id)
    rec: JsonObject = {
        "problem_id": problem_id,
        "condition": options.condition or DEFAULT_CONDITION,
        "seed": 0,
        "trial": index,
        "passed": verdict[0] if verdict else None,
        "code": code,
        "model_generator": model,
        "test_source": "problem",
        "grading_protocol": protocol,
        "task_id": task_id,
    }
    if benchmark:
        rec["source"] = f"{benchmark}/{problem_id.rpartition('_')[2]}"
        rec["category"] = benchmark
    if verdict and not verdict[0] and verdict[1]:
        rec["error_class"] = verdict[1]
    rec.update({k: v for k, v in extra.items() if v is not None})
    return rec


SOURCE_WORDS_CHARS = 500  # what a harness file says of a sample is kept up to this length (it is untrusted text)


def source_words(*parts: tuple[str, Any]) -> str | None:
    """What the file itself says of a sample (`("result", "timed out")`, `("base_fail_tests", [[1]])`) as one
    bounded line, kept as the imported grading's stderr so a flip reason can quote the source's own words."""
    shown = []
    for name, value in parts:
        if value is None or value == [] or value == "":
            continue
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=repr)
        shown.append(f"{name}: {text}" if name else text)
    flat = " ".join("; ".join(shown).split())
    if not flat:
        return None
    return flat if len(flat) <= SOURCE_WORDS_CHARS else flat[: SOURCE_WORDS_CHARS - 3] + "..."


def numbered(task_ids: list[str]) -> list[int]:
    """Each sample's index among its task's samples, in order of appearance (files are not in task order)."""
    seen: dict[str, int] = {}
    out = []
    for task_id in task_ids:
        out.append(seen.get(task_id, 0))
        seen[task_id] = out[-1] + 1
    return out


def jsonl_objects(fileset: FileSet, path: str, issues: IssueCollector, what: str) -> list[tuple[int, JsonObject]]:
    """(line, object) of every non-blank line; bad JSON and non-objects become issues naming the line and `what`
    the file was read as."""
    return list(stream_jsonl(fileset, path, path, issues, read_as=what))


def json_document(fileset: FileSet, path: str, issues: IssueCollector, what: str) -> Any:
    """A whole JSON document (at most source.MAX_DOCUMENT_BYTES), or None with an issue naming `what` was tried."""
    return read_json_document(fileset.read_bytes(path), path, issues, read_as=what)


def completion_text(value: Any) -> str | None:
    """A completion's text: the string itself, or an API response's single choice (`text` or `message.content`).

    None when it is neither, or when the object holds several choices (which one was graded is unknowable).
    """
    if isinstance(value, str):
        return value
    if not isinstance(value, dict):
        return None
    choices = value.get("choices")
    if not isinstance(choices, list) or len(choices) != 1 or not isinstance(choices[0], dict):
        return None
    choice = choices[0]
    if isinstance(choice.get("text"), str):
        return choice["text"]
    message = choice.get("message")
    if isinstance(message, dict) and isinstance(message.get("content"), str):
        return message["content"]
    return None


def options_digest(digests: list[str], options: HarnessOptions, role: str = "") -> str:
    """A run's identity: its files' SHA-256s and the options it was imported with (another condition: another run)."""
    text = json.dumps([sorted(digests), options.condition, options.model, role])
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def stem(path: str) -> str:
    """A file's name without folder and extension(s) (`out/samples.jsonl` -> `samples`)."""
    name = path.rpartition("/")[2]
    for suffix in ("_eval_results.json", "_results.jsonl", ".jsonl", ".json"):  # samples.jsonl_results.jsonl too
        if name.endswith(suffix) and len(name) > len(suffix):
            name = name[: -len(suffix)]
    return name
