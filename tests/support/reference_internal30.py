"""Reference solutions for internal-30, kept with the tests (never in data/) so no prompt can leak them.

`REFERENCE[problem_id]` is a complete candidate program; the integration suite runs each one
through the real sandbox against every test of its problem and requires a clean pass.
`WRONG[problem_id]` holds plausible near-miss programs (off-by-one, wrong convention, missing
edge case) that must FAIL, which proves the tests can tell them apart.
"""

from __future__ import annotations

REFERENCE: dict[str, str] = {}
WRONG: dict[str, str] = {}

# --------------------------------------------------------------------------- dp

REFERENCE["fib"] = """
def fib(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a
"""

REFERENCE["climb_stairs"] = """
def climbStairs(n):
    a, b = 1, 1  # ways to reach steps i-1 and i, starting with i = 0
    for _ in range(n):
        a, b = b, a + b
    return a
"""

REFERENCE["coin_change"] = """
def coinChange(coins, amount):
    inf = float("inf")
    best = [0] + [inf] * amount
    for total in range(1, amount + 1):
        for coin in coins:
            if 0 < coin <= total and best[total - coin] + 1 < best[total]:
                best[total] = best[total - coin] + 1
    return -1 if best[amount] == inf else best[amount]
"""

REFERENCE["lcs"] = """
def longestCommonSubsequence(a, b):
    prev = [0] * (len(b) + 1)
    for ch in a:
        cur = [0]
        for j, other in enumerate(b):
            cur.append(prev[j] + 1 if ch == other else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1]
"""

REFERENCE["house_robber"] = """
def rob(nums):
    take, skip = 0, 0
    for value in nums:
        take, skip = skip + value, max(take, skip)
    return max(take, skip)
"""

REFERENCE["min_cost_path"] = """
def minPathSum(grid):
    if not grid or not grid[0]:
        return 0
    rows, cols = len(grid), len(grid[0])
    cost = [[0] * cols for _ in range(rows)]
    for r in range(rows):
        for c in range(cols):
            if r == 0 and c == 0:
                cost[r][c] = grid[0][0]
            elif r == 0:
                cost[r][c] = cost[r][c - 1] + grid[r][c]
            elif c == 0:
                cost[r][c] = cost[r - 1][c] + grid[r][c]
            else:
                cost[r][c] = min(cost[r - 1][c], cost[r][c - 1]) + grid[r][c]
    return cost[-1][-1]
"""

REFERENCE["lis"] = """
import bisect

def lengthOfLIS(nums):
    tails = []
    for x in nums:
        i = bisect.bisect_left(tails, x)
        if i == len(tails):
            tails.append(x)
        else:
            tails[i] = x
    return len(tails)
"""

REFERENCE["rod_cutting"] = """
def rodCutting(prices, n):
    best = [0] * (n + 1)
    for length in range(1, n + 1):
        for piece in range(1, min(length, len(prices)) + 1):
            best[length] = max(best[length], best[length - piece] + prices[piece - 1])
    return best[n]
"""

REFERENCE["matrix_chain"] = """
def matrixChainOrder(p):
    n = len(p) - 1
    if n < 2:
        return 0
    cost = [[0] * n for _ in range(n)]
    for span in range(2, n + 1):
        for i in range(n - span + 1):
            j = i + span - 1
            cost[i][j] = min(cost[i][k] + cost[k + 1][j] + p[i] * p[k + 1] * p[j + 1] for k in range(i, j))
    return cost[0][n - 1]
"""

REFERENCE["subset_sum"] = """
def subsetSum(nums, target):
    reachable = {0}
    for x in nums:
        reachable |= {s + x for s in reachable if s + x <= target}
    return target in reachable
"""

# ------------------------------------------------------------------------ graph

REFERENCE["topo_sort"] = """
from collections import deque

def findOrder(numCourses, prerequisites):
    after = [[] for _ in range(numCourses)]
    indegree = [0] * numCourses
    for a, b in prerequisites:
        after[b].append(a)
        indegree[a] += 1
    ready = deque(i for i in range(numCourses) if indegree[i] == 0)
    order = []
    while ready:
        u = ready.popleft()
        order.append(u)
        for v in after[u]:
            indegree[v] -= 1
            if indegree[v] == 0:
                ready.append(v)
    return order if len(order) == numCourses else []
"""

REFERENCE["cycle_detect"] = """
def hasCycle(adj):
    seen = [False] * len(adj)
    for start in range(len(adj)):
        if seen[start]:
            continue
        seen[start] = True
        stack = [(start, -1)]
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

REFERENCE["bfs"] = """
from collections import deque

