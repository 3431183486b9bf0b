"""The Synthesize live view says how long the running step (and the whole synthesis) has taken."""

from __future__ import annotations

from execugraph.configuration.conditions import resolve_condition
from execugraph.workflow.single import adhoc_problem
from ui.jobs import SynthesisJob


def test_working_line_shows_elapsed_time_of_long_steps():
    job = SynthesisJob(None, adhoc_problem("Read n, print 2n."), resolve_condition("single-oneshot"))  # type: ignore[arg-type]
    assert job.working_line() == "the workflow is working..."
    job._emit({"type": "trial_started", "trial_id": 1, "problem_id": "p", "condition": "single-oneshot"})
    job._emit({"type": "node_started", "trial_id": 1, "node": "generator", "attempt": 0})
    started = job._node_started_at
    assert started is not None
    job.started_at = started - 0.2
    assert job.working_line(now=started + 0.5) == "generator is working..."  # short steps say nothing more
    job.started_at = started - 3.0
    assert job.working_line(now=started + 42.0) == "generator is working... 42.0 s in this step, 45.0 s in all"
    assert job.working_line(now=started + 185.0).startswith("generator is working... 3 min 05 s in this step")
    job._emit({"type": "node_finished", "trial_id": 1, "node": "generator", "attempt": 0, "step_id": 1,
               "output": {}})
    assert job.elapsed(now=started + 50.0)[0] is None
    assert job.working_line(now=started + 50.0) == "the workflow is working... 53.0 s in all"
