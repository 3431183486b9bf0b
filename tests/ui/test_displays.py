"""The small displays that misled: each one as the page now shows it, driven through AppTest on real runs.

Model label once; an unparsed agent reply marked as such with the raw text; cache hits on the step; durations
in ms/s; traceback line numbers that refer to the program shown; the explanation collapsed and bounded;
EXECUGRAPH_MODEL as every picker's default; the sandbox line in the health panel.
"""

from __future__ import annotations

import json

from execugraph.providers.health import Check
from standins.scripted import fenced, scripted
from tests.ui.conftest import no_exception, texts
from ui.keys import TEST_CHAT_MODELS, Batch, Synthesize
from ui.views import bounded_explanation, duration, map_traceback, model_label
from ui.views import test_result_rows as result_rows
from ui.views.health import health_lines

GOOD = "def add(a, b):\n    return a + b\n"
BROKEN = "def add(a, b):\n    total = a + b\n    return total + missing_name\n"


def _synthesize(app, condition: str = "multi-full", **replies: list[str]):
    """Run one ad-hoc problem through the real graph and sandbox with scripted models; the page after it ended."""
    at = app("synthesize")
    at.session_state[TEST_CHAT_MODELS] = scripted(**replies)
    at.session_state[Synthesize.TEST_ROWS_DATA] = [{"call": "add(1, 2)", "expected": "3", "visible": True}]
    at.run()
    at.text_area(key=Synthesize.STATEMENT).input("Return the sum of the integers a and b, as one number.")
    at.text_input(key=Synthesize.ENTRY_POINT).input("add")
    at.selectbox(key=Synthesize.CONDITION).set_value(condition)
    at.button(key=Synthesize.SUBMIT).click().run()
    job = at.session_state[Synthesize.JOB]
    assert job is not None and job.wait(120) and job.error is None, job and job.error
    at.run()
    no_exception(at)
    return at, job


def test_an_unparsed_review_is_marked_and_its_raw_text_shown(app, db_store):
    prose = "Honestly this looks fine to me, nothing to add."
    at, job = _synthesize(
        app,
        planner=["add them"],
        generator=[fenced(GOOD)],
        reviewer=[prose],
        optimizer=[fenced(GOOD)],
        explainer=["Adds."],
    )
    labels = [e.label for e in at.expander]
    assert any(label.startswith("#3 reviewer") and "reply not parsed" in label for label in labels), labels
    assert not any(label.startswith("#3 reviewer") and "severity low" in label for label in labels)
    warnings = texts(at, "warning")
    assert any("could not be read as a review" in w for w in warnings), warnings
    assert any(c.value == prose for c in at.code)  # the reply exactly as the model wrote it
    assert any("(assumed, not in the reply)" in m for m in texts(at, "markdown"))
    step = next(s for s in db_store.steps_for_trial(job.result.trial_id) if s.node == "reviewer")
    assert step.output["parsed_ok"] is False


def test_the_explanation_is_collapsed_and_bounded(app):
    looping = "It adds a and b. " * 120 + "Then it returns the total."
    at, _ = _synthesize(app, planner=["add"], generator=[fenced(GOOD)], reviewer=["{}"], optimizer=[fenced(GOOD)],
                        explainer=[looping])
    explanation = next(e for e in at.expander if e.label == "Explanation")
    assert explanation.proto.expanded is False  # collapsed, under the program, above nothing else
    shown = [m.value for m in explanation.markdown]
    assert shown == ["It adds a and b. Then it returns the total."]
    assert any("119 repeated sentence(s) dropped" in c.value for c in explanation.caption)
    text, note = bounded_explanation("word " * 2000)
    assert len(text) <= 1504 and "shortened from" in note


def test_tracebacks_refer_to_the_program_shown(app):
    at, _ = _synthesize(app, condition="single-oneshot", generator=[fenced(BROKEN)])
    tables = [d.value for d in at.dataframe if "stderr" in d.value.columns]
    assert tables, [d.value.columns for d in at.dataframe]
    trace = tables[0]["stderr"][0]
    assert 'File "<candidate>", line 3' in trace and BROKEN.splitlines()[2].strip() in trace  # line 3 is that line
    assert "[test code, not the program]" in trace  # the test expression's frame is not a program line
    assert any("refer to the program as it ran" in c for c in texts(at, "caption"))
    assert sum(c.value.strip() == BROKEN.strip() for c in at.code) >= 2  # generator step + numbered program run
    assert all("e-0" not in str(v) and ("ms" in str(v) or " s" in str(v)) for v in tables[0]["duration_s"])


