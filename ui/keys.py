"""Every session-state key the dashboard uses, and their defaults, in one place.

Widgets take their `key=` from here (tests drive them by the same constants),
and their starting values come from `DEFAULTS` through `init_state()` rather
than `value=` arguments, so a value survives reruns and is easy to preset.

Test hook (the only one): `TEST_CHAT_MODELS`. When the session holds a dict
role -> LangChain chat model under this key, Synthesize passes it to the trial
as `TrialDeps(chat_models=...)` instead of building real providers. Nothing in
the product sets it; tests (`tests/ui/`) do, with scripted models.
"""

from __future__ import annotations

import copy
from typing import Any

from execugraph.configuration.settings import default_model
from execugraph.domain.config import ROLES
from ui.views.form_input import CONDITION_DEFAULT, TEST_MODES

TEST_CHAT_MODELS = "test.chat_models"

SELECTED_RUNS = "shared.selected_runs"  # run ids picked on the Runs page, offered to the analysis pages
SAME_AS_DEFAULT = "(same as default)"


class Synthesize:
    """Synthesize page."""

    PICK_BENCHMARK = "syn.pick_benchmark"  # the benchmark-problem picker: benchmark, then problem id
    PICK_PROBLEM = "syn.pick_problem"
    STATEMENT = "syn.statement"
    ENTRY_POINT = "syn.entry_point"
    ALIASES = "syn.aliases"
    SIGNATURE = "syn.signature"
    TESTS_MODE = "syn.tests_mode"
    TEST_ROWS = "syn.test_rows"  # the data_editor widget
    TEST_ROWS_DATA = "syn.test_rows_data"  # the rows it starts from (not a widget)
    ASSERT_SOURCE = "syn.assert_source"
    ASSERT_CALL = "syn.assert_call"
    CONDITION = "syn.condition"
    DEFAULT_MODEL = "syn.default_model"
    ROLE_MODEL = "syn.model."  # + role
    RETRY_BUDGET = "syn.retry_budget"
    RETRIEVAL = "syn.retrieval"
    FEEDBACK = "syn.feedback"
    TIMEOUT = "syn.timeout"
    TITLE = "syn.title"
    SUBMIT = "syn.submit"
    JOB = "syn.job"  # the SynthesisJob in flight or last finished (not a widget)
    CLEAR = "syn.clear"


class Batch:
    """Batch page."""

    BENCHMARK = "batch.benchmark"
    UPLOAD = "batch.upload"
    CATEGORIES = "batch.categories"
    SUBSET = "batch.subset"
    SUBSET_SEED = "batch.subset_seed"
    CONDITIONS = "batch.conditions"
    SEEDS = "batch.seeds"
    PRUNED_FOR = "_batch.pruned_for"  # the kept upload after which old unreferenced ones were deleted (not a widget)
    TRIALS = "batch.trials"
    DEFAULT_MODEL = "batch.default_model"
    ROLE_MODEL = "batch.model."  # + role
    MODEL_AXIS = "batch.model_axis"  # two or more models to compare (every condition on each); empty: one model
    CONCURRENCY = "batch.concurrency"
    ORDER = "batch.order"  # paired (problem by problem, seeded random order) or condition-major
    FEEDBACK = "batch.feedback"
    EXECUTOR = "batch.executor"
    RAY_ADDRESS = "batch.ray_address"
    OLLAMA_HOSTS = "batch.ollama_hosts"  # the LLM endpoints field (Ollama or OpenAI-compatible servers)
    OUTAGE_BUDGET_MIN = "batch.outage_budget_min"
    LLM_TIMEOUT_S = "batch.llm_timeout_s"
    TITLE = "batch.title"
    BASELINE = "batch.baseline"
    SEQUENTIAL = "batch.sequential"  # opt-in: stop each comparison once decided (execugraph.sequential)
    LOOKS = "batch.looks"
    SEQ_MDD = "batch.sequential_mdd"  # pp; 0: the plan's MDD
    LAUNCH = "batch.launch"
    START_WORKER = "batch.start_worker"
    CANCEL = "batch.cancel."  # + run id
    CANCEL_NOW = "batch.cancel_now."  # + run id
    RESUME = "batch.resume."  # + run id
    LAUNCHED = "batch.launched"  # id of the batch this session launched last (not a widget)
    SCROLL_TO = "_batch.scroll_to"  # id of a batch just launched: the page scrolls to its card once (not a widget)
    CARD = "batch_card_"  # + run id: the card's container key (its CSS class is st-key-batch_card_<id>)