def bfs(adj, s):
    seen = {s}
    order = []
    queue = deque([s])
    while queue:
        u = queue.popleft()
        order.append(u)
        for v in adj[u]:
            if v not in seen:
                seen.add(v)
                queue.append(v)
    return order
"""

REFERENCE["dfs"] = """
def dfs(adj, s):
    seen = set()
    order = []

    def visit(u):
        seen.add(u)
        order.append(u)
        for v in adj[u]:
            if v not in seen:
                visit(v)

    visit(s)
    return order
"""

REFERENCE["dijkstra"] = """
import heapq

def dijkstra(adj, s):
    dist = [float("inf")] * len(adj)
    dist[s] = 0
    heap = [(0, s)]
    while heap:
        d, u = heapq.heappop(heap)
        if d > dist[u]:
            continue
        for v, w in adj[u]:
            if d + w < dist[v]:
                dist[v] = d + w
                heapq.heappush(heap, (dist[v], v))
    return dist
"""

REFERENCE["bellman_ford"] = """
def bellmanFord(n, edges, s):
    inf = float("inf")
    dist = [inf] * n
    dist[s] = 0
    for _ in range(n - 1):
        changed = False
        for u, v, w in edges:
            if dist[u] != inf and dist[u] + w < dist[v]:
                dist[v] = dist[u] + w
                changed = True
        if not changed:
            break
    for u, v, w in edges:
        if dist[u] != inf and dist[u] + w < dist[v]:
            return None
    return dist
"""

REFERENCE["connected_components"] = """
def countComponents(adj):
    seen = [False] * len(adj)
    count = 0
    for start in range(len(adj)):
        if seen[start]:
            continue
        count += 1
        seen[start] = True
        stack = [start]
        while stack:
            u = stack.pop()
            for v in adj[u]:
                if not seen[v]:
                    seen[v] = True
                    stack.append(v)
    return count
"""

REFERENCE["scc"] = """
def countSCC(adj):
    n = len(adj)
    order, seen = [], [False] * n
    for start in range(n):
        if seen[start]:
            continue
        seen[start] = True
        stack = [(start, iter(adj[start]))]
        while stack:
            u, it = stack[-1]
            for v in it:
                if not seen[v]:
                    seen[v] = True
                    stack.append((v, iter(adj[v])))
                    break
            else:
                stack.pop()
                order.append(u)
    reverse = [[] for _ in range(n)]
    for u in range(n):
        for v in adj[u]:
            reverse[v].append(u)
    assigned, count = [False] * n, 0
    for start in reversed(order):
        if assigned[start]:
            continue
        count += 1
        assigned[start] = True
        stack = [start]
        while stack:
            u = stack.pop()
            for v in reverse[u]:
                if not assigned[v]:
                    assigned[v] = True
                    stack.append(v)
    return count
"""

REFERENCE["unweighted_shortest"] = """
from collections import deque

def shortestHops(adj, s):
    hops = [-1] * len(adj)
    hops[s] = 0
    queue = deque([s])
    while queue:
        u = queue.popleft()
        for v in adj[u]:
            if hops[v] == -1:
                hops[v] = hops[u] + 1
                queue.append(v)
    return hops
"""

REFERENCE["grid_shortest_path"] = """
from collections import deque

def shortestPath(grid):
    if not grid or not grid[0] or grid[0][0] != 0 or grid[-1][-1] != 0:
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

# --------------------------------------------------------------------------- ds

REFERENCE["lru_cache"] = """
from collections import OrderedDict

class LRUCache:
    def __init__(self, capacity):
        self.capacity = capacity
        self.items = OrderedDict()

    def get(self, key):
        if key not in self.items:
            return -1
        self.items.move_to_end(key)
        return self.items[key]

    def put(self, key, value):
        self.items[key] = value
        self.items.move_to_end(key)
        if len(self.items) > self.capacity:
            self.items.popitem(last=False)
"""

REFERENCE["min_stack"] = """
class MinStack:
    def __init__(self):
        self.items = []  # (value, minimum of the stack up to here)

    def push(self, val):
        low = val if not self.items else min(val, self.items[-1][1])
        self.items.append((val, low))

    def pop(self):
        self.items.pop()

    def top(self):
        return self.items[-1][0]

    def getMin(self):
        return self.items[-1][1]
"""