def test_a_harness_traceback_is_renumbered_to_the_program():
    program = "def first(xs):\n    return xs[0]\n"
    stderr = (
        "Traceback (most recent call last):\n"
        '  File "/tmp/harness_1.py", line 41, in <module>\n'
        "    check(first)\n"
        '  File "/tmp/harness_1.py", line 12, in first\n'
        "    return xs[0]\n"
        "IndexError: list index out of range"
    )
    mapped = map_traceback(stderr, program).splitlines()
    assert mapped[1].endswith("[not in the program shown]")
    assert mapped[3] == '  File "<program>", line 2, in first  [was /tmp/harness_1.py, line 12]'
    assert map_traceback('  File "<candidate>", line 2, in first', program) == '  File "<candidate>", line 2, in first'


def test_durations_read_in_ms_and_s():
    assert [duration(x) for x in (9.989899990614504e-05, 0.0021, 0.85, 12.34, 245.0, None)] == [
        "0.10 ms",
        "2 ms",
        "850 ms",
        "12.3 s",
        "4 min 05 s",
        "—",  # a missing number reads as an em dash on every surface
    ]
    assert duration(float("nan")) == "—"
    rows = result_rows([{"name": "t", "passed": True, "duration_s": 9.989899990614504e-05}])
    assert rows[0]["duration_s"] == "0.10 ms"


def test_trace_shows_the_model_once_cache_hits_on_the_step_and_readable_durations(app, seeded_db, db_store):
    retried = next(
        t for t in db_store.trials_for_run(seeded_db.batch) if t.condition == "multi-full" and t.retries_used == 1
    )
    at = app("trace", trial=str(retried.id))
    no_exception(at)
    labels = [e.label for e in at.expander]
    second = [label for label in labels if " attempt 1" in label and ("generator" in label or "reviewer" in label)]
    assert second and all(label.endswith("cache hit") for label in second), labels  # the seed cached attempt 1
    first = [label for label in labels if " attempt 0" in label and "generator" in label]
    assert first and not first[0].endswith("cache hit") and first[0].endswith("3.4 s")
    captions = texts(at, "caption")
    calls = [c for c in captions if c.startswith("LLM call")]
    assert calls and all("llamacpp:default" in c and "llamacpp:llamacpp" not in c for c in calls)
    assert any("cache hit (answered from the response cache" in c for c in calls)
    assert model_label("llamacpp", "llamacpp:default") == model_label("llamacpp", "default") == "llamacpp:default"


def test_every_model_picker_starts_from_execugraph_model(app, monkeypatch):
    monkeypatch.setenv("EXECUGRAPH_MODEL", "ollama:qwen2.5-coder:7b")
    at = app("synthesize")
    assert at.selectbox(key=Synthesize.DEFAULT_MODEL).value == "ollama:qwen2.5-coder:7b"
    at.switch_page("pages/batch.py").run()
    no_exception(at)
    assert at.selectbox(key=Batch.DEFAULT_MODEL).value == "ollama:qwen2.5-coder:7b"
    assert "llamacpp:default" in at.selectbox(key=Batch.DEFAULT_MODEL).options  # the embedded one stays offered


def test_the_health_panel_always_has_a_sandbox_line(app):
    at = app("synthesize")
    names = [str(m.value) for m in at.sidebar.markdown]
    assert any("Sandbox: " in n and "layers" in n for n in names), names  # the compact line (test_sidebar_health)
    assert any("isolation layers active" in str(c.value) for c in at.sidebar.caption)
    folded = health_lines([Check("database", "ok", "x"), Check("sandbox: seccomp", "ok", "active"),
                           Check("sandbox: landlock_fs", "warn", "unavailable", "run as root")])
    assert [(c.name, c.level) for c in folded] == [("database", "ok"), ("sandbox", "warn"), ("sandbox: landlock_fs", "warn")]
    assert folded[1].detail == "1 of 2 isolation layers active; not active: landlock_fs"
    assert json.dumps([c.to_dict() for c in folded])
