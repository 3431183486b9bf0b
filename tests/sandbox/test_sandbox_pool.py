"""The sandbox on real candidates: every test kind, comparison mode and verdict, through a real warm pool."""

from __future__ import annotations

import json
import os
import signal
import threading
import time

import pytest

from sandbox import (
    Limits,
    SandboxPool,
    SandboxUnavailable,
    SuiteError,
    SuiteResult,
    default_pool,
    isolation_report,
    run_suite,
)

pytestmark = pytest.mark.integration

FAST = Limits(timeout_s=3.0)


@pytest.fixture(scope="module")
def pool():
    with SandboxPool(workers=2) as shared:
        yield shared


def verdicts(result: SuiteResult) -> list[str]:
    return [t.verdict for t in result.tests]


COIN_CHANGE = """
def coinChange(coins, amount):
    best = [0] + [float('inf')] * amount
    for a in range(1, amount + 1):
        for c in coins:
            if c <= a:
                best[a] = min(best[a], best[a - c] + 1)
    return best[amount] if best[amount] != float('inf') else -1
"""


def test_call_tests_by_expression_and_by_args(pool):
    suite = {
        "entry_point": "coinChange",
        "tests": [
            {"kind": "call", "expr": "coinChange([1,2,5], 11)", "expected": 3, "name": "expr", "visible": True},
            {"kind": "call", "args": [[2], 3], "expected": -1, "name": "args"},
            {"kind": "call", "args": [[1], 0], "expected": 0},
        ],
    }
    result = pool.run_suite(COIN_CHANGE, suite, FAST)
    assert result.verdict == "passed", result.to_dict()
    assert (result.tests_passed, result.tests_total) == (3, 3)
    assert [t.name for t in result.tests] == ["expr", "args", "test_2"]
    assert result.tests[1].call == "coinChange([2], 3)"
    assert all(t.duration_s > 0 for t in result.tests)


def test_wrong_answer_reports_expected_and_got(pool):
    suite = {"entry_point": "coinChange", "tests": [{"kind": "call", "args": [[1, 2, 5], 11], "expected": 4}]}
    result = pool.run_suite(COIN_CHANGE, suite, FAST)
    (test,) = result.tests
    assert (result.verdict, test.verdict, test.error_class) == ("wrong_answer", "wrong_answer", "WrongAnswer")
    assert (test.expected, test.got) == ("4", "3")
    assert result.tests_passed == 0 and not test.passed


def test_comparison_modes_and_json_projection(pool):
    code = """
def f(kind):
    if kind == 'tuple': return (1, [2, (3, 4)])
    if kind == 'float': return [0.1 + 0.2, 1e-9]
    if kind == 'unordered': return [[2, 1], [1, 2], [1, 2]]
    if kind == 'set': return {3, 1, 2}
    if kind == 'none': return None
    if kind == 'inf': return float('-inf')
    if kind == 'intkeys': return {1: 'a', 2: ['b']}
    if kind == 'nested': return {'k': (1.0, True)}
"""
    tests = [
        {"kind": "call", "args": ["tuple"], "expected": [1, [2, [3, 4]]]},
        {"kind": "call", "args": ["float"], "expected": [0.3, 0.0], "compare": "float", "tol": 1e-6},
        {"kind": "call", "args": ["unordered"], "expected": [[1, 2], [1, 2], [2, 1]], "compare": "unordered"},
        {"kind": "call", "args": ["set"], "expected": [1, 2, 3, 3], "compare": "set"},
        {"kind": "call", "args": ["none"], "expected": None},
        {"kind": "call", "args": ["inf"], "expected": float("-inf")},
        {"kind": "call", "args": ["intkeys"], "expected": {"1": "a", "2": ["b"]}},
        {"kind": "call", "args": ["nested"], "expected": {"k": [1, True]}},
        # and the ones that must fail
        {"kind": "call", "args": ["float"], "expected": [0.3, 0.0]},
        {"kind": "call", "args": ["unordered"], "expected": [[1, 2], [2, 1], [2, 1]], "compare": "unordered"},
        {"kind": "call", "args": ["set"], "expected": [1, 2], "compare": "set"},
    ]
    result = pool.run_suite(code, {"entry_point": "f", "tests": tests}, FAST)
    assert verdicts(result) == ["passed"] * 8 + ["wrong_answer"] * 3, [(t.call, t.got) for t in result.tests]


