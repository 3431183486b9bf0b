"""The Batch page and LLM endpoints: the waiting line of a running batch, the form's fault settings, and the
pre-flight refusal of an `openai:` model whose server cannot be reached."""

from __future__ import annotations

from execugraph.batch.control import enqueue_batch
from execugraph.batch.spec import BatchSpec
from execugraph.benchmarks import load_benchmark
from execugraph.providers.outages import waiting_line
from execugraph.safety.inert_text import md_text
from execugraph.store import utcnow
from tests.ui.conftest import no_exception
from ui.keys import Batch


def test_a_waiting_batch_shows_its_waiting_line(app, db_store):
    spec = BatchSpec(conditions=["single-oneshot"], subset=1, default_model="ollama:m")
    run_id = enqueue_batch(db_store, spec, load_benchmark("internal30"))
    db_store.update_run(run_id, status="running", worker_id="w", heartbeat_at=utcnow(), started_at=utcnow())
    since = utcnow()
    db_store.note_endpoint_down(run_id, "http://gpu1:11434", since, "ConnectError: refused")
    at = app("batch")
    no_exception(at)
    warnings = [str(w.value) for w in at.warning]
    assert md_text(waiting_line("http://gpu1:11434", since)) in warnings, warnings  # shown as written, not linked
    db_store.note_endpoint_up(run_id, "http://gpu1:11434")
    at.run()
    assert not [w for w in at.warning if "waiting:" in str(w.value)]


def test_outage_budget_and_read_timeout_from_the_form_are_stored(app, db_store):
    at = app("batch")
    at.multiselect(key=Batch.CATEGORIES).set_value(["dp"])
    at.number_input(key=Batch.SUBSET).set_value(1)
    at.multiselect(key=Batch.CONDITIONS).set_value(["single-oneshot"])
    at.number_input(key=Batch.OUTAGE_BUDGET_MIN).set_value(2.5)
    at.number_input(key=Batch.LLM_TIMEOUT_S).set_value(120.0)
    at.run()
    at.button(key=Batch.LAUNCH).click().run()
    no_exception(at)
    run = db_store.get_run(at.session_state[Batch.LAUNCHED])
    assert run.config["batch"]["outage_budget_s"] == 150.0 and run.config["batch"]["llm_timeout_s"] == 120.0
    config = run.config["conditions"]["single-oneshot"]
    assert config["outage_budget_s"] == 150.0 and config["llm_timeout_s"] == 120.0


def test_an_unreachable_openai_server_blocks_the_launch(app, db_store):
    at = app("batch", state={Batch.DEFAULT_MODEL: "openai:qwen-coder"})
    at.multiselect(key=Batch.CATEGORIES).set_value(["dp"])
    at.number_input(key=Batch.SUBSET).set_value(1)
    at.multiselect(key=Batch.CONDITIONS).set_value(["single-oneshot"])
    at.run()
    at.button(key=Batch.LAUNCH).click().run()
    no_exception(at)
    errors = [str(e.value) for e in at.error]
    assert any("openai:qwen-coder" in e and "OpenAI-compatible server not reachable at http://127.0.0.1:9/v1" in e
               and "EXECUGRAPH_OPENAI_BASE_URL" in e for e in errors), errors
    assert at.session_state[Batch.LAUNCHED] is None and db_store.list_runs(kind="batch") == []
