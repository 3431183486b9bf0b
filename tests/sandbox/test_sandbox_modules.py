"""Correct programs using each allowed standard-library module pass inside the sandbox (C accelerators included)."""

from __future__ import annotations

import pytest

from sandbox import Limits, SandboxPool
from sandbox.preload import ALLOWED_MODULES

pytestmark = pytest.mark.integration

# module -> (program defining f(), expected result of f())
PROGRAMS: dict[str, tuple[str, object]] = {
    "bisect": (
        "import bisect\ndef f():\n    a = [1, 3, 5]\n    bisect.insort(a, 4)\n    return [bisect.bisect_left(a, 4), a]",
        [2, [1, 3, 4, 5]],
    ),
    "heapq": (
        "import heapq\ndef f():\n    h = [5, 1, 4]\n    heapq.heapify(h)\n    return [heapq.heappop(h), heapq.nsmallest(2, [9, 2, 7])]",
        [1, [2, 7]],
    ),
    "collections": (
        "from collections import Counter, deque, defaultdict, OrderedDict, namedtuple\n"
        "def f():\n    d = defaultdict(list); d['a'].append(1)\n    P = namedtuple('P', 'x y')\n"
        "    q = deque([1, 2]); q.appendleft(0)\n    return [Counter('abca').most_common(1), dict(d), P(1, 2), q, OrderedDict(b=1)]",
        [[["a", 2]], {"a": [1]}, [1, 2], [0, 1, 2], {"b": 1}],
    ),
    "functools": (
        "from functools import lru_cache, reduce\n@lru_cache(None)\ndef fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\ndef f():\n    return [fib(80), reduce(lambda a, b: a * b, range(1, 6))]",
        [23416728348467685, 120],
    ),
    "itertools": (
        "import itertools\ndef f():\n    return [list(itertools.permutations('ab')), list(itertools.accumulate([1, 2, 3]))]",
        [[["a", "b"], ["b", "a"]], [1, 3, 6]],
    ),
    "math": (
        "import math\ndef f():\n    return [math.gcd(12, 18), math.comb(5, 2), math.isqrt(17), round(math.pi, 3)]",
        [6, 10, 4, 3.142],
    ),
    "re": ("import re\ndef f():\n    return re.findall(r'\\d+', 'a1b22c333')", ["1", "22", "333"]),
    "dataclasses": (
        "from __future__ import annotations\nfrom dataclasses import dataclass, field, asdict\n"
        "@dataclass(order=True)\nclass Item:\n    cost: int\n    name: str = field(compare=False)\n"
        "def f():\n    return [asdict(min(Item(3, 'x'), Item(1, 'y')))]",
        [{"cost": 1, "name": "y"}],
    ),
    "typing": (
        "from typing import List, Optional, Dict, NamedTuple\nclass P(NamedTuple):\n    x: int\ndef f(a: Optional[List[int]] = None) -> Dict[str, int]:\n    return {'x': P(3).x}",
        {"x": 3},
    ),
    "json": ("import json\ndef f():\n    return json.loads(json.dumps({'a': [1, 2.5, None]}))", {"a": [1, 2.5, None]}),
    "string": ("import string\ndef f():\n    return string.ascii_lowercase[:3] + string.digits[-1]", "abc9"),
    "statistics": (
        "import statistics\ndef f():\n    return [statistics.median([3, 1, 2]), statistics.mean([1, 2])]",
        [2, 1.5],
    ),
    "fractions": ("from fractions import Fraction\ndef f():\n    return str(Fraction(1, 3) + Fraction(1, 6))", "1/2"),
    "decimal": (
        "from decimal import Decimal, getcontext\ndef f():\n    getcontext().prec = 5\n    return str(Decimal(1) / Decimal(7))",
        "0.14286",
    ),
    "datetime": (
        "from datetime import date, datetime\ndef f():\n    d = datetime.strptime('2024-03-01', '%Y-%m-%d').date()\n    return (d - date(2024, 2, 1)).days",
        29,
    ),
    "random": (
        "import random\ndef f():\n    rng = random.Random(7)\n    xs = [rng.randint(1, 6) for _ in range(5)]\n    return all(1 <= x <= 6 for x in xs)",
        True,
    ),
    "operator": (
        "import operator\ndef f():\n    return sorted([(1, 'b'), (0, 'a')], key=operator.itemgetter(1))",
        [[0, "a"], [1, "b"]],
    ),
    "array": ("from array import array\ndef f():\n    return array('i', [1, 2, 3]).tolist()", [1, 2, 3]),
    "copy": ("import copy\ndef f():\n    a = [[1]]\n    b = copy.deepcopy(a); b[0].append(2)\n    return a", [[1]]),
    "enum": (
        "from enum import Enum, IntEnum\nclass C(IntEnum):\n    R = 2\ndef f():\n    return [C.R + 1, C(2).name]",
        [3, "R"],
    ),
    "graphlib": (
        "from graphlib import TopologicalSorter\ndef f():\n    return list(TopologicalSorter({'b': {'a'}, 'c': {'b'}}).static_order())",
        ["a", "b", "c"],
    ),
    "hashlib": ("import hashlib\ndef f():\n    return hashlib.sha256(b'abc').hexdigest()[:8]", "ba7816bf"),
    "string_methods_and_codecs": (
        "def f():\n    return ['é'.encode('latin-1').hex(), 'ß'.upper(), 'ab'.encode('utf-16-le').decode('utf-16-le')]",
        ["e9", "SS", "ab"],
    ),
    "unicodedata": (
        "import unicodedata\ndef f():\n    return unicodedata.name('é')",
        "LATIN SMALL LETTER E WITH ACUTE",
    ),
    "textwrap": ("import textwrap\ndef f():\n    return textwrap.wrap('aa bb cc', 5)", ["aa bb", "cc"]),
    "cmath": ("import cmath\ndef f():\n    return abs(cmath.sqrt(-4))", 2.0),
    "struct": ("import struct\ndef f():\n    return struct.unpack('<I', struct.pack('<I', 258))[0]", 258),
    "itertools_and_sys": (
        "import sys\nsys.setrecursionlimit(5000)\ndef g(n):\n    return 0 if n == 0 else 1 + g(n - 1)\ndef f():\n    return g(3000)",
        3000,
    ),
    "threading": (
        "import threading\ndef f():\n    out = []\n    t = threading.Thread(target=out.append, args=(5,))\n    t.start(); t.join()\n    return out",
        [5],
    ),
    "queue": (
        "import queue\ndef f():\n    q = queue.PriorityQueue()\n    for x in (3, 1, 2):\n        q.put(x)\n    return [q.get() for _ in range(3)]",
        [1, 2, 3],
    ),
    "uuid": ("import uuid\ndef f():\n    return len(str(uuid.uuid4()))", 36),
    "pickle": ("import pickle\ndef f():\n    return pickle.loads(pickle.dumps({'a': (1, 2)}))", {"a": [1, 2]}),
    "pathlib": (
        "from pathlib import Path\ndef f():\n    Path('x.txt').write_text('hi')\n    return Path('x.txt').read_text()",
        "hi",
    ),
    "tempfile_in_job_dir": (
        "import os\ndef f():\n    open('scratch.txt', 'w').write('abc')\n    return [open('scratch.txt').read(), os.path.exists(os.environ['TMPDIR'])]",
        ["abc", True],
    ),
}


