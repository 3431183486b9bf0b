"""Verdicts near a time limit: the share of its CPU limit or backstop each test used, timeouts by limit, display."""

from __future__ import annotations

from execugraph.grading.limit_use import limit_use, timeout_kind
from execugraph.stats.near_limit import near_limit
from ui import views


def _test(verdict: str = "passed", error_class: str | None = None, cpu: float = 0.1, wall: float = 0.2,
          cpu_limit: float = 1.0, wall_limit: float = 20.0, name: str = "t") -> dict:
    return {"name": name, "verdict": verdict, "passed": verdict == "passed", "error_class": error_class,
            "cpu_s": cpu, "duration_s": wall, "cpu_limit_s": cpu_limit, "wall_limit_s": wall_limit, "got": "x"}


def test_a_test_is_as_near_as_the_nearer_of_its_two_limits() -> None:
    cpu = limit_use(_test(cpu=0.85, wall=2.0))
    assert cpu is not None and (cpu.kind, cpu.share) == ("CPU", 0.85)
    wall = limit_use(_test(cpu=0.01, wall=17.0))
    assert wall is not None and wall.kind == "wall" and wall.text() == (
        "test 't' used 17 s of its 20 s wall-clock backstop (85%)")
    assert limit_use({"name": "old", "verdict": "passed", "duration_s": 1.0}) is None  # before CPU limits
    assert [timeout_kind(_test("timeout", k)) for k in ("CpuTimeLimit", "WallTimeLimit", "SuiteTimeLimit", "Timeout")] \
        == ["cpu", "wall", "suite", "wall-clock"]
    assert timeout_kind(_test()) is None


def test_near_programs_are_listed_closest_first_and_timeouts_are_counted_by_limit() -> None:
    programs = [
        {"trial": 1, "results": [_test(cpu=0.3)]},
        {"trial": 2, "results": [_test(cpu=0.5), _test(cpu=0.81, name="heavy")]},
        {"trial": 3, "results": [_test("wrong_answer", "WrongAnswer", cpu=0.95)]},  # a fragile failure too
        {"trial": 4, "results": [_test("timeout", "CpuTimeLimit", cpu=1.01)]},
        {"trial": 5, "results": [_test("timeout", "WallTimeLimit", cpu=0.0, wall=20.0)]},
        {"trial": 6, "results": [{"name": "t", "verdict": "timeout", "error_class": "Timeout", "duration_s": 5.0}]},
    ]
    report = near_limit(programs)
    assert (report["programs"], report["measured"]) == (6, 5)
    assert [(r["trial"], r["test"], r["limit"], r["share"]) for r in report["near"]] == [
        (3, "t", "CPU", 0.95), (2, "heavy", "CPU", 0.81)]
    assert report["timeouts"] == {"cpu": 1, "wall": 1, "wall-clock": 1}
    assert "results" not in report["near"][0]


def test_trace_shows_cpu_and_wall_seconds_the_limits_and_how_near_the_program_came() -> None:
    results = [_test(cpu=0.0123, wall=0.5, name="a"), _test(cpu=0.9, wall=3.0, name="b")]
    rows = views.test_result_rows(results)
    assert (rows[1]["cpu_s"], rows[1]["duration_s"], rows[1]["cpu_limit_s"], rows[1]["wall_limit_s"]) == (
        "900 ms", "3.0 s", "1.0 s", "20.0 s")
    assert rows[0]["limit_used"] == "2% of wall backstop" and rows[1]["limit_used"] == "90% of CPU"
    note = views.time_limits_note(results)
    assert note == ("Time limits: 1 s CPU per test, wall-clock backstop 20 s. Closest: test 'b' used 0.9 s of its "
                    "1 s CPU limit (90%) — near the limit, a fragile verdict.")
    stopped = views.time_limits_note([_test("timeout", "WallTimeLimit", cpu=0.0, wall=20.0, name="s")])
    assert stopped is not None and "Test 's' was stopped by the wall-clock backstop" in stopped
    assert views.time_limits_note([{"name": "old", "passed": True, "duration_s": 1.0}]) is None
