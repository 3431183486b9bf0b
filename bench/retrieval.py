"""Retrieval speed: cold start and warm per-query latency, FAISS beside a brute-force numpy search.

Usage: python bench/retrieval.py [--rounds 5] [--scale 100000]

Cold start is measured in fresh subprocesses (imports + model load + index
build with an empty cache, then again with the index cached). Warm latency is
the end-to-end `Retriever.retrieve` time (query embedding + search) over every
statement of the evaluation set, repeated; search alone is compared between
FAISS IndexFlatIP and numpy (matrix product + argpartition) on the real library
and on a synthetic library scaled up to show where the index starts to matter.
Target from issue 6: warm retrieval under 20 ms per query.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

TARGET_MS = 20.0

_CHILD = """
import json, time
t0 = time.perf_counter()
import torch, sentence_transformers, faiss  # noqa: F401
t1 = time.perf_counter()
from execugraph.retrieval.embedder import get_embedder
emb = get_embedder()
t2 = time.perf_counter()
from execugraph.retrieval import Retriever
r = Retriever.load(cache_dir={cache!r}, embedder=emb)
t3 = time.perf_counter()
r.retrieve("shortest route in a road network", k=3)
t4 = time.perf_counter()
print(json.dumps({{"imports": t1 - t0, "model": t2 - t1, "index": t3 - t2, "built": r.last_load_built,
                  "first_query": t4 - t3, "total": t4 - t0}}))