REFERENCE["stack_using_queue"] = """
from collections import deque

class MyStack:
    def __init__(self):
        self.queue = deque()

    def push(self, x):
        self.queue.append(x)
        for _ in range(len(self.queue) - 1):
            self.queue.append(self.queue.popleft())

    def pop(self):
        return self.queue.popleft()

    def top(self):
        return self.queue[0]

    def empty(self):
        return not self.queue
"""

REFERENCE["reverse_linked_list"] = """
class ListNode:
    def __init__(self, val=0, next=None):
        self.val = val
        self.next = next

def reverseList(head):
    prev = None
    while head is not None:
        head.next, prev, head = prev, head, head.next
    return prev

def to_list(head):
    values = []
    while head is not None:
        values.append(head.val)
        head = head.next
    return values
"""

REFERENCE["binary_tree_traversal"] = """
class TreeNode:
    def __init__(self, val=0, left=None, right=None):
        self.val = val
        self.left = left
        self.right = right

def inorder(root):
    values, stack, node = [], [], root
    while stack or node is not None:
        while node is not None:
            stack.append(node)
            node = node.left
        node = stack.pop()
        values.append(node.val)
        node = node.right
    return values
"""

REFERENCE["priority_queue"] = """
class PQ:
    def __init__(self):
        self.heap = []

    def push(self, x):
        heap = self.heap
        heap.append(x)
        i = len(heap) - 1
        while i > 0 and heap[(i - 1) // 2] > heap[i]:
            heap[i], heap[(i - 1) // 2] = heap[(i - 1) // 2], heap[i]
            i = (i - 1) // 2

    def pop(self):
        heap = self.heap
        top = heap[0]
        last = heap.pop()
        if heap:
            heap[0] = last
            i = 0
            while True:
                small = i
                for child in (2 * i + 1, 2 * i + 2):
                    if child < len(heap) and heap[child] < heap[small]:
                        small = child
                if small == i:
                    break
                heap[i], heap[small] = heap[small], heap[i]
                i = small
        return top

    def top(self):
        return self.heap[0]

    def empty(self):
        return not self.heap
"""

REFERENCE["heapify"] = """
def heapify(arr):
    n = len(arr)
    for start in range(n // 2 - 1, -1, -1):
        i = start
        while True:
            small = i
            for child in (2 * i + 1, 2 * i + 2):
                if child < n and arr[child] < arr[small]:
                    small = child
            if small == i:
                break
            arr[i], arr[small] = arr[small], arr[i]
            i = small
"""

REFERENCE["avl"] = """
class _Node:
    __slots__ = ("key", "left", "right", "height")

    def __init__(self, key):
        self.key, self.left, self.right, self.height = key, None, None, 1


def _h(node):
    return node.height if node else 0


def _fix(node):
    node.height = 1 + max(_h(node.left), _h(node.right))
    return node


def _rotate_right(y):
    x = y.left
    y.left, x.right = x.right, y
    _fix(y)
    return _fix(x)


def _rotate_left(x):
    y = x.right
    x.right, y.left = y.left, x
    _fix(x)
    return _fix(y)


def _balance(node):
    _fix(node)
    tilt = _h(node.left) - _h(node.right)
    if tilt > 1:
        if _h(node.left.left) < _h(node.left.right):
            node.left = _rotate_left(node.left)
        return _rotate_right(node)
    if tilt < -1:
        if _h(node.right.right) < _h(node.right.left):
            node.right = _rotate_right(node.right)
        return _rotate_left(node)
    return node


def _insert(node, key):
    if node is None:
        return _Node(key)
    if key < node.key:
        node.left = _insert(node.left, key)
    elif key > node.key:
        node.right = _insert(node.right, key)
    else:
        return node
    return _balance(node)


class AVL:
    def __init__(self):
        self.root = None

    def insert(self, key):
        self.root = _insert(self.root, key)

    def inorder(self):
        out = []

        def walk(node):
            if node:
                walk(node.left)
                out.append(node.key)
                walk(node.right)

        walk(self.root)
        return out
"""

REFERENCE["adj_list_construct"] = """
def adjList(n, edges):
    neighbours = [set() for _ in range(n)]
    for u, v in edges:
        neighbours[u].add(v)
        neighbours[v].add(u)
    return [sorted(s) for s in neighbours]
"""

REFERENCE["valid_parentheses"] = """
def isValid(s):
    pairs = {")": "(", "]": "[", "}": "{"}
    stack = []
    for ch in s:
        if ch in pairs:
            if not stack or stack.pop() != pairs[ch]:
                return False
        else:
            stack.append(ch)
    return not stack
"""

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
