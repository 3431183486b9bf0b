"""Small things daily use trips over: no Deploy button, our page list from the first page on, trial labels that
read as seed and trial (not 'seed 0.0'), counts in the right number ('1 seed'), pass@k in percent like every
other rate, and a traceback caption that says where the program is."""

from __future__ import annotations

import tomllib

from execugraph.stats.report_model import StatsReport
from execugraph.stats.report_sections import ArmSection, PassAtK
from tests.ui.conftest import PROJECT_ROOT, no_exception, texts
from ui import serve
from ui.statistics_parts import pass_at_k_table
from ui.trace_picker import trial_label
from ui.views.batch_plan import BatchPlan
from ui.views.formatting import counted

PAGE_TITLES = ["Synthesize", "Batch", "Runs", "Trace", "Retrieval", "Ablations", "Statistics", "Tests",
               "Export / Import"]


def test_the_toolbar_has_no_deploy_button_and_the_raw_page_list_is_never_shown():
    client = tomllib.loads((PROJECT_ROOT / ".streamlit" / "config.toml").read_text())["client"]
    assert client == {"toolbarMode": "viewer", "showSidebarNavigation": False}
    argv = serve.streamlit_argv("127.0.0.1", 8501, [])
    assert argv[argv.index("--client.toolbarMode") + 1] == "viewer"  # `make run` says the same with flags
    assert argv[argv.index("--client.showSidebarNavigation") + 1] == "false"


def test_the_sidebar_links_every_page_by_its_title(app):
    at = app("synthesize")
    no_exception(at)
    links = [link.proto.label for link in at.sidebar.get("page_link")]
    assert links == PAGE_TITLES


def test_trial_labels_name_seed_and_trial_apart():
    label = trial_label({"id": 7, "problem_id": "fizzbuzz", "condition": "multi-full", "seed": 0,
                         "trial_index": 0, "passed": True, "status": "done"})
    assert label == "#7 fizzbuzz · multi-full · seed 0 · trial 0 · passed" and "0.0" not in label


def test_counts_agree_with_their_nouns():
    assert [counted(1, "seed"), counted(2, "seed"), counted(1200, "trial")] == ["1 seed", "2 seeds", "1,200 trials"]
    plan = BatchPlan(1, 1, 1, 1, 1, 0, None, None, "a paired comparison needs at least 2 problems")
    assert plan.describe().startswith("1 problem x 1 condition x 1 seed x 1 trial = **1 trial**.")
    assert plan.describe().endswith("With 1 problem no difference can be detected; about 97 problems would detect a "
                                    "20 pp difference at 80% power (paired, two-sided alpha 0.05, 1 trial per problem "
                                    "and arm, pass rates around 50%).")


def test_pass_at_k_reads_in_percent():
    rows = [PassAtK(k=1, pass_at_k=0.625, problems=4, skipped=0), PassAtK(k=2, pass_at_k=None, problems=0, skipped=4)]
    arm = ArmSection.model_construct(label="a", name="multi-full", pass_at_k=rows)  # only what the table reads
    report = StatsReport.model_construct(arms=[arm])
    assert pass_at_k_table(report) == [{"arm": "multi-full", "pass@1 (%)": "62.5", "pass@2 (%)": "—"}]


def test_the_traceback_caption_does_not_say_above(app):
    from standins.scripted import fenced
    from tests.ui.test_displays import BROKEN, _synthesize

    at, _ = _synthesize(app, condition="single-oneshot", generator=[fenced(BROKEN)])
    captions = [c for c in texts(at, "caption") if "tracebacks" in c]
    assert captions and not any("above" in c for c in captions)
