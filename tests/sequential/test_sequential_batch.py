"""Sequential batches: a strong effect stops at an early look, none stops for futility, what stopped is recorded.

Real batches on the real sandbox and store, with a stand-in Ollama server whose answers make
the effect: first attempts are wrong and a retry's (the prompt carries the failure) is right,
so single-retry beats single-oneshot on every problem; or every answer is right (no effect).
"""

from __future__ import annotations

import json

import pytest

from execugraph.batch.control import enqueue_batch
from execugraph.batch.runner import Worker
from execugraph.batch.spec import BatchSpec
from execugraph.cli import main
from execugraph.sequential.design import SequentialDesign
from execugraph.sequential.monitor import STATE_KEY
from execugraph.sequential.rule import first_stop
from execugraph.store import Store
from execugraph.workflow.trial import TrialDeps
from standins.ollama_server import OllamaStandIn, scripted_responder
from standins.scripted import fenced
from tests.batch.test_runner import GOOD, MODEL, problems, spec

pytestmark = pytest.mark.integration

BAD = fenced("def double(x):\n    return x + 2\n")
PROBLEMS = 20
DESIGN = SequentialDesign(looks=5, rule="obf-mdd")  # looks at 4, 8, 12, 16 and 20 problems; the old rule


def retry_wins(model: str, messages: list, options: dict) -> str:
    """Wrong at first, right once the prompt holds a failed attempt (a retry)."""
    return GOOD if len(messages) > 2 or any("fail" in str(m.get("content", "")).lower() for m in messages[1:]) else BAD


def run_batch(store: Store, responder, pool) -> tuple[int, dict]:
    run_id = enqueue_batch(store, spec(seeds=[0], sequential=DESIGN, concurrency=1), problems(PROBLEMS))
    with OllamaStandIn(responder=responder, models=[MODEL], latency_s=0.0) as server:
        worker = Worker(store, deps_factory=lambda: TrialDeps(pool=pool, ollama_host=server.url))
        worker.run_forever(poll_s=0.05, exit_when_idle=True)
    run = store.get_run(run_id)
    return run_id, run.config[STATE_KEY]


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """The CLI in this process (what it prints is under test here, not its start-up): exit code, stdout, stderr."""
    capsys.readouterr()
    try:
        code = main(list(args))
    except SystemExit as stop:  # argparse's own refusals
        code = stop.code if isinstance(stop.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def pool():
    from sandbox import SandboxPool

    with SandboxPool(workers=1) as pool:
        yield pool


def test_a_strong_effect_stops_at_an_early_look_and_saves_the_rest(sqlite_store: Store, pool, capsys) -> None:
    store = sqlite_store
    run_id, state = run_batch(store, retry_wins, pool)
    arm = state["arms"]["single-retry"]
    # every difference is +1, so Z = sqrt(n): 2.0 and 2.83 miss the first two bounds (4.88, 3.36), 3.46 >= 2.68
    assert arm["decision"] == "efficacy" and arm["stopped_at_look"] == 3
    third = arm["looks"][-1]
    assert third["problems"] == 12 and third["z"] == pytest.approx(12**0.5)
    assert third["delta"] == 1.0 and third["ci_low"] > 0 and 0 < third["p_repeated"] < 0.05
    assert [look["decision"] for look in arm["looks"]] == ["continue", "continue", "efficacy"]
    assert state["stopped"] is True
    trials = store.trials_for_run(run_id)
    done = [t for t in trials if t.status == "done"]
    cancelled = [t for t in trials if t.status == "cancelled"]
    assert len(done) + len(cancelled) == len(trials) == 2 * PROBLEMS
    # looks are throttled to a share of the time, so on a loaded machine a problem or two past the look may run
    assert state["saved_trials"] == len(cancelled) >= 2 * (PROBLEMS - 15)
    order = store.get_run(run_id).config["order"]["problems"]
    assert {t.problem_id for t in done} <= set(order[:15])
    assert store.get_run(run_id).status == "done"
    # the stored look is the rule's own, recomputed from the stored verdicts
    by = {(t.problem_id, t.condition): float(bool(t.passed)) for t in done}
    diffs = [by[(p, "single-retry")] - by[(p, "single-oneshot")] for p in order[:12]]
    again = first_stop(diffs, design=DESIGN, mdd=state["mdd"], planned=PROBLEMS)
    assert again.decision == "efficacy" and again.look == 3

    db = store.url.removeprefix("sqlite:///")
    code, shown, err = cli(capsys, "--db", db, "status", str(run_id))
    assert code == 0, err
    assert "sequential: stopped at look 3 of 5" in shown and "single-retry vs single-oneshot" in shown
    assert f"{state['saved_trials']} trials saved" in shown
    code, as_json, err = cli(capsys, "--db", db, "status", "--json", str(run_id))
    row = json.loads(as_json)[0]
    assert row["sequential"]["arms"]["single-retry"]["decision"] == "efficacy"

    code, stats, err = cli(capsys, "--db", db, "stats", "--runs", str(run_id))
    assert code == 0, err
    assert "Sequential batches (the paired p-values above ignore the interim looks" in stats
    assert f"run {run_id}: sequential: stopped at look 3 of 5" in stats
    code, report, err = cli(capsys, "--db", db, "report", "--runs", str(run_id))
    assert code == 0, err
    line = next(x for x in report.splitlines() if "single-retry vs single-oneshot" in x)
    assert "efficacy" in line and "3 of 5" in line and "+100.0" in line, line


def test_no_effect_stops_for_futility(sqlite_store: Store, pool) -> None:
    run_id, state = run_batch(sqlite_store, scripted_responder([GOOD], cycle=True), pool)
    arm = state["arms"]["single-retry"]
    assert arm["decision"] == "futility"
    assert all(look["delta"] == 0 and look["z"] == 0 for look in arm["looks"])
    last = arm["looks"][-1]
    assert last["conditional_power"] < DESIGN.futility_threshold <= arm["looks"][-2]["conditional_power"]
    assert arm["stopped_at_look"] < 5 and state["saved_trials"] > 0


def test_a_sequential_batch_must_be_paired_and_name_a_baseline_it_runs() -> None:
    with pytest.raises(ValueError, match="paired order"):
        spec(sequential=DESIGN, order="condition-major")
    with pytest.raises(ValueError, match="at least two"):
        spec(sequential=DESIGN, conditions=["single-oneshot"])
    with pytest.raises(ValueError, match="baseline 'multi-full' is not one of"):
        spec(sequential=SequentialDesign(baseline="multi-full"))
    assert isinstance(spec(sequential=DESIGN), BatchSpec)


def test_design_flags_without_sequential_are_refused_in_one_line(tmp_path, capsys) -> None:
    db = str(tmp_path / "runs.db")
    code, _, refused = cli(capsys, "--db", db, "batch", "--looks", "5", "--mdd", "20")
    assert code == 2 and "--looks, --mdd only apply with --sequential" in refused
    assert "Traceback" not in refused
    code, _, bad = cli(capsys, "--db", db, "batch", "--sequential", "--mdd", "300")
    assert code == 2 and bad.strip() == "batch: --mdd is in percentage points, within (0, 100]; got 300"
    code, _, other = cli(capsys, "--db", db, "batch", "--sequential", "--baseline", "nope")
    assert code == 2 and other.strip() == (
        "batch: sequential baseline 'nope' is not one of the batch's conditions (single-oneshot, single-retry, "
        "multi-full)")
