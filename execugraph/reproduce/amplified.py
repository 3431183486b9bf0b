"""`reproduce --amplify`: every run also graded on stronger (amplified) tests, each conclusion shown under both.

Why: a conclusion that holds only because the benchmark's tests let wrong programs through
is not a finding. For each run, the stored amplified version of its benchmark (built here
from the bundled references when none is stored) grades its programs into a child run, by
the same `rescore_run` path as `rescore --suite amplified`; each family is then compared
as run and under the amplified verdicts through `suite_sensitivity` (the one engine), and
each program whose verdict changed is listed with the first input it failed. A run's newest
amplified child is reused only when it graded with the same suite digest in the same sandbox
policy (as the protocol rescores are reused); otherwise the run is rescored again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from execugraph.domain.json_types import JsonObject
from execugraph.reproduce import naming
from execugraph.reproduce.families import StudyFamily, StudyRun
from execugraph.reproduce.progress import Progress
from execugraph.stats.tables import CI_PP, PP, TEXT, Column, P, Table
from execugraph.store import run_reads
from execugraph.verdicts.compare import runs_meta
from execugraph.verdicts.suite_sensitivity import AMPLIFIED, amplified_child, suite_sensitivity
from execugraph.verdicts.verdict_sets import AS_RUN

if TYPE_CHECKING:
    import plotly.graph_objects as go

    from execugraph.store import Store

MAX_CHANGED_ROWS = 200  # rows of the "Programs the stronger tests fail" table; reproduce.json has them all


def _build_suite(store: Store, pool: Any, benchmark: str, wanted: set[str]) -> str | None:
    """Amplify the `wanted` problems of `benchmark` from its bundled references and store the suite; None when
    there is nothing to build from (a benchmark we do not ship, or whose data or references are not here)."""
    from execugraph.amplify.build import DEFAULT_PER_PROBLEM, amplify_benchmark
    from execugraph.amplify.references import reference_for
    from execugraph.benchmarks import (
        BenchmarkUnavailableError,
        UnknownBenchmarkError,
        canonical_name,
        file_benchmark_names,
        load_benchmark,
    )

    try:
        name = canonical_name(benchmark)
        if name in file_benchmark_names():  # read from a user's file: no bundled copy or references to build from
            return None
        problems = [p for p in load_benchmark(name) if p.id in wanted]
    except (UnknownBenchmarkError, BenchmarkUnavailableError):
        return None
    if not any(reference_for(p) for p in problems):
        return None
    suite = amplify_benchmark(pool, name, problems, per_problem=DEFAULT_PER_PROBLEM)
    for problem in suite.stored_problems():
        store.upsert_problem(problem)
    return suite.name


def reusable_child(store: Store, run_id: int, tests: str, policy: str) -> int | None:
    """The run's newest amplified rescore when it graded with `tests` (the same suite digest) in sandbox `policy`
    (as `verdict_sets.earlier_rescore` decides for the protocol rescores); None when it must be rescored. Only the
    newest counts: it is the one `suite_sensitivity` compares."""
    earlier = amplified_child(store, run_id)
    if earlier is None or earlier[1] != tests:
        return None
    for child_id, config in run_reads.finished_rescores(store, run_id):
        if child_id == earlier[0]:
            summary = config.get("rescore") or {}
            return child_id if str(summary.get("policy_version")) == policy else None
    return None


def _resolve(store: Store, run: StudyRun, runs: list[StudyRun], built: set[str], progress: Progress,
             get_pool: Callable[[], Any], base: float) -> tuple[JsonObject, str] | None:
    """The run's amplified suite, built (once per benchmark) when none is stored; None when none can be built.
    Raises LookupError/ValueError saying why it cannot be used."""
    from execugraph.amplify.stored import NoAmplifiedSuite, resolve_suite

    try:
        return resolve_suite(store, run.id, "amplified")
    except NoAmplifiedSuite:
        if run.benchmark in built:
            raise
    built.add(run.benchmark)
    progress.update("amplify", base, f"building amplified tests for {run.benchmark}")
    wanted = {p for r in runs if r.benchmark == run.benchmark for p in r.problems}
    if _build_suite(store, get_pool(), run.benchmark, wanted) is None:
        return None
    return resolve_suite(store, run.id, "amplified")


def amplify_runs(store: Store, runs: list[StudyRun], progress: Progress, get_pool: Callable[[], Any],
                 warnings: list[str]) -> dict[int, int]:
    """run id -> its child graded on the amplified suite (built when missing); a warning for each run left out."""
    from execugraph.verdicts import rescore_run
    from sandbox import POLICY_VERSION

    children: dict[int, int] = {}
    built: set[str] = set()
    for i, run in enumerate(runs):
        base = i / max(1, len(runs))
        try:
            found = _resolve(store, run, runs, built, progress, get_pool, base)
        except (LookupError, ValueError) as exc:
            warnings.append(f"{run.name}: not graded on amplified tests ({exc})")
            continue
        if found is None:
            command = f"python -m execugraph amplify --benchmark {run.benchmark or 'NAME'}"
            warnings.append(f"{run.name}: no amplified suite of {run.benchmark or 'its benchmark'} is stored "
                            f"and none can be built here (no references); run: {command}")
            continue
        benchmark_file, tests = found
        reused = reusable_child(store, run.id, tests, str(POLICY_VERSION))
        if reused is not None:
            children[run.id] = reused
            continue

        def advance(done: int, total: int, run: StudyRun = run, base: float = base) -> None:
            progress.update("amplify", base + (done / total if total else 1.0) / max(1, len(runs)),
                            f"rescoring {run.name} on amplified tests")

        report = rescore_run(store, run.id, pool=get_pool(), tests=tests, benchmark_file=benchmark_file,
                             on_progress=advance)
        children[run.id] = int(report.run_id or 0)
    progress.update("amplify", 1.0, "amplified rescoring done")
    return children


def _failing_inputs(store: Store, child_id: int) -> dict[tuple, str]:
    """(problem, condition, seed, trial index) -> the first test the child's grading failed (its call or name)."""
    out: dict[tuple, str] = {}
    for trial in store.trials_for_run(child_id):
        if trial.passed or trial.id is None:
            continue
        graded = [e for e in store.executions_for_trial(trial.id) if e.purpose == "grading"]
        results = list(graded[-1].results or []) if graded else []
        failed = next((t for t in results if not t.get("passed")), None)
        if failed is not None:
            text = failed.get("call") or failed.get("name") or ""
            out[(trial.problem_id, trial.condition, trial.seed, trial.trial_index)] = str(text)
    return out


