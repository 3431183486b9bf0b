"""bigcode-evaluation-harness MBPP generations graded on import against a `--dataset` file, with progress.

The fixtures (`tests/support/harness_files.py`) are laid out as the harness writes them: one list of whole
programs per task of MBPP's test split (task ids 11.., in order), the prompt being the text plus the first
test, a task whose generations are empty, and `evaluation_results.json` with `mbpp` pass@k and the `config`
block. Grading is real (the sandbox), the CLI runs in a subprocess.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from execugraph.publication import BundleFormatError, import_path
from execugraph.reproduce import load_dataset
from execugraph.reproduce.progress import Cancelled, Progress, throttled
from execugraph.store import Store
from execugraph.verdicts import rescore_run
from tests.support import harness_files as hf

pytestmark = pytest.mark.integration

PROJECT_ROOT = Path(__file__).resolve().parents[2]
SAMPLES = 40


@pytest.fixture
def store(tmp_path: Path):
    with Store.open(str(tmp_path / "bigcode.db")) as opened:
        yield opened


def _dataset(tmp_path: Path):
    path = hf.write_mbpp_problems(tmp_path / "mbpp.jsonl")
    return load_dataset(path.read_bytes(), path.name)


def _cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    env = os.environ | {"EXECUGRAPH_DB": str(tmp_path / "cli.db"), "EXECUGRAPH_CACHE_DIR": str(tmp_path / "cache")}
    return subprocess.run([sys.executable, "-m", "execugraph", *args], cwd=PROJECT_ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


def test_mbpp_generations_are_graded_on_the_dataset_and_pass_at_k_checked(tmp_path: Path, store: Store) -> None:
    hf.write_bigcode_mbpp(tmp_path / "study")
    heard: list[tuple[int, int]] = []
    result = import_path(store, tmp_path / "study", dataset=_dataset(tmp_path),
                         on_grading=lambda done, total: heard.append((done, total)))
    (run,) = result.runs
    assert result.warnings == []
    stored = store.get_run(run.id)
    assert stored.benchmark == "mbpp" and stored.models == {"generator": "bigcode/santacoder"}
    check = stored.config["harness"]["pass_at_k_check"]
    assert check["agree"] and check["ours"] == pytest.approx({"pass@1": 0.375, "pass@10": 0.75})
    assert stored.config["harness"]["harness_config"]["tasks"] == "mbpp"
    assert stored.config["reference"]["benchmark_file"]["file"] == "mbpp.jsonl"
    trials = store.trials_for_run(run.id)
    assert len(trials) == SAMPLES and {t.grading_protocol for t in trials} == {"standalone"}
    passes = Counter(t.problem_id for t in trials if t.passed)
    assert {p: passes.get(p, 0) for p in hf.mbpp_expected_passes()} == hf.mbpp_expected_passes()
    assert Counter(t.problem_id for t in trials) == {f"mbpp_{n}": 10 for n in (11, 12, 13, 14)}
    # the grading callback heard every sample: from 0, increasing, ending at the total
    counts = [done for done, _total in heard]
    assert counts[0] == 0 and counts[-1] == SAMPLES and {t for _, t in heard} == {SAMPLES}
    assert counts == sorted(counts) and len(set(counts)) > 2
    report = rescore_run(store, run.id)  # the recorded benchmark file's tests: the same verdicts
    assert report.flips == [] and report.unresolved == []


def test_cli_import_prints_grading_progress_and_checks_pass_at_k(tmp_path: Path) -> None:
    hf.write_bigcode_mbpp(tmp_path / "study", pass_at_1=0.5)
    dataset = hf.write_mbpp_problems(tmp_path / "mbpp.jsonl")
    done = _cli(tmp_path, "import", str(tmp_path / "study"), "--dataset", str(dataset))
    assert done.returncode == 0, done.stderr
    (run,) = json.loads(done.stdout)["runs"]
    assert run["trials"] == SAMPLES
    lines = done.stderr.splitlines()
    assert f"grading 0/{SAMPLES} samples..." in lines
    assert any(line.startswith(f"graded {SAMPLES} samples in ") for line in lines), lines
    assert "import: study: evaluation_results.json says pass@1 0.5000; graded here it is 0.3750" in lines


def test_mbpp_without_a_dataset_is_graded_on_mbpp_plus(tmp_path: Path, store: Store) -> None:
    """No --dataset: the built-in MBPP+ grades the tasks it has; Mbpp/13 (not in MBPP+) is left out and named."""
    hf.write_bigcode_mbpp(tmp_path / "study")
    done = _cli(tmp_path, "import", str(tmp_path / "study"))
    assert done.returncode == 0, done.stderr
    assert "10 sample(s) of 1 MBPP task(s) that MBPP+ does not cover were left out" in done.stderr
    assert "Mbpp/13" in done.stderr
    (run,) = json.loads(done.stdout)["runs"]
    assert run["trials"] == 30


def test_other_bigcode_tasks_are_refused_naming_the_supported_ones(tmp_path: Path) -> None:
    hf.write_bigcode_mbpp(tmp_path / "study", task="apps")
    done = _cli(tmp_path, "import", str(tmp_path / "study"), "--dataset", str(hf.write_mbpp_problems(
        tmp_path / "mbpp.jsonl")))
    assert done.returncode == 2
    (line,) = done.stderr.splitlines()
    assert "task 'apps' is not one ExecuGraph can grade" in line and "supported are humaneval, mbpp" in line


def test_a_dataset_missing_a_task_is_refused_naming_it(tmp_path: Path, store: Store) -> None:
    hf.write_bigcode_mbpp(tmp_path / "study")
    short = tmp_path / "short.jsonl"
    short.write_text("".join(json.dumps(p) + "\n" for p in hf.MBPP_PROBLEMS[:3]), encoding="utf-8")
    with pytest.raises(BundleFormatError, match=r"'Mbpp/14' carries no verdict and is neither a HumanEval task "
                                                r"nor a task of short.jsonl"):
        import_path(store, tmp_path / "study", dataset=load_dataset(short.read_bytes(), short.name))
    assert store.list_runs() == []


def test_reproduce_progress_hears_the_grading_and_cancel_stops_it(tmp_path: Path, store: Store) -> None:
    from execugraph.publication.importing import import_fileset
    from execugraph.publication.source import read_input
    from execugraph.reproduce import reproduce_path

    hf.write_bigcode_mbpp(tmp_path / "study")
    dataset = hf.write_mbpp_problems(tmp_path / "mbpp.jsonl")
    heard: list[tuple[float, str]] = []
    reproduce_path(store, tmp_path / "study", tmp_path / "out", dataset=dataset, figures=False,
                   listener=lambda fraction, text: heard.append((fraction, text)))
    fractions = [f for f, _ in heard]
    assert fractions == sorted(fractions)
    grading = [text for _, text in heard if text.startswith("grading ")]
    assert grading[0] == f"grading 0/{SAMPLES} samples" and grading[-1] == f"grading {SAMPLES}/{SAMPLES} samples"
    report = json.loads((tmp_path / "out" / "reproduce.json").read_text())
    assert [r["name"] for r in report["runs"]] == ["study"]
    # the dashboard's Cancel during the grading: Cancelled, and nothing written
    with Store.open(str(tmp_path / "cancel.db")) as fresh, read_input(tmp_path / "study") as fileset:
        progress = Progress(stop=lambda: True)
        with pytest.raises(Cancelled):
            import_fileset(fresh, fileset, dataset=load_dataset(dataset.read_bytes(), dataset.name),
                           on_grading=lambda d, t: progress.update("grading", d / t, f"grading {d}/{t}"))
        assert fresh.list_runs() == []


def test_throttled_reports_first_and_last_and_at_most_every_interval() -> None:
    now = [0.0]
    heard: list[int] = []
    report = throttled(lambda done, total: heard.append(done), every_s=1.0, clock=lambda: now[0])
    for done in range(11):
        report(done, 10)
        now[0] += 0.3
    assert heard == [0, 4, 8, 10]


def test_limit_start_shifts_the_tasks_the_lists_belong_to(tmp_path: Path) -> None:
    """`--limit_start 2`: the first list is the split's third task (Mbpp/13), read without grading."""
    from execugraph.publication.formats import IssueCollector
    from execugraph.publication.harness import HarnessOptions, find_inputs
    from execugraph.publication.harness.bigcode import read_bigcode
    from execugraph.publication.source import read_input

    hf.write_bigcode_mbpp(tmp_path / "study")
    results = tmp_path / "study" / "evaluation_results.json"
    doc = json.loads(results.read_text())
    results.write_text(json.dumps({**doc, "config": {**doc["config"], "limit_start": 2}}))
    issues = IssueCollector()
    with read_input(tmp_path / "study") as fileset:
        (found,) = find_inputs(fileset)
        run = read_bigcode(fileset, found.files["generations"], found.files["evaluation"], HarnessOptions(), issues)
    assert not issues and run is not None
    assert [rec["task_id"] for _, rec in run.records][::10] == ["Mbpp/13", "Mbpp/14", "Mbpp/15", "Mbpp/16"]
