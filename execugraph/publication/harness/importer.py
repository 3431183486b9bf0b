"""Import the runs of human-eval, EvalPlus and bigcode files through the published layout's writer.

Why through `published_import.write_folders`: one writer means a harness run is a
published run in every respect (trace, rescoring, statistics, reproduce). Every file
is read and checked before anything is graded or written; ungraded records are graded
here (`grade`: HumanEval, or the problems of a `dataset` file such as MBPP, whose problems
are then stored and recorded as the run's benchmark file); an EvalPlus run's plus
verdicts become a child run (verdict set `evalplus-plus`, `parent_run_id` the base run).
"""

from __future__ import annotations

import copy
from collections import Counter
from typing import TYPE_CHECKING, Any

from execugraph.domain.json_types import JsonObject
from execugraph.grading.outcome import ResultsMemo
from execugraph.publication.formats import BundleFormatError, IssueCollector, Row
from execugraph.publication.harness.bigcode import read_bigcode
from execugraph.publication.harness.common import (
    PLUS_VERDICT_SET,
    HarnessOptions,
    HarnessRun,
    options_digest,
    problem_of,
    unstorable_text_warnings,
)
from execugraph.publication.harness.detect import Found, find_inputs
from execugraph.publication.harness.evalplus import read_evalplus, read_evalplus_samples
from execugraph.publication.harness.grade import (
    GRADED_ON_IMPORT,
    ProgressFn,
    check_gradable,
    gradable_problems,
    grade_records,
)
from execugraph.publication.harness.human_eval import read_human_eval
from execugraph.publication.harness.livecodebench import read_livecodebench
from execugraph.publication.published_import import write_folders
from execugraph.publication.published_problems import BenchmarkFile, problem_rows
from execugraph.publication.published_records import RunFolder, folder_path
from execugraph.publication.results import ImportedRun, ImportResult
from execugraph.publication.source import FileSet
from execugraph.store.bulk_insert import bulk_writes
from execugraph.store.run_reads import runs_by_content_digest, trial_count

if TYPE_CHECKING:
    from execugraph.store import Store

PASS_AT_K_TOLERANCE = 1e-6


def read_built_in(fileset: FileSet, found: Found, options: HarnessOptions, issues: IssueCollector) -> HarnessRun | None:
    """One run of a built-in format (what `execugraph.publication.harness.formats` registers)."""
    files = found.files
    if found.format == "bigcode":
        return read_bigcode(fileset, files["generations"], files.get("evaluation"), options, issues)
    if found.format == "evalplus" and "eval_results" in files:
        return read_evalplus(fileset, files["eval_results"], files.get("samples"), options, issues)
    if found.format == "evalplus":
        return read_evalplus_samples(fileset, files["samples"], options, issues)
    if found.format == "livecodebench":
        return read_livecodebench(fileset, files, options, issues)
    return read_human_eval(fileset, files.get("samples"), files.get("results"), options, issues)


def _read_any(fileset: FileSet, found: Found, options: HarnessOptions, issues: IssueCollector) -> HarnessRun | None:
    """One run, read by the reader its format registered (built-in or a plugin's)."""
    from execugraph.plugins import registry

    entry = registry().result_formats.get(found.format)
    if entry is None:
        raise BundleFormatError(f"{found.format}: no installed result format reads these files")
    return entry.read(fileset, found, options, issues)


def _titles(runs: list[HarnessRun]) -> list[str]:
    """Each run's name: its file's stem, with its folder where two share one."""
    stems = Counter(run.title for run in runs)
    out = []
    for run in runs:
        folder = next(iter(run.files.values())).rpartition("/")[0]
        out.append(f"{folder}/{run.title}" if stems[run.title] > 1 and folder else run.title)
    return out


def _config(run: HarnessRun, fileset: FileSet, verdicts: str) -> JsonObject:
    return {"harness": {"format": run.format, "files": dict(run.files), "sha256": dict(run.sha256),
                        "verdicts": verdicts, "input": fileset.name, **copy.deepcopy(run.extra)}}


def _folder(run: HarnessRun, title: str, fileset: FileSet, options: HarnessOptions, plus: bool = False) -> RunFolder:
    records = run.plus if plus and run.plus is not None else run.records
    where = next(iter(run.files.values()))
    named = [f"{path.rpartition('/')[2]}:{sha}" for path, sha in run.sha256.items()]  # two copies: two runs
    digest = options_digest(named, options, PLUS_VERDICT_SET if plus else "")
    verdicts = "published" if run.graded else GRADED_ON_IMPORT
    config = _config(run, fileset, verdicts)
    if plus:
        config["verdict_set"] = PLUS_VERDICT_SET
    fields: Row = {"tags": ["harness", run.format] + ([PLUS_VERDICT_SET] if plus else [])}
    benchmarks = Counter(problem_of(rec["task_id"])[1] for _, rec in records)
    benchmark = benchmarks.most_common(1)[0][0] if benchmarks else ""
    if benchmark:
        fields["benchmark"] = benchmark
    return RunFolder(where.rpartition("/")[0], f"{title} ({PLUS_VERDICT_SET})" if plus else title,
                     folder_path(fileset, where if run.place is None else run.place), digest, records, len(records),
                     None, None,
                     extra_config=config, run_fields=fields, benchmark=benchmark or None)