def test_alias_is_resolvable_under_the_entry_point_name(pool):
    code = "def min_coins(coins, amount):\n    return len(coins) + amount\n"
    suite = {
        "entry_point": "coinChange",
        "aliases": ["coin_change", "min_coins"],
        "tests": [
            {"kind": "call", "expr": "coinChange([1], 1)", "expected": 2},
            {"kind": "call", "args": [[1, 2], 1], "expected": 3},
            {
                "kind": "assert",
                "source": "def check(candidate):\n    assert candidate([], 5) == 5\n    assert coinChange([1], 0) == 1\n",
            },
        ],
    }
    result = pool.run_suite(code, suite, FAST)
    assert result.verdict == "passed", result.to_dict()


def test_missing_entry_point_is_a_runtime_error(pool):
    check = "def check(candidate):\n    assert candidate(1) == 1\n"
    tests = [{"kind": "call", "args": [1], "expected": 1}, {"kind": "assert", "source": check}]
    result = pool.run_suite(
        "def other(x):\n    return x\n", {"entry_point": "solve", "aliases": ["solution"], "tests": tests}, FAST
    )
    assert verdicts(result) == ["runtime_error", "runtime_error"]
    assert [t.error_class for t in result.tests] == ["MissingEntryPoint", "MissingEntryPoint"]
    assert "solve" in result.tests[0].got and "solve" in result.tests[1].got


def test_walrus_expressions_drive_a_class(pool):
    code = """
from collections import OrderedDict
class LRUCache:
    def __init__(self, capacity):
        self.cap, self.data = capacity, OrderedDict()
    def get(self, key):
        if key not in self.data:
            return -1
        self.data.move_to_end(key)
        return self.data[key]
    def put(self, key, value):
        self.data[key] = value
        self.data.move_to_end(key)
        if len(self.data) > self.cap:
            self.data.popitem(last=False)
"""
    expr = "[(c := LRUCache(2)).put(1, 1), c.put(2, 2), c.get(1), c.put(3, 3), c.get(2), c.put(4, 4), c.get(1), c.get(3), c.get(4)]"
    suite = {
        "entry_point": "LRUCache",
        "tests": [{"kind": "call", "expr": expr, "expected": [None, None, 1, None, -1, None, -1, 3, 4]}],
    }
    assert pool.run_suite(code, suite, FAST).verdict == "passed"


def test_assert_tests_humaneval_style(pool):
    code = """
import math
def poly(xs, x):
    return sum(c * math.pow(x, i) for i, c in enumerate(xs))
def find_zero(xs):
    lo, hi = -1e6, 1e6
    for _ in range(200):
        mid = (lo + hi) / 2
        if poly(xs, lo) * poly(xs, mid) <= 0:
            hi = mid
        else:
            lo = mid
    return lo
def parse(text):
    if not text:
        raise ValueError('empty')
    return int(text)
"""
    check_zero = """
import math, copy
def check(candidate):
    for coeffs in ([1, 2], [-6, 11, -6, 1]):
        solution = candidate(copy.deepcopy(coeffs))
        assert math.fabs(poly(coeffs, solution)) < 1e-4
"""
    check_raises = """
def check(candidate):
    assert candidate('12') == 12
    try:
        candidate('')
    except ValueError as exc:
        assert 'empty' in str(exc)
    else:
        raise AssertionError('no ValueError')
"""
    suite = {
        "entry_point": "find_zero",
        "tests": [
            {"kind": "assert", "source": check_zero},
            {"kind": "assert", "source": check_raises, "call": "check(parse)"},
            {"kind": "assert", "source": "def check(candidate):\n    assert candidate([1, 1]) == 5, 'far off'\n"},
            {
                "kind": "assert",
                "source": "def check(candidate):\n    assert candidate('x') == 1\n",
                "call": "check(parse)",
            },
        ],
    }
    result = pool.run_suite(code, suite, FAST)
    assert verdicts(result) == ["passed", "passed", "wrong_answer", "runtime_error"], result.to_dict()
    wrong, crashed = result.tests[2], result.tests[3]
    assert wrong.expected == "assert candidate([1, 1]) == 5, 'far off'"
    assert wrong.got == "AssertionError: far off"
    assert crashed.error_class == "ValueError" and "invalid literal" in crashed.got


