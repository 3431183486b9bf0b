"""The JUnit reader behind FILE_SECONDS' refresh: files summed from pytest's own XML, processes simulated, bad input
named in one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.junit_times import JunitError, main, read_junit, simulate

# As pytest 9 writes it (xunit2: no file attribute; a testcase's time is setup + call + teardown; a skipped test
# keeps its testcase with a <skipped> child).
JUNIT = """<?xml version="1.0" encoding="utf-8"?><testsuites name="pytest tests"><testsuite name="pytest" errors="0" \
failures="0" skipped="1" tests="5" time="61.2" timestamp="2026-12-06T18:28:07.076450+00:00" hostname="vm">\
<testcase classname="tests.ui.test_slow" name="test_a" time="40.5" />\
<testcase classname="tests.ui.test_slow" name="test_b[x]" time="9.5" />\
<testcase classname="tests.cli.test_quick" name="test_c" time="1.000">\
<skipped type="pytest.skip" message="needs chromium">/x.py:3: needs chromium</skipped></testcase>\
<testcase classname="tests.cli.test_quick.TestGroup" name="test_d" time="0.200" />\
<testcase classname="tests.cli.test_mid" name="test_e" time="10.0" /></testsuite></testsuites>"""


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    for name in ("tests/ui/test_slow.py", "tests/cli/test_quick.py", "tests/cli/test_mid.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    (tmp_path / "junit.xml").write_text(JUNIT)
    return tmp_path


def test_files_sum_their_testcases_including_classes_and_skips(tree: Path) -> None:
    times = read_junit(tree / "junit.xml", root=tree)
    assert [(t.path, round(t.seconds, 3), t.tests) for t in times] == [
        ("tests/ui/test_slow.py", 50.0, 2), ("tests/cli/test_mid.py", 10.0, 1), ("tests/cli/test_quick.py", 1.2, 2)]
    assert times[0].per_test == 25.0


def test_each_file_goes_to_the_process_free_first_in_schedule_order(tree: Path) -> None:
    times = read_junit(tree / "junit.xml", root=tree)
    lanes = simulate(times, 2, {"tests/ui/test_slow.py": 50, "tests/cli/test_mid.py": 10})
    assert lanes == [["tests/ui/test_slow.py"], ["tests/cli/test_mid.py", "tests/cli/test_quick.py"]]
    unmeasured = simulate(times, 2, {})  # no schedule: as collected (here: by path), the slow file last
    assert unmeasured == [["tests/cli/test_mid.py"], ["tests/cli/test_quick.py", "tests/ui/test_slow.py"]]


def test_the_report_and_a_bad_time_named_in_one_line(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(tree / "junit.xml"), "--workers", "2", "--min-seconds", "5"]) == 0
    out = capsys.readouterr().out
    assert "5 tests, 61 s summed" in out and "FILE_SECONDS = {" in out
    bad = tree / "bad.xml"
    bad.write_text(JUNIT.replace('time="10.0"', 'time="ten"'))
    with pytest.raises(JunitError) as caught:
        read_junit(bad, root=tree)
    assert str(caught.value) == f"{bad}: testcase 5 (tests.cli.test_mid::test_e): field 'time' is 'ten', not a number"
    assert main([str(tree / "missing.xml")]) == 2
    assert "missing.xml: not a readable JUnit XML file" in capsys.readouterr().err
