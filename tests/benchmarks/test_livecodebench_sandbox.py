"""LiveCodeBench problems graded in the REAL sandbox reach lcb_runner's verdicts: every fixture program's
published `graded_list` verdict under `with-prompt` (its import block first), and the programs that lean on
that block (`List` in LeetCode's starter code, a bare `gcd`) fail `standalone`."""

from __future__ import annotations

import pytest

from execugraph.benchmarks import load_benchmark
from execugraph.grading.rules import build_suite
from tests.support import livecodebench_files as lf

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def pool():
    from sandbox import SandboxPool

    with SandboxPool() as shared:
        yield shared


@pytest.fixture(scope="module")
def problems():
    return {p.id: p for p in load_benchmark("livecodebench", path=str(lf.FIXTURES / "problems.jsonl"))}


def _grade(pool, problems, protocol: str, jobs: list[tuple[str, str]]) -> list[bool]:
    from sandbox import Limits

    results = pool.run_many([(code, build_suite(problems[pid], problems[pid].tests, protocol),
                              Limits(timeout_s=6.0)) for pid, code in jobs])
    return [r.passed for r in results]


def test_with_prompt_reaches_every_published_verdict(pool, problems) -> None:
    jobs, published = [], []
    for model in ("ModelA", "ModelB"):
        for entry in lf.eval_all(model):
            for code, verdict in zip(entry["code_list"], entry["graded_list"], strict=True):
                jobs.append((f"lcb_{entry['question_id']}", code))
                published.append(verdict)
    assert _grade(pool, problems, "with-prompt", jobs) == published


def test_standalone_runs_the_program_without_livecodebenchs_import_block(pool, problems) -> None:
    jobs = [("lcb_3400", lf.TWO_SUM), ("lcb_abc999_a", lf.SUM_GCD), ("lcb_abc999_a", lf.SUM_RIGHT),
            ("lcb_3401", lf.PALINDROME)]
    assert _grade(pool, problems, "standalone", jobs) == [False, False, True, True]


def test_the_lcb_rule_decides_what_the_default_stdio_rule_would_fail(pool, problems) -> None:
    mid = problems["lcb_1999_A"]
    plain = mid.model_copy(update={"tests": [{k: v for k, v in t.items() if k != "compare"} for t in mid.tests]})
    jobs = {"lcb_1999_A": mid, "plain": plain}
    from sandbox import Limits

    results = pool.run_many([(lf.MIDPOINT_RIGHT, build_suite(p, p.tests, "standalone"), Limits(timeout_s=6.0))
                             for p in jobs.values()])
    assert [r.passed for r in results] == [True, False]
    assert results[1].tests[0].verdict == "wrong_answer"


def test_batch_runs_a_livecodebench_problem_file_end_to_end(tmp_path) -> None:
    import json
    import os
    import subprocess
    import sys

    from execugraph.configuration.settings import PROJECT_ROOT
    from standins.ollama_server import OllamaStandIn, scripted_responder

    answer = f"```python\n{lf.SUM_GCD}\n```"  # passes only with lcb_runner's import block (gcd)
    with OllamaStandIn(responder=scripted_responder([answer], cycle=True), models=["m"]) as server:
        env = os.environ | {"OLLAMA_HOST": server.url, "EXECUGRAPH_DB": str(tmp_path / "cli.db")}
        done = subprocess.run(
            [sys.executable, "-m", "execugraph", "batch", "--benchmark", "livecodebench", "--benchmark-path",
             str(lf.FIXTURES / "problems.jsonl"), "--problems", "lcb_abc999_a", "--conditions", "single-oneshot",
             "--seeds", "0-1", "--model", "ollama:m", "--grading-protocol", "with-prompt", "--wait"],
            cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert lines[0]["trials"] == 2 and lines[-1]["status"] == "done"
    from execugraph.store import Store

    with Store.open(str(tmp_path / "cli.db")) as store:
        trials = store.trials_for_run(lines[0]["run_id"])
    assert [(t.problem_id, t.category, t.passed) for t in trials] == [("lcb_abc999_a", "atcoder", True)] * 2