def test_smoke_assert_with_empty_source_and_no_entry_point(pool):
    suite = {"entry_point": None, "tests": [{"kind": "assert", "name": "smoke", "source": "", "call": "None"}]}
    assert pool.run_suite("x = 1\n", suite, FAST).verdict == "passed"
    assert pool.run_suite("raise SystemExit(3)\n", suite, FAST).verdict == "runtime_error"


def test_stdio_tests_normalise_trailing_whitespace(pool):
    code = """
import sys
data = sys.stdin.read().split()
n = int(data[0])
nums = list(map(int, data[1:1 + n]))
print(sum(nums), '   ')
print(max(nums))
print()
"""
    suite = {
        "tests": [
            {"kind": "stdio", "stdin": "3\n1 2 3\n", "expected_stdout": "6\n3"},
            {"kind": "stdio", "stdin": "2\n5 -1", "expected_stdout": "4\r\n5\r\n\r\n"},
            {"kind": "stdio", "stdin": "1\n7\n", "expected_stdout": "7\n7 extra\n"},
        ]
    }
    result = pool.run_suite(code, suite, FAST)
    assert verdicts(result) == ["passed", "passed", "wrong_answer"]


def test_stdio_reads_fd_zero_and_exit_codes_matter(pool):
    reader = "import sys\nprint(sum(map(int, open(0).read().split())))\nsys.exit(0)\n"
    suite = {"tests": [{"kind": "stdio", "stdin": "1 2 3", "expected_stdout": "6"}]}
    assert pool.run_suite(reader, suite, FAST).verdict == "passed"
    failing = "print(6)\nraise SystemExit(2)\n"
    result = pool.run_suite(failing, suite, FAST)
    assert result.verdict == "runtime_error" and result.tests[0].error_class == "SystemExit"
    binary = "import sys\nsys.stdout.write(str(len(sys.stdin.buffer.read())))\n"
    assert pool.run_suite(binary, {"tests": [{"kind": "stdio", "stdin": "héllo", "expected_stdout": "6"}]}, FAST).passed


def test_mixed_kinds_in_one_suite(pool):
    code = "import sys\ndef double(x):\n    return 2 * x\nif __name__ == '__main__':\n    print(double(int(input())))\n"
    suite = {
        "entry_point": "double",
        "tests": [
            {"kind": "call", "args": [4], "expected": 8},
            {"kind": "stdio", "stdin": "5\n", "expected_stdout": "10\n"},
            {"kind": "assert", "source": "def check(candidate):\n    assert candidate(-1) == -2\n"},
        ],
    }
    result = pool.run_suite(code, suite, FAST)
    assert result.verdict == "passed", result.to_dict()


def test_syntax_error_fails_every_test(pool):
    suite = {
        "entry_point": "f",
        "tests": [{"kind": "call", "args": [], "expected": 1}] * 2
        + [{"kind": "stdio", "stdin": "", "expected_stdout": ""}],
    }
    result = pool.run_suite("def f(:\n    return 1\n", suite, FAST)
    assert result.verdict == "syntax_error"
    assert verdicts(result) == ["syntax_error"] * 3
    assert "line 1" in result.tests[0].got


