"""`make test` starts the slowest files first: the order rule keeps files whole, the measured list names real files,
and the Makefile keeps xdist from reordering files by their number of tests."""

from __future__ import annotations

import re
from pathlib import Path

from tests.support.schedule import FILE_SECONDS, file_of, slowest_first

ROOT = Path(__file__).resolve().parents[2]


def test_measured_files_run_longest_first_then_the_rest_as_collected() -> None:
    ids = ["tests/a.py::t1", "tests/a.py::t2", "tests/b.py::t1", "tests/c.py::t1[x]", "tests/c.py::t1[y]",
           "tests/d.py::t1"]
    order = [ids[i] for i in slowest_first(ids, {"tests/c.py": 90.0, "tests/d.py": 300.0})]
    assert order == ["tests/d.py::t1", "tests/c.py::t1[x]", "tests/c.py::t1[y]", "tests/a.py::t1", "tests/a.py::t2",
                     "tests/b.py::t1"]


def test_each_files_tests_stay_together_when_weights_tie() -> None:
    ids = ["tests/a.py::t1", "tests/b.py::t1", "tests/a.py::t2", "tests/b.py::t2"]  # interleaved by a plugin
    order = [file_of(ids[i]) for i in slowest_first(ids, {"tests/a.py": 5.0, "tests/b.py": 5.0})]
    assert order == ["tests/a.py", "tests/a.py", "tests/b.py", "tests/b.py"]


def test_every_measured_file_exists() -> None:
    missing = [path for path in FILE_SECONDS if not (ROOT / path).is_file()]
    assert not missing, f"tests/support/schedule.py names files that are gone (rename or drop them): {missing}"


def test_make_test_keeps_the_collected_file_order() -> None:
    recipe = re.search(r"^test:.*\n((?:\t.*\n)+)", (ROOT / "Makefile").read_text(), re.MULTILINE)
    assert recipe, "Makefile has no test target"
    command = recipe.group(1)
    assert "--dist loadfile" in command and "--no-loadscope-reorder" in command, command
