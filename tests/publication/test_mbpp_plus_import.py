"""Other harnesses' MBPP files re-judged on the built-in MBPP+ without `--dataset`: a bigcode `generations_mbpp.json`
and EvalPlus MBPP samples. Tasks MBPP+ lacks (Mbpp/13, Mbpp/15: removed by EvalPlus) are left out and named.

The fixture is laid out as bigcode-evaluation-harness writes it (`--tasks mbpp --save_generations`, no evaluation
file): a JSON list with one list of whole programs per task of MBPP's test split, in order from task 11, each
program the prompt (a docstring with the task's text and first test) followed by the generated code. Real store,
real sandbox, expected outputs computed into a temporary cache.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

from execugraph.publication import import_path
from execugraph.store import Store
from execugraph.verdicts import rescore_run

pytestmark = pytest.mark.integration

TASKS = [  # MBPP test split, positions 0..4 = task ids 11..15: (text, first test, generated programs)
    ("Write a python function to remove first and last occurrence of a given character from the string.",
     'assert remove_Occ("hello","l") == "heo"',
     ["def remove_Occ(s,ch):\n    s = s.replace(ch, '', 1)\n    return s[::-1].replace(ch, '', 1)[::-1]\n",
      "def remove_Occ(s,ch):\n    return s.replace(ch, '')\n"]),  # right on MBPP's three tests, wrong on MBPP+
    ("Write a function to sort a given matrix in ascending order according to the sum of its rows.",
     "assert sort_matrix([[1, 2, 3], [2, 4, 5], [1, 1, 1]])==[[1, 1, 1], [1, 2, 3], [2, 4, 5]]",
     ["def sort_matrix(M):\n    return sorted(M, key=sum)\n",
      "def sort_matrix(M):\n    return sorted(M)\n"]),
    ("Write a function to count the most common words in a dictionary.",
     "assert count_common(['red','green','black','pink','black','white','black','eyes','white','black','orange',"
     "'pink','pink','red','red','white','orange','white',\"black\",'pink','green','green','pink','green','pink',"
     "'white','orange',\"orange\",'red']) == [('pink', 6), ('black', 5), ('white', 5), ('red', 4)]",
     ["from collections import Counter\ndef count_common(words):\n    return Counter(words).most_common(4)\n",
      "def count_common(words):\n    return []\n"]),
    ("Write a python function to find the volume of a triangular prism.", "assert find_Volume(10,8,6) == 240",
     ["def find_Volume(l,b,h):\n    return (l * b * h) / 2\n",
      "def find_Volume(l,b,h):\n    return 0.5 * l * b * h\n"]),
    ("Write a function to split a string at lowercase letters.",
     "assert split_lowerstring(\"AbCd\")==['bC','d']",
     ["import re\ndef split_lowerstring(text):\n    return re.findall('[a-z][^a-z]*', text)\n",
      "def split_lowerstring(text):\n    return []\n"]),
]


def _generations(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    doc = [[f'"""\n{text}\n{test}\n"""\n{program}' for program in programs] for text, test, programs in TASKS]
    path = folder / "generations_mbpp.json"
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    return path


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("EXECUGRAPH_CACHE_DIR", str(tmp_path / "cache"))
    with Store.open(str(tmp_path / "mbpp.db")) as opened:
        yield opened


def _verdicts(store: Store, run_id: int) -> dict[str, list[bool]]:
    out: dict[str, list[bool]] = defaultdict(list)
    for trial in sorted(store.trials_for_run(run_id), key=lambda t: (t.problem_id, t.seed, t.trial_index)):
        out[trial.problem_id].append(bool(trial.passed))
    return dict(out)


def test_bigcode_mbpp_generations_are_graded_on_mbpp_plus_and_the_uncovered_named(tmp_path: Path, store) -> None:
    _generations(tmp_path / "study")
    result = import_path(store, tmp_path / "study")
    (run,) = result.runs
    assert _verdicts(store, run.id) == {"mbpp_11": [True, False], "mbpp_12": [True, False],
                                        "mbpp_14": [True, True]}
    (warning,) = [w for w in result.warnings if "MBPP+ does not cover" in w]
    assert "4 sample(s) of 2 MBPP task(s)" in warning and warning.endswith("Mbpp/13, Mbpp/15")
    report = rescore_run(store, run.id)  # today's MBPP+ problems resolve the run's ids: the same verdicts
    assert report.flips == [] and report.unresolved == [] and report.rescored == 6


def test_evalplus_mbpp_samples_are_graded_on_mbpp_plus(tmp_path: Path, store) -> None:
    lines = [{"task_id": f"Mbpp/{11 + i}", "solution": program} for i, (_t, _f, programs) in enumerate(TASKS)
             for program in programs[:1]]
    path = tmp_path / "samples.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    result = import_path(store, path)
    (run,) = result.runs
    assert _verdicts(store, run.id) == {"mbpp_11": [True], "mbpp_12": [True], "mbpp_14": [True]}
    assert any("2 sample(s) of 2 MBPP task(s)" in w and "Mbpp/13, Mbpp/15" in w for w in result.warnings)