def test_exception_while_loading_fails_each_dependent_test(pool):
    suite = {"entry_point": "f", "tests": [{"kind": "call", "args": [], "expected": 1}] * 2}
    result = pool.run_suite("import missing_module_xyz\ndef f():\n    return 1\n", suite, FAST)
    assert verdicts(result) == ["runtime_error"] * 2
    assert result.tests[0].error_class == "ModuleNotFoundError"
    assert result.tests[0].got.startswith("while loading the candidate")


def test_runtime_error_carries_traceback_and_stderr(pool):
    code = "import sys\ndef f(x):\n    print('debug line', file=sys.stderr)\n    return 1 // x\n"
    result = pool.run_suite(code, {"entry_point": "f", "tests": [{"kind": "call", "args": [0], "expected": 0}]}, FAST)
    (test,) = result.tests
    assert (test.verdict, test.error_class) == ("runtime_error", "ZeroDivisionError")
    assert "return 1 // x" in test.stderr and "debug line" in test.stderr


def test_stdout_excerpt_and_determinism_of_hashing(pool):
    code = "def f():\n    print('hello from the candidate')\n    return list({'alpha', 'beta', 'gamma', 'delta', 'epsilon'})\n"
    suite = {"entry_point": "f", "tests": [{"kind": "call", "args": [], "expected": []}]}
    first, second = pool.run_suite(code, suite, FAST), pool.run_suite(code, suite, FAST)
    assert "hello from the candidate" in first.stdout
    assert first.tests[0].got == second.tests[0].got  # fixed hash seed: the same set order every run


SPIN_CPU = (
    "import time\ndef f(x):\n    end = time.process_time() + x\n    while time.process_time() < end:\n"
    "        pass\n    return x\n"
)


def test_suite_time_limit_marks_unstarted_tests(pool):
    suite = {"entry_point": "f", "tests": [{"kind": "call", "args": [0.6], "expected": 0.6}] * 4}
    result = pool.run_suite(SPIN_CPU, suite, Limits(timeout_s=5.0, suite_timeout_s=1.5))
    assert verdicts(result)[:2] == ["passed", "passed"]
    assert [t.error_class for t in result.tests[2:]] == ["SuiteTimeLimit"] * 2  # cut mid-test, then never started
    assert result.verdict == "timeout"
    assert 1.5 <= result.cpu_s < 2.5


def test_a_sleeping_suite_is_ended_by_the_suites_wall_backstop(pool):
    code = "import time\ndef f(x):\n    time.sleep(x)\n    return x\n"
    suite = {"entry_point": "f", "tests": [{"kind": "call", "args": [0.6], "expected": 0.6}] * 4}
    limits = Limits(timeout_s=5.0, suite_timeout_s=0.2, wall_factor=1.0, wall_grace_s=1.0)  # suite backstop 1.2 s
    result = pool.run_suite(code, suite, limits)
    assert verdicts(result)[0] == "passed" and result.tests[-1].error_class == "SuiteTimeLimit"
    assert result.limits["suite_wall_backstop_s"] == 1.2 and result.duration_s < 1.2 + 5


def test_run_many_preserves_order_and_is_parallel_safe(pool):
    jobs = [
        (f"def f():\n    return {i}\n", {"entry_point": "f", "tests": [{"kind": "call", "args": [], "expected": i}]})
        for i in range(24)
    ]
    results = pool.run_many(jobs)
    assert [r.verdict for r in results] == ["passed"] * 24
    assert [r.tests[0].got for r in results] == [str(i) for i in range(24)]


def test_pool_is_thread_safe(pool):
    outcomes: list[str] = []
    lock = threading.Lock()

    def work(i: int) -> None:
        result = pool.run_suite(
            f"def f():\n    return {i}\n", {"entry_point": "f", "tests": [{"kind": "call", "args": [], "expected": i}]}
        )
        with lock:
            outcomes.append(result.verdict)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert outcomes == ["passed"] * 8


