"""Export runs as a publication bundle: a folder or zip anyone can check every number against.

`bundle_files(store, run_ids)` builds the bundle in memory as name -> bytes
(see `layout` for the files and the id scheme); `export_bundle` writes it as a
folder or, for a path ending in .zip, a zip with fixed timestamps and
permissions. Both are deterministic: the same runs give the same bytes.

`summary.json` is the statistics report of the Statistics page for exactly the
exported runs, computed by `execugraph.stats` from the exported trials with
the runs named by their bundle ids, so anyone can recompute it from
trials.jsonl and a fresh import shows the same numbers.

By default a bundle names no host, user or local path (see `privacy`): a file
suite is recorded by file name and SHA-256. `include_host=True` (the CLI's
`--include-host`, a checkbox on the Export page) keeps them as stored.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import zipfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from execugraph.domain.json_types import JsonObject
from execugraph.domain.run_names import conditions_of, run_name
from execugraph.publication import layout
from execugraph.publication.formats import Row, dumps_pretty, jsonl_bytes
from execugraph.publication.meta import build_run_meta, run_entry
from execugraph.publication.privacy import Scrubber, endpoint_hosts, suite_path, suite_path_to_name
from execugraph.safety.inert_text import md_text
from execugraph.store import bundle_rows
from execugraph.store.bundle_rows import BundleRows

if TYPE_CHECKING:
    from execugraph.store import Store

ZIP_DATE = (1980, 1, 1, 0, 0, 0)
ZIP_MODE = 0o644
UNFINISHED = ("queued", "running")


class ExportError(ValueError):
    """The runs cannot be exported as asked (unknown id, unfinished run, output exists)."""


def _read_rows(store: Store, run_ids: Sequence[int]) -> BundleRows:
    wanted = sorted({int(r) for r in run_ids})
    if not wanted:
        raise ExportError("no runs to export: give at least one run id")
    runs = bundle_rows.run_rows(store, wanted)
    found = {r["id"] for r in runs}
    missing = [str(r) for r in wanted if r not in found]
    if missing:
        raise ExportError(f"no such run: {', '.join(missing)}")
    busy = [f"{r['id']} ({r['status']})" for r in runs if r["status"] in UNFINISHED]
    if busy:
        raise ExportError(f"run(s) still in progress: {', '.join(busy)}; wait for them to finish or cancel them")
    rows = bundle_rows.rows_of_runs(store, wanted)
    run_rank = {rid: i for i, rid in enumerate(wanted)}
    rows.trials.sort(key=lambda t: (run_rank[t["run_id"]], t["id"]))
    rows.problems = _with_benchmark_problems(rows.problems, rows.trials)
    return rows


def _with_benchmark_problems(stored: list[Row], trials: list[Row]) -> list[Row]:
    """Every problem an exported trial names: the store's copy, else the named suite's own (a run whose problems
    were never stored, e.g. one written before batches stored them, used to export only the few that were).

    Only suites that load without a file are consulted; a problem found nowhere is left out, as before.
    """
    from execugraph.benchmarks import BenchmarkError, canonical_name, file_benchmark_names, load_benchmark
    from execugraph.store.models import ProblemRecord

    have = {(p["benchmark"], p["problem_id"]) for p in stored}
    missing = sorted({(t["benchmark"], t["problem_id"]) for t in trials} - have)
    added: list[Row] = []
    for benchmark in sorted({b for b, _ in missing}):
        try:
            if not benchmark or canonical_name(benchmark) in file_benchmark_names():
                continue
            suite = {p.id: p for p in load_benchmark(benchmark)}
        except (BenchmarkError, OSError, TypeError, ValueError):
            continue
        for _, problem_id in (k for k in missing if k[0] == benchmark):
            if problem_id in suite:
                record = ProblemRecord.from_problem(suite[problem_id]).model_dump()
                added.append(record | {"benchmark": benchmark})
    return sorted([*stored, *added], key=lambda p: (p["benchmark"], p["problem_id"]))


def _number(rows: Iterable[Row], key: Callable[[Row], Any] | None = None) -> dict[int, int]:
    """Database id -> bundle id (1, 2, ...) in the order given (or sorted by `key`)."""
    ordered = sorted(rows, key=key) if key else list(rows)
    return {row["id"]: i for i, row in enumerate(ordered, start=1)}


def _export_config(config: JsonObject) -> JsonObject:
    return {k: v for k, v in (config or {}).items() if k != layout.IMPORT_MARKER}


def _renumbered(rows: BundleRows) -> dict[str, list[Row]]:
    """Every row with bundle-local ids in place of database ids, in bundle order."""
    run_no = _number(rows.runs)
    trial_no = _number(rows.trials)
    step_no = _number(rows.steps, key=lambda s: (trial_no[s["trial_id"]], s["seq"]))
    by_trial = {
        name: _number(items, key=lambda x: (trial_no[x["trial_id"]], x["id"]))
        for name, items in (("llm", rows.llm_calls), ("exe", rows.executions), ("hit", rows.hits))
    }

    def step_ref(value: int | None) -> int | None:
        return None if value is None else step_no.get(value)

    runs = [
        r
        | {
            "id": run_no[r["id"]],
            "parent_run_id": run_no.get(r["parent_run_id"]) if r["parent_run_id"] is not None else None,
            "config": _export_config(r["config"]),
        }
        for r in rows.runs
    ]
    trials = [t | {"id": trial_no[t["id"]], "run_id": run_no[t["run_id"]]} for t in rows.trials]
    steps = sorted(
        (s | {"id": step_no[s["id"]], "trial_id": trial_no[s["trial_id"]]} for s in rows.steps), key=lambda s: s["id"]
    )
    llm = sorted(
        (
            c | {"id": by_trial["llm"][c["id"]], "trial_id": trial_no[c["trial_id"]], "step_id": step_ref(c["step_id"])}
            for c in rows.llm_calls
        ),
        key=lambda c: c["id"],
    )
    exe = sorted(
        (
            e | {"id": by_trial["exe"][e["id"]], "trial_id": trial_no[e["trial_id"]], "step_id": step_ref(e["step_id"])}
            for e in rows.executions
        ),
        key=lambda e: e["id"],
    )
    hits = sorted(
        (h | {"id": by_trial["hit"][h["id"]], "trial_id": trial_no[h["trial_id"]]} for h in rows.hits),
        key=lambda h: h["id"],
    )
    return {
        layout.RUNS: runs,
        layout.TRIALS: trials,
        layout.STEPS: steps,
        layout.LLM_CALLS: llm,
        layout.EXECUTIONS: exe,
        layout.RETRIEVAL_HITS: hits,
        layout.PROBLEMS: rows.problems,
    }


def _summary(store: Store, runs: list[Row], trials: list[Row],
             run_no: dict[int, int]) -> JsonObject:
    """The Statistics page's report for these runs, with runs named by their bundle ids, and its protocol
    sensitivity table (the same family under every verdict set the store holds for them)."""
    from execugraph.stats import build_report_from_records
    from execugraph.verdicts.sensitivity import protocol_sensitivity

    records = [t | {"run_id": str(t["run_id"])} for t in trials]
    keep = ("title", "kind", "config", "benchmark", "created_at", "models")  # what names runs and arms
    meta = {str(r["id"]): {k: r.get(k) for k in keep} for r in runs}
    report = build_report_from_records(records, [str(r["id"]) for r in runs], runs_meta=meta)
    if report.pairs:
        report = report.with_sections(protocol_sensitivity=protocol_sensitivity(
            store, sorted(run_no, key=run_no.__getitem__), renumber=run_no, meta=meta))
    return report.to_json_dict()


def _readme(runs: list[Row], counts: dict[str, int], trial_counts: dict[int, int]) -> bytes:
    lines = [
        "# ExecuGraph publication bundle",
        "",
        "Everything recorded for the runs below: configuration, every trial with its final program,",
        "every agent step, every LLM call (full messages and responses), every sandbox execution",
        "and every retrieval hit.",
        "",
        "## Runs",
        "",
    ]
    for r in runs:
        passed = r["progress_passed"]
        name = run_name(
            r["id"], r["title"], benchmark=r.get("benchmark"), conditions=conditions_of(r["config"]),
            created=r.get("created_at"),
        )
        lines.append(
            f"- run {r['id']} ({r['kind']}, {r['status']}): {md_text(name)}: "
            f"{trial_counts.get(r['id'], 0)} trials, {passed} passed"
        )
    lines += [
        "",
        "## Files",
        "",
        f"- `{layout.CONFIG}`: the exact configuration of run {runs[0]['id']} (a batch config reruns with",
        f"  `python -m execugraph batch --config {layout.CONFIG}`)"
        + (f"; `{layout.CONFIGS_DIR}/run-N.json` holds each run's" if len(runs) > 1 else ""),
        f"- `{layout.RUNS}`: one line per run (configuration, host, versions, models, timestamps)",
        f"- `{layout.TRIALS}` ({counts[layout.TRIALS]} lines): one line per trial: problem, condition, seed,",
        "  verdict, tests passed/total, retries, error class, test and feedback source, cost, final code",
        f"- `{layout.STEPS}` ({counts[layout.STEPS]}), `{layout.LLM_CALLS}` ({counts[layout.LLM_CALLS]}), "
        f"`{layout.EXECUTIONS}` ({counts[layout.EXECUTIONS]}),",
        f"  `{layout.RETRIEVAL_HITS}` ({counts[layout.RETRIEVAL_HITS]}): the full trace of every trial",
        f"- `{layout.PROBLEMS}` ({counts[layout.PROBLEMS]}): the problems with the tests they were graded on",
        f"- `{layout.RUN_META}`: host, Python and package versions, models, sandbox policy, project commit",
        f"- `{layout.SUMMARY}`: every number the Statistics page shows for these runs",
        "",
        "Ids are local to this bundle (runs, trials, steps, ... are numbered from 1) and every",
        "reference between files uses them. Timestamps are UTC. Every line is a JSON object whose",
        "fields are the columns of the ExecuGraph store; `verdict` in trials.jsonl is derived.",
        "",
        "## Using it",
        "",
        "- import: `python -m execugraph import THIS_FOLDER_OR_ZIP` (re-importing does not duplicate)",
        "- re-score the stored programs without any LLM: `python -m execugraph rescore --run ID`",
        "",
    ]
    return "\n".join(lines).encode("utf-8")


def _database_folder(store: Store) -> list[Path]:
    folder = bundle_rows.database_folder(store)
    return [] if folder is None else [folder]


def _private(store: Store, tables: dict[str, list[Row]], include_host: bool) -> None:
    """Record file suites by name and SHA-256 and, unless `include_host`, scrub every table (see `privacy`)."""
    runs = tables[layout.RUNS]
    suites = [suite_path(r["config"]) for r in runs]
    for r in runs:
        r["config"] = suite_path_to_name(r["config"]) if not include_host else _with_suite(r["config"])
    if include_host:
        return
    hosts = endpoint_hosts([r["config"] for r in runs], [r.get("host") or "" for r in runs])
    folders = _database_folder(store) + [Path(s).parent for s in suites if s]
    scrub = Scrubber(hosts, folders)
    for name in layout.TABLE_FILES:
        if name == layout.PROBLEMS:
            continue  # problems and their tests travel exactly as stored
        table = layout.CODECS[name].table_name
        tables[name] = [scrub.row(table, row) for row in tables[name]]


def _with_suite(config: JsonObject) -> JsonObject:
    """The config with `suite` (file name and SHA-256) added when it reads a suite file, path kept."""
    named = suite_path_to_name(config)
    return config | {"suite": named["suite"]} if "suite" in named else config


def bundle_files(store: Store, run_ids: Sequence[int], *, include_host: bool = False) -> dict[str, bytes]:
    """The whole bundle as file name -> bytes, deterministic for the same stored runs.

    Unless `include_host`, nothing in it names this host, its users or local paths (see `privacy`).
    """
    rows = _read_rows(store, run_ids)
    tables = _renumbered(rows)
    _private(store, tables, include_host)
    policies: dict[int, list[str]] = {}
    for e in tables[layout.EXECUTIONS]:
        if e["policy_version"]:
            policies.setdefault(e["trial_id"], []).append(e["policy_version"])
    trial_run = {t["id"]: t["run_id"] for t in tables[layout.TRIALS]}
    run_policies: dict[int, list[str]] = {}
    for trial_id, versions in policies.items():
        run_policies.setdefault(trial_run[trial_id], []).extend(versions)
    trial_counts: dict[int, int] = {}
    for t in tables[layout.TRIALS]:
        trial_counts[t["run_id"]] = trial_counts.get(t["run_id"], 0) + 1

    files: dict[str, bytes] = {}
    for name in layout.TABLE_FILES:
        codec = layout.CODECS[name]
        encoded = [codec.encode(row) for row in tables[name]]
        if name == layout.TRIALS:
            for line, row in zip(encoded, tables[name], strict=True):
                line[layout.TRIAL_DERIVED] = layout.trial_verdict(row["status"], row["passed"], row["error_class"])
        files[name] = jsonl_bytes(encoded)
    runs = tables[layout.RUNS]
    files[layout.CONFIG] = dumps_pretty(runs[0]["config"])
    if len(runs) > 1:
        for r in runs:
            files[f"{layout.CONFIGS_DIR}/run-{r['id']}.json"] = dumps_pretty(r["config"])
    files[layout.RUN_META] = dumps_pretty(
        build_run_meta([run_entry(r["id"], r, run_policies.get(r["id"], [])) for r in runs])
    )
    files[layout.SUMMARY] = dumps_pretty(_summary(store, runs, tables[layout.TRIALS], _number(rows.runs)))
    counts = {name: len(tables[name]) for name in layout.TABLE_FILES}
    files[layout.README] = _readme(runs, counts, trial_counts)
    files[layout.MANIFEST] = dumps_pretty(
        {
            "format": layout.FORMAT,
            "format_version": layout.FORMAT_VERSION,
            "runs": [
                {"id": r["id"], "title": r["title"], "kind": r["kind"], "trials": trial_counts.get(r["id"], 0)}
                for r in runs
            ],
            "counts": counts,
        }
    )
    return dict(sorted(files.items()))


def zip_bytes(files: dict[str, bytes]) -> bytes:
    """A zip of `files` with fixed dates and permissions, entries in name order: same files, same bytes."""
    path = Path(tempfile.mkstemp(suffix=".zip")[1])
    try:
        _write_zip(files, path)
        return path.read_bytes()
    finally:
        path.unlink(missing_ok=True)


def _write_zip(files: dict[str, bytes], path: Path) -> None:
    with zipfile.ZipFile(path, "w") as archive:
        for name in sorted(files):
            info = zipfile.ZipInfo(name, date_time=ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3  # Unix, whatever machine writes it
            info.external_attr = ZIP_MODE << 16
            archive.writestr(info, files[name], compresslevel=9)


@dataclass(frozen=True)
class ExportedRun:
    """One run of a written bundle: its database id and the id, trial count it has in the bundle."""

    run_id: int  # the run's id in the database it was exported from
    bundle_id: int  # its id inside the bundle (1, 2, ...)
    trials: int  # how many trials the bundle holds for it


@dataclass(frozen=True)
class ExportWritten:
    """What `export_bundle` wrote; `as_dict()` is what `python -m execugraph export` prints."""

    out: str  # the folder or .zip written
    format: str  # "zip" | "folder"
    files: int  # how many files the bundle holds
    runs: tuple[ExportedRun, ...]  # the exported runs, by database id

    def as_dict(self) -> JsonObject:
        """`{"out", "format", "files", "runs": [{"run_id", "bundle_id", "trials"}]}`, in that key order."""
        runs = [{"run_id": r.run_id, "bundle_id": r.bundle_id, "trials": r.trials} for r in self.runs]
        return {"out": self.out, "format": self.format, "files": self.files, "runs": runs}


def export_bundle(store: Store, run_ids: Sequence[int], out: str | Path, *, include_host: bool = False
                  ) -> ExportWritten:
    """Write the bundle to `out` (a new folder, or a .zip file); returns what was written.

    Refuses to overwrite: `out` must not exist (an empty folder is fine). The
    bundle is written next to `out` first and moved into place, so a failed
    export never leaves half a bundle behind. `include_host` keeps host names,
    user names and local paths (left out by default).
    """
    target = Path(out)
    is_zip = target.suffix.lower() == ".zip"
    if target.exists() and not (target.is_dir() and not is_zip and not any(target.iterdir())):
        raise ExportError(f"{target} already exists; remove it or choose another --out")
    files = bundle_files(store, run_ids, include_host=include_host)
    target.parent.mkdir(parents=True, exist_ok=True)
    if is_zip:
        fd, tmp_name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
        os.close(fd)
        try:
            _write_zip(files, Path(tmp_name))
            os.replace(tmp_name, target)
        finally:
            Path(tmp_name).unlink(missing_ok=True)
    else:
        staging = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}."))
        try:
            for name, data in files.items():
                path = staging / name
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(data)
            if target.exists():
                target.rmdir()
            staging.rename(target)
        finally:
            if staging.exists():
                shutil.rmtree(staging)
    manifest = json.loads(files[layout.MANIFEST])
    db_ids = sorted({int(r) for r in run_ids})
    runs = tuple(
        ExportedRun(db_id, m["id"], m["trials"]) for db_id, m in zip(db_ids, manifest["runs"], strict=True)
    )
    return ExportWritten(str(target), "zip" if is_zip else "folder", len(files), runs)