def _pass_at_k_check(run: HarnessRun, title: str) -> list[str]:
    """bigcode: the file's pass@k against ours from the verdicts just graded (a warning per k that differs)."""
    from execugraph.stats.passk import pass_at_k

    published = run.extra.get("published_pass_at_k") or {}
    tallies: dict[str, list[int]] = {}
    for _, rec in run.records:
        tally = tallies.setdefault(rec["problem_id"], [0, 0])
        tally[0] += 1
        tally[1] += bool(rec["passed"])
    ours: dict[str, float] = {}
    out = []
    for name, value in sorted(published.items()):
        try:
            k = int(name.partition("@")[2])
        except ValueError:
            continue
        usable = [(n, c) for n, c in tallies.values() if n >= k]
        if not usable or not isinstance(value, (int, float)):
            continue
        ours[name] = sum(pass_at_k(n, c, k) for n, c in usable) / len(usable)
        if abs(ours[name] - float(value)) > PASS_AT_K_TOLERANCE:
            out.append(f"{title}: evaluation_results.json says {name} {float(value):.4f}; "
                       f"graded here it is {ours[name]:.4f}")
    run.extra["pass_at_k_check"] = {"published": published, "ours": ours, "agree": not out}
    return out


def import_harness(store: Store, fileset: FileSet, options: HarnessOptions | None = None,
                   pool: Any = None, *, dataset: BenchmarkFile | None = None,
                   on_grading: ProgressFn | None = None,
                   memo: ResultsMemo | None = None) -> ImportResult | None:
    """Import every harness run of the input (None: it holds no harness file), all of it or nothing.

    `dataset` (a `--dataset` problem file) grades samples of the tasks it holds (MBPP does not ship);
    `on_grading(done, total)` hears each sample graded on import (it may raise to stop: nothing is written);
    `pool` (a pool, or a callable starting one) and `memo` are `grade_records`'s."""
    options = options or HarnessOptions()
    found = find_inputs(fileset)
    if not found:
        return None
    issues = IssueCollector()
    runs = [run for run in (_read_any(fileset, f, options, issues) for f in found) if run is not None]
    for run in runs:  # text the store holds as U+FFFD (a NUL, a lone surrogate): said, once per record
        run.warnings.extend(unstorable_text_warnings(run))
    problems = gradable_problems(dataset.problems if dataset is not None else None)
    if dataset is None:  # MBPP samples: graded on the built-in MBPP+, the tasks it lacks left out and named
        from execugraph.publication.harness.mbpp_plus import builtin_mbpp_problems

        builtin_mbpp_problems(runs, problems)
    for run in runs:
        if not run.graded:
            check_gradable(next(iter(run.files.values())), run.records, issues, problems,
                           dataset.path if dataset is not None else None)
    issues.raise_if_any()
    titles = _titles(runs)
    formats = sorted({run.format for run in runs})
    result = ImportResult(source=f"harness:{','.join(formats)}")
    folders = [_folder(run, title, fileset, options) for run, title in zip(runs, titles, strict=True)]
    already = runs_by_content_digest(store, {f.digest for f in folders})
    planned: list[int] = []
    for i, (run, f) in enumerate(zip(runs, folders, strict=True)):
        result.warnings.extend(run.warnings)
        if f.digest in already:
            result.runs.append(ImportedRun(already[f.digest], f.title, trial_count(store, already[f.digest]),
                                           False, f.path))
            result.note(f"{f.title}: already imported as run {already[f.digest]}; not duplicated")
            continue
        planned.append(i)
        result.runs.append(ImportedRun(0, f.title, len(f.records), folder=f.path))
    ungraded = [rec for i in planned if not runs[i].graded for _, rec in runs[i].records]
    grade_records(ungraded, pool=pool, problems=problems, on_progress=on_grading, memo=memo)
    for i in planned:
        if runs[i].format == "bigcode":
            result.warnings.extend(_pass_at_k_check(runs[i], titles[i]))
            folders[i] = _folder(runs[i], titles[i], fileset, options)
    positions = [n for n, r in enumerate(result.runs) if r.imported]
    covered = dataset.ids if dataset is not None else frozenset()
    with_file = [dataset if not runs[i].graded and covered & {rec["problem_id"] for _, rec in runs[i].records}
                 else None for i in planned]  # graded here on the file's tests: it is the run's benchmark file
    with bulk_writes(store) as bulk:
        if dataset is not None and any(with_file):
            bulk.insert_missing_problems(problem_rows([dataset]))
        ids = write_folders(bulk, [(folders[i], bench) for i, bench in zip(planned, with_file, strict=True)])
        children = []
        for i, run_id in zip(planned, ids, strict=True):
            if runs[i].plus is not None:
                child = _folder(runs[i], titles[i], fileset, options, plus=True)
                child.run_fields = {**(child.run_fields or {}), "parent_run_id": run_id}
                children.append((run_id, child))
        child_ids = write_folders(bulk, [(c, None) for _, c in children])
    for position, run_id in zip(positions, ids, strict=True):
        result.runs[position].id = run_id
    for (parent, _child), child_id in zip(children, child_ids, strict=True):
        result.verdict_sets.setdefault(parent, {})[PLUS_VERDICT_SET] = child_id
    return result