class Runs:
    """Runs page."""

    KIND = "runs.kind"
    STATUS = "runs.status"
    BENCHMARK = "runs.benchmark"
    MODEL = "runs.model"
    TEXT = "runs.text"
    TAG = "runs.tag"
    DATES = "runs.dates"
    SELECT = "runs.select"
    DETAIL = "runs.detail"
    LINKED = "_runs.linked"  # the `?run=` value already applied to DETAIL (not a widget)
    RENAME = "runs.rename"
    RENAME_SAVE = "runs.rename_save"
    TAGS = "runs.tags"
    TAGS_SAVE = "runs.tags_save"
    MANAGE = "runs.manage"  # the "Rename, tag or delete" section (keyed: it stays open across the page's reruns)
    DELETE = "runs.delete"
    DELETE_CONFIRM = "runs.delete_confirm"
    DELETE_CANCEL = "runs.delete_cancel"
    PENDING_DELETE = "runs.pending_delete"  # id of the run whose deletion awaits confirmation (not a widget)
    NOTICE = "runs.notice"  # one-shot message shown after an action (not a widget)


class Trace:
    """Trace page."""

    RUN = "trace.run"
    CONDITION = "trace.condition"
    PROBLEM = "trace.problem"
    OUTCOME = "trace.outcome"
    TRIAL = "trace.trial"
    COMPARE = "trace.compare"
    TAB = "trace.tab"  # the open tab: only its content is drawn
    DIFF_FROM = "trace.diff_from"
    DIFF_TO = "trace.diff_to"


class Retrieval:
    """Retrieval page."""

    CATEGORY = "retr.category"
    EDIT = "retr.edit"
    FIELD = "retr.field."  # + Technique field name
    SAVE = "retr.save"
    QUERY = "retr.query"
    K = "retr.k"
    RECALL = "retr.recall"
    HEATMAP_RUN = "retr.heatmap_run"


class Ablations:
    """Ablations page."""

    RUNS = "abl.runs"  # run pickers have no default here: `widgets.run_picker` presets them
    REFERENCE = "abl.reference"
    COST_METRIC = "abl.cost_metric"
    TABLES = "abl.tables"  # the tables download (and its format choice, + ".format")


class Statistics:
    """Statistics page."""

    RUNS = "stats.runs"
    CONDITIONS = "stats.conditions"
    COMPARE = "stats.compare"  # ALL_PAIRS or the label of the baseline arm
    COMPARABLE_ONLY = "stats.comparable_only"
    PAIR = "stats.pair"
    DOWNLOAD = "stats.download"
    TABLES = "stats.tables"  # the tables download (and its format choice, + ".format")
    COST = "stats.cost"  # the cost the frontier, the matched budgets and the cost column are shown on


ALL_PAIRS = "(all pairs)"
AUTO = "(auto)"  # the comparison family is chosen from the number of arms until the user picks one


class Export:
    """Export / Import page."""

    RUNS = "export.runs"
    PREPARE = "export.prepare"
    BUNDLE = "export.bundle"  # ((run ids, include host), zip bytes, file names) of the last bundle (not a widget)
    BUNDLE_ERROR = "_export.bundle_error"  # why the last Prepare failed, shown once (not a widget)
    PARTS = "_export.parts"  # ((run ids, include host), config file, logs zip) of the last bundle (not a widget)
    DOWNLOAD_CONFIG = "export.download_config"
    DOWNLOAD_LOGS = "export.download_logs"
    DOWNLOAD = "export.download"
    SUMMARY = "export.summary"
    INCLUDE_HOST = "export.include_host"
    IMPORT_UPLOAD = "export.import_upload"
    IMPORT_DATASET = "export.import_dataset"  # the Import tab's problem file (--dataset)
    IMPORT = "export.import"
    RESCORE_RUN = "export.rescore_run"
    RESCORE = "export.rescore"


class Reproduce:
    """Export / Import page, Reproduce tab."""

    RESULTS = "reproduce.results"  # the results folder as a zip (uploader)
    DATASET = "reproduce.dataset"  # the study's benchmark file (uploader)
    FAMILIES = "reproduce.families"  # a families file (uploader)
    FIGURES = "reproduce.figures"
    AMPLIFY = "reproduce.amplify"
    RUN = "reproduce.run"
    CANCEL = "reproduce.cancel"  # stops the running reproduction (ui/reproduce_job.py)
    DONE = "reproduce.done"  # the last reproduction: files and summary (not a widget)
    DOWNLOAD_HTML = "reproduce.download_html"
    DOWNLOAD_ZIP = "reproduce.download_zip"


TECHNIQUE_FIELDS = ("id", "name", "category", "when_to_use", "key_idea", "complexity", "pitfalls", "tags")