"""


def cold_start(cache: Path) -> dict[str, float]:
    """Run one fresh interpreter through import, model load, index load/build and a first query."""
    out = subprocess.run(
        [sys.executable, "-c", _CHILD.format(cache=str(cache))], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, int(round(q / 100 * len(ordered))) - 1))]


def summarise(samples_s: list[float]) -> tuple[float, float]:
    """Median and p95 in milliseconds."""
    ms = [s * 1000 for s in samples_s]
    return statistics.median(ms), percentile(ms, 95)


def numpy_topk(matrix: np.ndarray, query: np.ndarray, k: int) -> np.ndarray:
    """Brute-force cosine top-k over unit rows: one matrix-vector product and a partial sort."""
    scores = matrix @ query
    k = min(k, len(scores))
    top = np.argpartition(-scores, k - 1)[:k]
    return top[np.argsort(-scores[top])]


def time_searches(matrix: np.ndarray, queries: np.ndarray, k: int, repeats: int) -> dict[str, tuple[float, float]]:
    """Per-query search time (no embedding) for FAISS IndexFlatIP and numpy, on the same vectors."""
    from execugraph.retrieval.index import VectorIndex

    index = VectorIndex.from_vectors(matrix, [str(i) for i in range(len(matrix))])
    faiss_times, numpy_times = [], []
    agree = 0
    for _ in range(repeats):
        for q in queries:
            t0 = time.perf_counter()
            f = index.search(q, k)
            t1 = time.perf_counter()
            n = numpy_topk(matrix, q, k)
            t2 = time.perf_counter()
            faiss_times.append(t1 - t0)
            numpy_times.append(t2 - t1)
            agree += [int(i) for i, _ in f][:1] == [int(i) for i in n][:1]
    total = repeats * len(queries)
    return {"faiss": summarise(faiss_times), "numpy": summarise(numpy_times), "top1_agreement": (agree / total, 0.0)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="passes over the evaluation statements for warm timing")
    parser.add_argument("--scale", type=int, default=100_000, help="rows in the synthetic scaled-up library")
    parser.add_argument("--k", type=int, default=3)
    args = parser.parse_args()

    from execugraph.retrieval import load_eval_set
    from execugraph.retrieval.embedder import available_cores

    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) / "cache"
        print(f"cores available: {available_cores()}, load average at start: {os.getloadavg()[0]:.2f}")
        print("\n== cold start (fresh interpreter each) ==")
        build = cold_start(cache)
        reuse = cold_start(cache)
        print(f"{'phase':<28}{'empty cache':>14}{'cached index':>14}")
        for name in ("imports", "model", "index", "first_query", "total"):
            print(f"{name:<28}{build[name]:>13.3f}s{reuse[name]:>13.3f}s")
        print(f"{'index rebuilt?':<28}{str(build['built']):>14}{str(reuse['built']):>14}")

        from execugraph.retrieval import Retriever

        retriever = Retriever.load(cache_dir=cache, query_cache_size=0)  # every query really embedded
        statements = [c.statement for c in load_eval_set()]
        for s in statements[:5]:
            retriever.retrieve(s, k=args.k)  # warm-up

        n = args.rounds * len(statements)
        print(
            f"\n== warm retrieve, {args.rounds} x {len(statements)} queries, backend {getattr(retriever.embedder, 'backend', '?')}, threads {retriever.embedder.threads} =="
        )
        embed_times, total_times, cpu_times = [], [], []
        for _ in range(args.rounds):
            for s in statements:
                t0 = time.perf_counter()
                retriever.embedder.encode([s])
                t1 = time.perf_counter()
                c1 = time.thread_time()
                retriever.retrieve(s, k=args.k)
                t2 = time.perf_counter()
                cpu_times.append(time.thread_time() - c1)
                embed_times.append(t1 - t0)
                total_times.append(t2 - t1)
        cached = Retriever.load(cache_dir=cache)
        for s in statements:
            cached.retrieve(s, k=args.k)
        cached_times = []
        for _ in range(args.rounds):
            for s in statements:
                t0 = time.perf_counter()
                cached.retrieve(s, k=args.k)
                cached_times.append(time.perf_counter() - t0)
        med, p95 = summarise(total_times)
        emed, ep95 = summarise(embed_times)
        cmed, cp95 = summarise(cached_times)
        print(f"{'':<36}{'median ms':>12}{'p95 ms':>12}")
        print(f"{'retrieve, new query (embed+search)':<36}{med:>12.2f}{p95:>12.2f}")
        print(f"{'  of which query embedding alone':<36}{emed:>12.2f}{ep95:>12.2f}")
        cpu_med, cpu_p95 = summarise(cpu_times)
        print(f"{'retrieve, new query, CPU time':<36}{cpu_med:>12.2f}{cpu_p95:>12.2f}")
        print(f"{'retrieve, repeated query (cached)':<36}{cmed:>12.3f}{cp95:>12.3f}")
        verdict = "PASS" if p95 < TARGET_MS else ("median PASS, p95 over" if med < TARGET_MS else "FAIL")
        print(
            f"target < {TARGET_MS:.0f} ms per new query over {n} queries: {verdict} (median/target = {med / TARGET_MS:.2f})"
        )
        print(f"load average while measuring: {os.getloadavg()[0]:.2f} on {available_cores()} cores")

        print("\n== search only: FAISS IndexFlatIP vs numpy brute force (same vectors, same queries) ==")
        library_vectors = retriever.embedder.encode([x for t in retriever.library for x in t.embedding_texts()])
        query_vectors = retriever.embedder.encode(statements)
        rng = np.random.default_rng(0)
        synthetic = rng.normal(size=(args.scale, library_vectors.shape[1])).astype(np.float32)
        synthetic /= np.linalg.norm(synthetic, axis=1, keepdims=True)
        synthetic[: len(library_vectors)] = library_vectors
        print(
            f"{'library':<22}{'faiss med':>11}{'faiss p95':>11}{'numpy med':>11}{'numpy p95':>11}{'numpy/faiss':>13}{'top1 agree':>12}"
        )
        for label, matrix, repeats in (
            (f"real ({len(library_vectors)} rows)", library_vectors, args.rounds * 4),
            (f"synthetic ({args.scale} rows)", synthetic, 1),
        ):
            res = time_searches(matrix, query_vectors, args.k, repeats)
            (fm, fp), (nm, npp) = res["faiss"], res["numpy"]
            print(
                f"{label:<22}{fm:>10.3f}m{fp:>10.3f}m{nm:>10.3f}m{npp:>10.3f}m{nm / fm:>12.2f}x{res['top1_agreement'][0]:>12.2f}"
            )
        print("(m = milliseconds; ratio > 1 means FAISS is faster)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
