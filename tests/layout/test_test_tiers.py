"""`make test` and `make test-long` split the suite by tests/support/tiers.py: every name there is a real test,
each tier keeps what it should, and CI runs both tiers."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.tiers import LONG, missing, select

ROOT = Path(__file__).resolve().parents[2]


class _Item:
    """Just enough of a pytest item for `select`: a node id and markers."""

    def __init__(self, nodeid: str, long: bool = False) -> None:
        self.nodeid = nodeid
        self.marks = {"long"} if long else set()

    def add_marker(self, mark) -> None:  # noqa: ANN001
        self.marks.add(mark.name)

    def get_closest_marker(self, name: str) -> str | None:
        return name if name in self.marks else None


def test_every_long_name_is_a_test_in_its_file() -> None:
    gone = []
    for nodeid in LONG:
        path, _, name = nodeid.partition("::")
        function = name.split("[", 1)[0]
        source = ROOT / path
        if not source.is_file() or not re.search(rf"^def {re.escape(function)}\(", source.read_text(), re.MULTILINE):
            gone.append(nodeid)
    assert not gone, f"tests/support/tiers.py names tests that are gone (rename or drop them): {gone}"


def test_each_tier_keeps_its_own_tests() -> None:
    param, whole = next(n for n in LONG if "[" in n), next(n for n in LONG if "[" not in n)
    ids = ["tests/a.py::t", param, param.split("[")[0] + "[sqlite]", whole, whole + "[x]", "tests/b.py::t"]

    def kept(tier: str) -> list[str]:
        items = [_Item(i) for i in ids] + [_Item("tests/c.py::t[full]", long=True)]
        return [i.nodeid for i in select(items, tier)[0]]

    assert kept("default") == ["tests/a.py::t", param.split("[")[0] + "[sqlite]", "tests/b.py::t"]
    assert kept("long") == [param, whole, whole + "[x]", "tests/c.py::t[full]"]
    assert len(kept("all")) == len(ids) + 1
    with pytest.raises(pytest.UsageError, match="--tier must be one of"):
        select([], "fast")
    assert missing([param, "tests/z.py::gone"], [param]) == ["tests/z.py::gone"]


def test_make_test_runs_the_default_tier_and_ci_runs_both() -> None:
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^test:.*\n\t.*--tier default", makefile, re.MULTILINE)
    assert re.search(r"^test-long:.*\n\t.*--tier long", makefile, re.MULTILINE)
    ci = (ROOT / ".ci" / "run").read_text()
    assert ci.index("\nmake test\n") < ci.index("\nmake test-long\n")
