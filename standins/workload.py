"""The toy multi-agent workload shared by the throughput benchmarks (bench/batch.py, bench/scale.py)."""

from __future__ import annotations

import json

from execugraph.domain.problem import Problem

GOOD = "```python\ndef double(x):\n    return 2 * x\n```"
REPLIES = {
    "planner": ["1. multiply by two"],
    "generator": [GOOD],
    "reviewer": [json.dumps({"invariants": [], "potential_failures": [], "severity": "low"})],
    "optimizer": [GOOD],
    "explainer": ["doubles x"],
    "evaluator": ["[]"],
}


def problems(n: int) -> list[Problem]:
    """n trivially solvable problems with five tests each, so every trial passes on the first attempt."""
    tests = [{"kind": "call", "expr": f"double({i})", "expected": 2 * i} for i in range(5)]
    return [Problem(id=f"p{i}", benchmark="bench", statement=f"Double x ({i}).", entry_point="double", tests=tests)
            for i in range(n)]