@pytest.fixture(scope="module")
def pool():
    with SandboxPool(workers=2) as shared:
        yield shared


def test_every_program_named_here_uses_an_allowed_module():
    for name in PROGRAMS:
        module = name.split("_")[0]
        assert module in ALLOWED_MODULES or name in {
            "string_methods_and_codecs",
            "itertools_and_sys",
            "tempfile_in_job_dir",
        }


def test_allowed_modules_work_in_the_sandbox(pool):
    names = list(PROGRAMS)
    suite = lambda expected: {"entry_point": "f", "tests": [{"kind": "call", "args": [], "expected": expected}]}  # noqa: E731
    results = pool.run_many([(PROGRAMS[n][0], suite(PROGRAMS[n][1]), Limits(timeout_s=5.0)) for n in names])
    failed = {
        n: (r.verdict, r.tests[0].got, r.tests[0].stderr[-300:])
        for n, r in zip(names, results, strict=True)
        if not r.passed
    }
    assert not failed


def test_every_allowed_module_imports(pool):
    code = "import importlib\ndef f(names):\n    return [n for n in names if importlib.import_module(n) is None]\n"
    suite = {"entry_point": "f", "tests": [{"kind": "call", "args": [list(ALLOWED_MODULES)], "expected": []}]}
    result = pool.run_suite(code, suite)
    assert result.passed, result.tests[0].got


def test_modules_outside_the_sandbox_set_fail_clearly(pool):
    suite = {"entry_point": "f", "tests": [{"kind": "call", "args": [], "expected": 1}]}
    result = pool.run_suite("import subprocess\ndef f():\n    return 1\n", suite)
    assert result.verdict == "runtime_error"
    assert result.tests[0].error_class == "ModuleNotFoundError"
    assert "sandbox" in result.tests[0].got
