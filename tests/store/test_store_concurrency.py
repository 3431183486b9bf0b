"""A worker process writing while the dashboard reads: no "database is locked", no lost or duplicate steps."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from execugraph.store import Store, utcnow
from tests.support.trace_rows import add_step

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]

# Runs in a separate Python process, like a batch worker: its own engine, its own connections.
WRITER = r"""
import sys
from execugraph.store import Store
from tests.support.trace_rows import add_step, finish_step

url, trial_id, count, name = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
with Store.open(url) as store:
    for i in range(count):
        step = add_step(store, trial_id, "generator", attempt=i, output={"writer": name, "i": i})
        store.add_llm_call(trial_id, step, role="generator", messages=[{"role": "user", "content": f"{name} {i}"}],
                           response="x" * 500, tokens_in=i, tokens_out=1)
        finish_step(store, step, output={"writer": name, "i": i, "done": True})
        store.update_trial(trial_id, llm_calls=i + 1)
print(f"{name} wrote {count}")
"""

OPENER = r"""
import sys
from execugraph.store import Store
with Store.open(sys.argv[1]) as store:
    store.create_run("single", sys.argv[2], {})
    print(store.schema_version())
"""


def _spawn(*args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, "-c", *args], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def _finish(proc: subprocess.Popen[str]) -> str:
    out, err = proc.communicate(timeout=240)
    assert proc.returncode == 0, f"writer failed ({proc.returncode}):\n{err}"
    assert "locked" not in err
    return out


def _read_until_done(store: Store, run_id: int, trial_id: int, writers: list[subprocess.Popen[str]]) -> int:
    """Poll like the dashboard (and heartbeat like a supervisor) until the writers exit; return reads made."""
    last_steps = last_calls = 0
    reads = 0
    while any(w.poll() is None for w in writers):
        steps = store.steps_for_trial(trial_id)
        calls = store.llm_calls_for_trial(trial_id)
        progress = store.run_progress(run_id)
        assert len(steps) >= last_steps and len(calls) >= last_calls, "a committed row disappeared"
        assert [s.seq for s in steps] == list(range(1, len(steps) + 1)), "seq has gaps or duplicates"
        assert progress["total"] == 1 and store.list_runs(limit=5)
        last_steps, last_calls = len(steps), len(calls)
        store.update_run(run_id, heartbeat_at=utcnow())  # a competing write from this process
        reads += 1
        time.sleep(0.005)  # poll like a UI, leaving the writers CPU on a 2-core machine
    return reads


def test_writer_process_and_reader_loop(store: Store, db_url: str) -> None:
    run_id = store.create_run("batch", "concurrency", {})
    trial_id = store.create_trial(run_id, "p", "multi-full", 0, 0)
    count = 150
    writer = _spawn(WRITER, db_url, str(trial_id), str(count), "w1")
    reads = _read_until_done(store, run_id, trial_id, [writer])
    assert "w1 wrote 150" in _finish(writer)
    assert reads > 5, "the reader never overlapped the writer"

    steps = store.steps_for_trial(trial_id)
    assert [s.seq for s in steps] == list(range(1, count + 1))
    assert [s.output["i"] for s in steps] == list(range(count))
    assert all(s.output["done"] and s.ended_at is not None for s in steps)
    assert len(store.llm_calls_for_trial(trial_id)) == count
    assert store.get_trial(trial_id).llm_calls == count


def test_two_writer_processes_on_one_trial_never_share_a_seq(store: Store, db_url: str) -> None:
    run_id = store.create_run("batch", "two writers", {})
    trial_id = store.create_trial(run_id, "p", "multi-full", 0, 0)
    count = 80
    writers = [_spawn(WRITER, db_url, str(trial_id), str(count), name) for name in ("a", "b")]
    _read_until_done(store, run_id, trial_id, writers)
    for w in writers:
        _finish(w)
    steps = store.steps_for_trial(trial_id)
    assert [s.seq for s in steps] == list(range(1, 2 * count + 1))
    for name in ("a", "b"):
        mine = [s.output["i"] for s in steps if s.output["writer"] == name]
        assert mine == list(range(count)), f"writer {name}'s steps are out of order or lost"


def test_processes_opening_a_fresh_database_at_once_migrate_it_once(db_url: str) -> None:
    openers = [_spawn(OPENER, db_url, f"opener {i}") for i in range(3)]
    versions = {_finish(p).strip() for p in openers}
    with Store.open(db_url) as store:
        assert versions == {store.schema_version()}
        assert sorted(r.title for r in store.list_runs()) == [f"opener {i}" for i in range(3)]


def test_killed_writer_loses_at_most_the_step_in_flight(store: Store, db_url: str) -> None:
    run_id = store.create_run("batch", "crash", {})
    trial_id = store.create_trial(run_id, "p", "multi-full", 0, 0)
    writer = _spawn(WRITER, db_url, str(trial_id), "100000", "doomed")
    deadline = time.monotonic() + 120
    while len(store.steps_for_trial(trial_id)) < 30:
        assert writer.poll() is None, writer.communicate()[1]
        assert time.monotonic() < deadline, "writer made no progress"
        time.sleep(0.01)
    writer.send_signal(signal.SIGKILL)  # no cleanup, no rollback from the client side
    writer.wait(timeout=30)

    steps = store.steps_for_trial(trial_id)
    assert [s.seq for s in steps] == list(range(1, len(steps) + 1))
    calls = {c.step_id for c in store.llm_calls_for_trial(trial_id)}
    # Every step before the last one is complete; only the one in flight may lack its LLM call or end.
    for step in steps[:-1]:
        assert step.id in calls and step.ended_at is not None and step.output["done"]
    if store.engine.dialect.name == "sqlite":
        with store.engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA integrity_check").scalar() == "ok"
    # Nothing is left locked: a new writer carries on numbering where the dead one stopped.
    next_step = add_step(store, trial_id, "generator")
    assert store.steps_for_trial(trial_id)[-1].id == next_step
    assert store.steps_for_trial(trial_id)[-1].seq == len(steps) + 1


def test_threads_share_one_store(store: Store) -> None:
    run_id = store.create_run("batch", "threads", {})
    trial_id = store.create_trial(run_id, "p", "c", 0, 0)
    errors: list[BaseException] = []

    def work(worker: int) -> None:
        try:
            for i in range(20):
                step = add_step(store, trial_id, f"node{worker}", attempt=i)
                store.add_execution(trial_id, step, code=f"{worker}:{i}")
                store.steps_for_trial(trial_id)
        except BaseException as exc:  # collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(6)]
    start = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors
    assert time.monotonic() - start < 120
    assert [s.seq for s in store.steps_for_trial(trial_id)] == list(range(1, 121))
    assert len(store.executions_for_trial(trial_id)) == 120