def family_suites(store: Store, family: StudyFamily, children: dict[int, int], n_boot: int,
                  seed: int) -> JsonObject:
    """The family as run and under amplified tests (`suite_sensitivity`), named by the study, with failing inputs:
    the family section's `suites` in reproduce.json."""
    ids = [r.id for r in family.runs]
    names = {r.id: r.name for r in family.runs}
    found = suite_sensitivity(store, ids, family=family.stats_family(), n_boot=n_boot, seed=seed)
    if not found.available:
        return {"available": False, "missing": [names.get(m.run, str(m.run)) for m in found.missing],
                "comparisons": [], "changed": [], "changed_programs": 0}
    inputs = {r: _failing_inputs(store, children[r]) for r in ids if r in children}
    meta = runs_meta(run_reads.run_headers(store, ids))
    shown = {naming.shown_name(str(r), meta[str(r)]): names[r] for r in ids}  # `title #id` -> study name
    comparisons, changed, seen = [], [], set()
    for pair in found.pairs:
        pair_json = pair.model_dump()  # the JSON edge: reproduce.json
        comparisons.append({"a": naming.portable(pair.a, shown), "b": naming.portable(pair.b, shown),
                            "original": pair_json["by_set"][AS_RUN],
                            "amplified": pair_json["by_set"][AMPLIFIED],
                            "conclusion": naming.portable(pair_json["conclusion"], shown),
                            "holds": bool(pair.same_conclusion)})
        for c in pair_json["changed"]:
            key = (c["run"], c["problem_id"], c["condition"], c["seed"], c["trial_index"])
            if key in seen:
                continue
            seen.add(key)
            changed.append({"run": names.get(c["run"], str(c["run"])), "problem_id": c["problem_id"],
                            "condition": c["condition"], "seed": c["seed"], "trial_index": c["trial_index"],
                            "original": c[AS_RUN], "amplified": c[AMPLIFIED],
                            "failing_input": inputs.get(c["run"], {}).get(key[1:], "")})
    return {"available": True, "suites": found.suites, "holm_family_size": found.holm_family_size,
            "comparisons": comparisons, "changed": changed, "changed_programs": len(changed)}


