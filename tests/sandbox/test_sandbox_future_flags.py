"""Candidates compile with their own __future__ flags, never the harness's (results match plain Python)."""

import pytest

from sandbox import SandboxPool

pytestmark = pytest.mark.integration


def test_annotations_are_evaluated_as_in_plain_python():
    code = "def f(x: List[int]) -> int:\n    return len(x)\n"  # NameError in plain Python: List is not imported
    suite = {"entry_point": "f", "aliases": [], "tests": [{"kind": "call", "expr": "f([1, 2])", "expected": 2}]}
    with SandboxPool(workers=1) as pool:
        result = pool.run_suite(code, suite)
        fixed = pool.run_suite("from typing import List\n" + code, suite)
    assert result.verdict == "runtime_error" and "NameError" in result.tests[0].got
    assert fixed.verdict == "passed"
