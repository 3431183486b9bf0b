"""Reference solutions and near misses for internal-30.

`REFERENCE[problem_id]` is a complete candidate program, read from data/references/internal30.jsonl
(the one copy, also what `amplify` computes expected outputs with; outside data/internal30, which is
all the benchmark loader and the prompts read); the integration suite runs each one through the real
sandbox against every test of its problem and requires a clean pass.
`WRONG[problem_id]` holds plausible near-miss programs (off-by-one, wrong convention, missing
edge case) that must FAIL, which proves the tests can tell them apart.
"""

from __future__ import annotations

import json
from pathlib import Path

_FILE = Path(__file__).resolve().parents[2] / "data" / "references" / "internal30.jsonl"
REFERENCE: dict[str, str] = {
    record["id"]: record["reference"] for record in map(json.loads, _FILE.read_text().splitlines()) if record
}
WRONG: dict[str, str] = {}

# --------------------------------------------------------------------------- dp

# ------------------------------------------------------------------------ graph

# --------------------------------------------------------------------------- ds

# ------------------------------------------------- near misses that must fail

WRONG["fib"] = """
def fib(n):
    a, b = 1, 1  # off by one: starts the sequence at F(1)
    for _ in range(n):
        a, b = b, a + b
    return a
"""

WRONG["coin_change"] = """
def coinChange(coins, amount):
    count = 0  # greedy: largest coin first, wrong for [1, 3, 4] -> 6
    for coin in sorted(coins, reverse=True):
        while amount >= coin > 0:
            amount -= coin
            count += 1
    return count if amount == 0 else -1
"""

WRONG["lis"] = """
def lengthOfLIS(nums):
    best = [1] * len(nums)  # non-decreasing instead of strictly increasing
    for i in range(len(nums)):
        for j in range(i):
            if nums[j] <= nums[i]:
                best[i] = max(best[i], best[j] + 1)
    return max(best, default=0)
"""

WRONG["topo_sort"] = """
def findOrder(numCourses, prerequisites):
    after = [[] for _ in range(numCourses)]  # edge direction reversed: a before b
    indegree = [0] * numCourses
    for a, b in prerequisites:
        after[a].append(b)
        indegree[b] += 1
    ready = [i for i in range(numCourses) if indegree[i] == 0]
    order = []
    while ready:
        u = ready.pop(0)
        order.append(u)
        for v in after[u]:
            indegree[v] -= 1
            if indegree[v] == 0:
                ready.append(v)
    return order if len(order) == numCourses else []
"""

WRONG["dijkstra"] = """
def dijkstra(adj, s):
    dist = [-1] * len(adj)  # -1 instead of inf for unreachable
    dist[s] = 0
    done = set()
    while True:
        best = None
        for u, d in enumerate(dist):
            if d >= 0 and u not in done and (best is None or d < dist[best]):
                best = u
        if best is None:
            return dist
        done.add(best)
        for v, w in adj[best]:
            if dist[v] < 0 or dist[best] + w < dist[v]:
                dist[v] = dist[best] + w
"""

WRONG["grid_shortest_path"] = """
from collections import deque

def shortestPath(grid):
    if not grid or grid[0][0] or grid[-1][-1]:
        return -1
    rows, cols = len(grid), len(grid[0])
    steps = {(0, 0): 0}  # counts moves, not cells: one less than required
    queue = deque([(0, 0)])
    while queue:
        r, c = queue.popleft()
        if (r, c) == (rows - 1, cols - 1):
            return steps[(r, c)]
        for nr, nc in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
            if 0 <= nr < rows and 0 <= nc < cols and not grid[nr][nc] and (nr, nc) not in steps:
                steps[(nr, nc)] = steps[(r, c)] + 1
                queue.append((nr, nc))
    return -1
"""

WRONG["lru_cache"] = """
class LRUCache:
    def __init__(self, capacity):
        self.capacity = capacity
        self.items = {}  # evicts the oldest inserted, ignoring recent gets (FIFO)

    def get(self, key):
        return self.items.get(key, -1)

    def put(self, key, value):
        if key not in self.items and len(self.items) >= self.capacity:
            del self.items[next(iter(self.items))]
        self.items[key] = value
"""

WRONG["valid_parentheses"] = """
def isValid(s):
    depth = 0  # counts brackets but ignores their kind and nesting order
    for ch in s:
        depth += 1 if ch in "([{" else -1
        if depth < 0:
            return False
    return depth == 0
"""

WRONG["avl"] = """
class AVL:
    def __init__(self):
        self.root = None  # plain recursive BST: unbalanced, so sorted input recurses too deep

    def insert(self, key):
        def put(node, key):
            if node is None:
                return [key, None, None]
            if key < node[0]:
                node[1] = put(node[1], key)
            elif key > node[0]:
                node[2] = put(node[2], key)
            return node
        self.root = put(self.root, key)

    def inorder(self):
        out = []
        def walk(node):
            if node:
                walk(node[1])
                out.append(node[0])
                walk(node[2])
        walk(self.root)
        return out
"""

WRONG["bellman_ford"] = """
def bellmanFord(n, edges, s):
    inf = float("inf")
    dist = [inf] * n
    dist[s] = 0
    for _ in range(n - 2):  # one relaxation round short
        for u, v, w in edges:
            if dist[u] != inf and dist[u] + w < dist[v]:
                dist[v] = dist[u] + w
    for u, v, w in edges:
        if dist[u] != inf and dist[u] + w < dist[v]:
            return None
    return dist
"""