def suite_tables(section: JsonObject) -> list[Table]:
    """"Conclusions under stronger tests" and "Programs the stronger tests fail" (capped, with a note)."""
    suites = section.get("suites")
    if not suites or not suites["available"]:
        return []
    slug, name = section["slug"], section["name"]
    rows = []
    for c in suites["comparisons"]:
        row: dict[str, object] = {"a": c["a"], "b": c["b"]}
        for key in ("original", "amplified"):
            v = c[key]
            row[f"delta_{key}"], row[f"ci_{key}"] = v.get("delta_pp"), (v.get("ci_lo"), v.get("ci_hi"))
            row[f"p_{key}"] = v.get("p_holm")
        row["holds"] = "yes" if c["holds"] else "no"
        rows.append(row)
    columns = [Column("a", "A"), Column("b", "B")]
    for key, words in (("original", "original tests"), ("amplified", "amplified tests")):
        columns += [Column(f"delta_{key}", f"Delta {words} (pp)", PP), Column(f"ci_{key}", f"95% CI {words}", CI_PP),
                    Column(f"p_{key}", f"p Holm {words}", P)]
    columns.append(Column("holds", "Holds", TEXT))
    tables = [Table(f"{slug}-amplified-conclusions", f"{name}: Conclusions under stronger tests", columns, rows,
                    ["Holds: the same direction and the same side of the threshold after Holm under the amplified "
                     f"tests ({', '.join(suites['suites'])}) as under the original ones."])]
    changed = suites["changed"]
    if changed:
        shown = [{**c, "trial": f"seed {c['seed']} trial {c['trial_index']}"} for c in changed[:MAX_CHANGED_ROWS]]
        notes = ["Each program whose verdict differs between the original and the amplified tests, with the first "
                 "amplified input it failed."]
        if len(changed) > MAX_CHANGED_ROWS:
            notes.append(f"{len(changed) - MAX_CHANGED_ROWS} more not shown; reproduce.json lists all {len(changed)}.")
        cols = [Column("run", "Run"), Column("problem_id", "Problem"), Column("condition", "Condition"),
                Column("trial", "Trial"), Column("original", "Original tests"), Column("amplified", "Amplified tests"),
                Column("failing_input", "Failing input")]
        tables.append(Table(f"{slug}-amplified-changed", f"{name}: Programs the stronger tests fail", cols,
                            shown, notes))
    return tables


def suite_figure(section: JsonObject) -> go.Figure | None:
    """A forest of each comparison's delta and CI under the original and the amplified tests (as the protocol
    figure shows the protocols); None when the family has no amplified comparison to draw."""
    from execugraph.figures import charts
    from execugraph.stats.paired import ALPHA

    suites = section.get("suites") or {}
    rows = []
    for c in suites.get("comparisons", []) if suites.get("available") else []:
        for key, words in (("original", "original tests"), ("amplified", "amplified tests")):
            v = c.get(key) or {}
            if all(isinstance(v.get(k), int | float) for k in ("delta_pp", "ci_lo", "ci_hi")):
                rows.append({**v, "label": f"{c['b']} − {c['a']} · {words}"})
    if not rows:
        return None
    return charts.forest(rows, title=f"Each comparison under the original and the amplified tests (pp, 95% CI; "
                                     f"pink: Holm p < {ALPHA:g})")

