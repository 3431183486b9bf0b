"""bigcode-evaluation-harness files: `generations_<task>.json` and `evaluation_results.json`.

Why graded on import: the harness publishes only pass@k per task, no verdict per
sample, so every generation (a whole program: prompt plus generated text, graded
`standalone`) is graded here and the file's pass@k is checked against ours.
Generations are one list per task in the task's dataset order, from `config.limit_start`
(default 0): for `humaneval` list i is HumanEval/i; for `mbpp` it is the i-th task of
MBPP's test split (task ids 11..510, the split the harness evaluates), whose prompt
was the text plus the first test and whose tests come from the `--dataset` file.
"""

from __future__ import annotations

import re

from execugraph.domain.json_types import JsonObject
from execugraph.publication.formats import IssueCollector
from execugraph.publication.harness.common import HarnessOptions, HarnessRun, json_document, record
from execugraph.publication.source import FileSet

FORMAT = "bigcode"
GENERATIONS = re.compile(r"^generations(?:_(?P<task>[A-Za-z0-9_.+-]+))?\.json$")
EVALUATION_FILE = "evaluation_results.json"
TASKS = ("humaneval", "mbpp")
TASK_COUNT = {"humaneval": 164, "mbpp": 500}
MBPP_FIRST_TEST_TASK = 11  # MBPP's test split is task ids 11..510, in order


def task_id_of(task: str, position: int) -> str:
    """The harness task id of a generations list at dataset `position` (`mbpp`, 0 -> `Mbpp/11`)."""
    return f"Mbpp/{MBPP_FIRST_TEST_TASK + position}" if task == "mbpp" else f"HumanEval/{position}"


def task_of(path: str) -> str:
    """The harness task a generations file is named after (`generations_humaneval.json` -> humaneval)."""
    match = GENERATIONS.match(path.rpartition("/")[2])
    return (match.group("task") or "humaneval").lower() if match else ""


def read_bigcode(fileset: FileSet, generations: str, evaluation: str | None, options: HarnessOptions,
                 issues: IssueCollector) -> HarnessRun | None:
    """One ungraded run from a generations file; the evaluation file's pass@k and config kept to check against."""
    task = task_of(generations)
    if task not in TASKS:
        issues.add(generations, None, None, f"read as {FORMAT} generations: task {task!r} is not one ExecuGraph "
                   f"can grade; the bigcode tasks supported are {', '.join(TASKS)}")
        return None
    doc = json_document(fileset, generations, issues, f"{FORMAT} generations")
    if doc is None:
        return None
    if not isinstance(doc, list) or not all(isinstance(x, list) for x in doc):
        issues.add(generations, None, None, f"read as {FORMAT} generations: expected a list of lists of programs")
        return None
    config: JsonObject = {}
    published: JsonObject = {}
    if evaluation is not None:
        ev = json_document(fileset, evaluation, issues, f"{FORMAT} evaluation results")
        if ev is not None and not isinstance(ev, dict):
            issues.add(evaluation, None, None, f"read as {FORMAT} evaluation results: expected an object")
        elif isinstance(ev, dict):
            config = ev.get("config") if isinstance(ev.get("config"), dict) else {}
            scores = ev.get(task)
            published = {k: v for k, v in scores.items() if k.startswith("pass@")} if isinstance(scores, dict) else {}
    start = config.get("limit_start", 0)
    start = start if isinstance(start, int) and not isinstance(start, bool) and start >= 0 else 0
    if start + len(doc) > TASK_COUNT[task]:
        issues.add(generations, None, None, f"read as {FORMAT} generations: {len(doc)} tasks from {start}; "
                   f"{task} has {TASK_COUNT[task]}")
        return None
    model_name = config.get("model") if isinstance(config.get("model"), str) else None
    model = options.model or model_name or generations.rpartition("/")[2].removesuffix(".json")
    records = []
    for number, programs in enumerate(doc):
        for index, program in enumerate(programs):
            if not isinstance(program, str):
                issues.add(generations, None, f"[{number}][{index}]", f"read as {FORMAT} generations: expected a "
                           f"program (text), got {type(program).__name__}")
                continue
            records.append((len(records) + 1, record(task_id_of(task, start + number), index, program,
                                                     "standalone", options, model, None)))
    files = {k: v for k, v in (("generations", generations), ("evaluation", evaluation)) if v}
    sha = {path: fileset.sha256(path) for path in files.values()}
    title = generations.rpartition("/")[0].rpartition("/")[2] or fileset.name  # the run's folder names it
    extra = {"task": task, "published_pass_at_k": published, "harness_config": config}
    return HarnessRun(title, FORMAT, files, sha, records, False, extra=extra, by_line=False, code_field="generation")