DEFAULTS: dict[str, object] = {
    SELECTED_RUNS: [],
    Synthesize.STATEMENT: "",
    Synthesize.ENTRY_POINT: "",
    Synthesize.ALIASES: "",
    Synthesize.SIGNATURE: "",
    Synthesize.TESTS_MODE: TEST_MODES[0],
    Synthesize.TEST_ROWS_DATA: [{"call": "", "expected": "", "visible": True}],
    Synthesize.ASSERT_SOURCE: "",
    Synthesize.ASSERT_CALL: "check(candidate)",
    Synthesize.CONDITION: "multi-full",
    **{Synthesize.ROLE_MODEL + role: SAME_AS_DEFAULT for role in ROLES},
    Synthesize.RETRY_BUDGET: CONDITION_DEFAULT,
    Synthesize.RETRIEVAL: CONDITION_DEFAULT,
    Synthesize.FEEDBACK: "grading",
    Synthesize.TIMEOUT: 5.0,
    Synthesize.TITLE: "",
    Synthesize.JOB: None,
    Batch.BENCHMARK: "internal30",
    Batch.CATEGORIES: [],
    Batch.SUBSET: 0,
    Batch.SUBSET_SEED: 0,
    Batch.CONDITIONS: ["single-oneshot", "single-retry", "multi-full"],
    Batch.SEEDS: "0",
    Batch.TRIALS: 1,
    **{Batch.ROLE_MODEL + role: SAME_AS_DEFAULT for role in ROLES},
    Batch.MODEL_AXIS: [],
    Batch.CONCURRENCY: 1,
    Batch.ORDER: "paired",
    Batch.FEEDBACK: "grading",
    Batch.EXECUTOR: "local",
    Batch.RAY_ADDRESS: "",
    Batch.OLLAMA_HOSTS: "",
    Batch.OUTAGE_BUDGET_MIN: 10.0,
    Batch.LLM_TIMEOUT_S: 900.0,
    Batch.TITLE: "",
    Batch.BASELINE: 0.5,
    Batch.SEQUENTIAL: False,
    Batch.LOOKS: 10,
    Batch.SEQ_MDD: 0.0,
    Batch.LAUNCHED: None,
    Runs.KIND: "any",
    Runs.STATUS: "any",
    Runs.BENCHMARK: "any",
    Runs.MODEL: "",
    Runs.TEXT: "",
    Runs.TAG: "",
    Runs.DATES: (),
    Runs.SELECT: [],
    Runs.NOTICE: None,
    Runs.PENDING_DELETE: None,
    Trace.OUTCOME: "any",
    Retrieval.CATEGORY: "all",
    Retrieval.EDIT: "(new technique)",
    **{Retrieval.FIELD + name: "" for name in TECHNIQUE_FIELDS},
    Retrieval.QUERY: "",
    Retrieval.K: 5,
    Ablations.REFERENCE: "multi-full",
    Ablations.COST_METRIC: "LLM calls",
    Statistics.CONDITIONS: [],
    Export.RUNS: [],
    Export.INCLUDE_HOST: False,
    Reproduce.FIGURES: True,
    Statistics.COMPARE: AUTO,
    Statistics.COMPARABLE_ONLY: True,
    Statistics.COST: "tokens",
}


# Pickers whose starting value is the configured default model (EXECUGRAPH_MODEL), read when a session starts.
MODEL_PICKERS = (Synthesize.DEFAULT_MODEL, Batch.DEFAULT_MODEL)


ROUTED = "_router.ran"  # set by app.py before any page runs (not a widget)
CHART_FRONTEND_LOADED = "_router.chart_frontend"  # the browser was given the chart frontend once (not a widget)


def init_state(state: Any) -> None:
    """Give every key without a value its default (a fresh copy, so lists are never shared).

    A page run without the router (see `_run_under_the_router`) is restarted under it first.
    """
    if ROUTED not in state:
        _run_under_the_router()
    for key, value in DEFAULTS.items():
        if key not in state:
            state[key] = copy.deepcopy(value)
    missing = [key for key in MODEL_PICKERS if key not in state]
    if missing:
        model = default_model()
        for key in missing:
            state[key] = model


def _run_under_the_router() -> None:
    """Rerun the session through app.py when Streamlit ran a page file on its own.

    Because `pages/` exists, a fresh server process handles the first request for a deep link (say a
    "Compare in Statistics" link opened in a new tab) the old multipage way: it runs pages/statistics.py
    alone, without app.py's navigation, sidebar and worker. `st.navigation` switches that mode off, but only
    once app.py has run, so we switch it off here (the flag st.navigation sets) and rerun: the rerun goes
    through app.py, which routes to the same page.
    """
    import streamlit as st

    try:
        from streamlit.runtime.pages_manager import PagesManager
    except ImportError:  # a Streamlit without the old mode: nothing to undo
        return
    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        st.rerun()


SYN_TEST_ROWS_KEPT = "_kept.syn.test_rows"  # the test table as last edited: a data editor has no persist_state
PERSIST = "session"  # `persist_state=` of the Synthesize widgets: what was typed survives a visit to another page
