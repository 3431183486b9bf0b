"""Wrong-but-plausible programs that pass a problem's original tests and must fail its amplified suite.

Each is a bug people write: a sentinel off by one, a missing guard, a wrong starting value,
the wrong centre, a missing de-duplication. Keyed by problem id (internal-30 and HumanEval).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from execugraph.store import Store

WRONG_PLAUSIBLE: dict[str, str] = {}

# Parent sentinel 0 instead of -1: an edge back to node 0 from its child is not seen as a cycle.
WRONG_PLAUSIBLE["cycle_detect"] = """
def hasCycle(adj):
    seen = [False] * len(adj)
    for start in range(len(adj)):
        if seen[start]:
            continue
        seen[start] = True
        stack = [(start, 0)]
        while stack:
            u, parent = stack.pop()
            for v in adj[u]:
                if not seen[v]:
                    seen[v] = True
                    stack.append((v, u))
                elif v != parent:
                    return True
    return False
"""

# Relaxes edges out of unreachable nodes (inf + negative weight), so a negative cycle the source
# cannot reach is reported.
WRONG_PLAUSIBLE["bellman_ford"] = """
def bellmanFord(n, edges, s):
    inf = float("inf")
    dist = [inf] * n
    dist[s] = 0
    for _ in range(n - 1):
        for u, v, w in edges:
            if dist[u] + w < dist[v]:
                dist[v] = dist[u] + w
    for u, v, w in edges:
        if dist[u] + w < dist[v]:
            return None
    return dist
"""

# Checks the top-right corner instead of the goal cell before searching.
WRONG_PLAUSIBLE["grid_shortest_path"] = """
from collections import deque

def shortestPath(grid):
    if not grid or not grid[0] or grid[0][0] != 0 or grid[0][-1] != 0:
        return -1
    rows, cols = len(grid), len(grid[0])
    length = {(0, 0): 1}
    queue = deque([(0, 0)])
    while queue:
        r, c = queue.popleft()
        if (r, c) == (rows - 1, cols - 1):
            return length[(r, c)]
        for nr, nc in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
            if 0 <= nr < rows and 0 <= nc < cols and grid[nr][nc] == 0 and (nr, nc) not in length:
                length[(nr, nc)] = length[(r, c)] + 1
                queue.append((nr, nc))
    return -1
"""

# Starts the maximum at 0: wrong whenever every element is negative.
WRONG_PLAUSIBLE["humaneval_35"] = """
def max_element(l):
    best = 0
    for e in l:
        if e > best:
            best = e
    return best
"""

# Deviation around the median instead of the mean (equal on the symmetric originals).
WRONG_PLAUSIBLE["humaneval_4"] = """
def mean_absolute_deviation(numbers):
    ordered = sorted(numbers)
    mid = len(ordered) // 2
    centre = ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2
    return sum(abs(x - centre) for x in numbers) / len(numbers)
"""

# Keeps duplicates of the first list (the originals have none).
WRONG_PLAUSIBLE["humaneval_58"] = """
def common(l1, l2):
    return sorted(e for e in l1 if e in l2)
"""


def seed_two_arms(store: Store, problems: dict[str, Any], ids: tuple[str, ...] | list[str], title: str) -> int:
    """A finished internal-30 batch of two arms that all pass the original tests: single-oneshot runs each
    problem's reference, single-retry the plausible wrong program where there is one. Returns the run id."""
    from execugraph.amplify.references import reference_for
    from execugraph.configuration.conditions import resolve_condition
    from execugraph.store import Trial, utcnow
    from execugraph.store.bulk_insert import bulk_writes

    config = {c: resolve_condition(c).model_dump() for c in ("single-oneshot", "single-retry")}
    run_id = store.create_run("batch", title, {"conditions": config}, benchmark="internal30", status="done")
    rows = []
    for condition in config:
        for pid in ids:
            code = reference_for(problems[pid])
            if condition == "single-retry":
                code = WRONG_PLAUSIBLE.get(pid, code)
            rows.append({"run_id": run_id, "problem_id": pid, "benchmark": "internal30", "category": "x",
                         "condition": condition, "seed": 0, "trial_index": 0, "status": "done", "passed": True,
                         "tests_passed": 1, "tests_total": 1, "test_source": "problem", "error_class": None,
                         "final_code": code, "finished_at": utcnow()})
    with bulk_writes(store) as bulk:
        bulk.insert(Trial, rows)
    return run_id