def test_malformed_suites_raise_before_running(pool):
    with pytest.raises(SuiteError, match=r"tests\[0\]\.kind"):
        pool.run_suite("x = 1", {"tests": [{"kind": "unit"}]})
    with pytest.raises(SuiteError, match=r"jobs\[1\]: tests"):
        pool.run_many([("x = 1", {"tests": [{"kind": "stdio", "expected_stdout": ""}]}), ("x = 1", {"tests": []})])
    with pytest.raises(TypeError):
        pool.run_suite(b"x = 1", {"tests": [{"kind": "stdio", "expected_stdout": ""}]})  # type: ignore[arg-type]


def test_result_round_trips_through_json(pool):
    result = pool.run_suite(
        COIN_CHANGE, {"entry_point": "coinChange", "tests": [{"kind": "call", "args": [[1], 2], "expected": 2}]}
    )
    data = json.loads(json.dumps(result.to_dict()))
    assert SuiteResult.from_dict(data) == result
    assert data["policy_version"] and data["isolation"]


def test_isolation_layers_are_reported_honestly(pool):
    report = isolation_report(pool)
    assert report, "no layers reported"
    for layer, state in report.items():
        assert state == "active" or state.startswith("unavailable: "), (layer, state)
    for layer in ("process_group", "rlimits", "clean_environment", "output_caps", "verdict_channel", "probe_job"):
        assert report[layer] == "active", (layer, report[layer])


def test_module_level_run_suite_uses_a_default_pool():
    try:
        suite = {"entry_point": "f", "tests": [{"kind": "call", "args": [], "expected": "ok"}]}
        assert run_suite("def f():\n    return 'ok'\n", suite).passed
        assert default_pool() is default_pool()
    finally:
        default_pool().close()


def test_closing_a_pool_leaves_no_process_behind():
    pool = SandboxPool(workers=2)
    code = "import os, time\ndef f():\n    pid = os.fork()\n    if pid == 0:\n        time.sleep(600)\n    return pid\n"
    result = pool.run_suite(code, {"entry_point": "f", "tests": [{"kind": "call", "args": [], "expected": 0}]})
    forked = int(result.tests[0].got)
    workers = pool.worker_pids()
    cgroup_dirs = [d for w in pool._workers for d in w.cgroup_dirs]
    pool.close()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and any(os.path.exists(f"/proc/{pid}") for pid in [*workers, forked]):
        time.sleep(0.05)
    assert not [pid for pid in [*workers, forked] if os.path.exists(f"/proc/{pid}")], "processes survived close()"
    assert not [d for d in cgroup_dirs if os.path.exists(d)], "job cgroups were not removed"
    with pytest.raises(SandboxUnavailable):
        pool.run_suite("x = 1", {"tests": [{"kind": "stdio", "expected_stdout": ""}]})


def test_a_worker_killed_mid_job_gives_a_harness_error_and_is_replaced():
    call = {"entry_point": "f", "tests": [{"kind": "call", "args": [], "expected": 1}]}
    with SandboxPool(workers=1) as pool:
        (victim,) = pool.worker_pids()
        timer = threading.Timer(0.5, os.kill, (victim, signal.SIGKILL))
        timer.start()
        result = pool.run_suite("import time\ndef f():\n    time.sleep(30)\n    return 1\n", call, Limits(timeout_s=20))
        timer.join()
        assert result.verdict == "harness_error" and result.tests_passed == 0
        assert "worker failed" in result.error
        assert pool.worker_pids() != [victim]
        assert pool.run_suite("def f():\n    return 1\n", call).passed


def test_a_pool_is_not_used_from_a_forked_copy_of_the_host(pool):
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the forked host copy must refuse, and must not shut the parent's workers down
        try:
            pool.run_suite("x = 1", {"tests": [{"kind": "stdio", "expected_stdout": ""}]})
            os.write(write_end, b"ran")
        except SandboxUnavailable:
            os.write(write_end, b"refused")
        finally:
            os._exit(0)
    os.close(write_end)
    os.waitpid(pid, 0)
    assert os.read(read_end, 16) == b"refused"
    os.close(read_end)
    assert pool.run_suite(
        "def f():\n    return 1\n", {"entry_point": "f", "tests": [{"kind": "call", "args": [], "expected": 1}]}
    ).passed
