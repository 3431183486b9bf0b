"""FAISS inner-product index over unit vectors, persisted in a content-addressed cache.

The cache folder is named by sha256(the library's canonical JSONL, techniques in
order, + model id; see `Retriever`): the same library
and model always find their index again (no re-embedding on every start), and
any edit to the library or a different model lands in a new folder, so a stale
index can never be served. Folders are written to a temporary name and renamed
into place, so a crash mid-build leaves nothing half-written behind.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import faiss
import numpy as np

INDEX_FILE = "index.faiss"
IDS_FILE = "ids.json"
FORMAT_VERSION = 2  # part of the cache key: bump when the stored layout or Technique.embedding_texts changes

_faiss_threads_lock = threading.Lock()
_faiss_threads_set = False


def limit_faiss_threads(threads: int) -> None:
    """Cap FAISS's OpenMP pool once per process (a flat search of a few hundred rows needs no more)."""
    global _faiss_threads_set
    with _faiss_threads_lock:
        if not _faiss_threads_set:
            faiss.omp_set_num_threads(max(1, threads))
            _faiss_threads_set = True


def cache_key(library_bytes: bytes, model_id: str) -> str:
    """Hex sha256 over the library's serialised bytes and the model id."""
    digest = hashlib.sha256()
    digest.update(library_bytes)
    digest.update(b"\0model:")
    digest.update(model_id.encode("utf-8"))
    digest.update(f"\0format:{FORMAT_VERSION}".encode())
    return digest.hexdigest()


@dataclass
class VectorIndex:
    """A FAISS IndexFlatIP plus the technique id stored at each row.

    A technique may own several rows (one per embedded view); a search scores
    each technique by its best row and returns every technique at most once.
    """

    index: faiss.Index
    ids: list[str]

    @classmethod
    def from_vectors(cls, vectors: np.ndarray, ids: Sequence[str]) -> VectorIndex:
        """Build an exact inner-product index; rows must already be unit length."""
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        if vectors.ndim != 2 or vectors.shape[0] != len(ids):
            raise ValueError(f"expected {len(ids)} row vectors, got array of shape {vectors.shape}")
        index = faiss.IndexFlatIP(vectors.shape[1])
        index.add(vectors)
        return cls(index=index, ids=list(ids))

    def __post_init__(self) -> None:
        counts: dict[str, int] = {}
        for tid in self.ids:
            counts[tid] = counts.get(tid, 0) + 1
        self._distinct = len(counts)
        self._max_rows = max(counts.values(), default=0)

    @property
    def dimension(self) -> int:
        """Vector width."""
        return int(self.index.d)

    def search(self, query: np.ndarray, k: int) -> list[tuple[str, float]]:
        """Top-k distinct (id, best cosine score) for one unit query vector, best first."""
        k = min(k, self._distinct)
        if k <= 0:
            return []
        # k * (most rows any id owns) rows always contain k distinct ids
        depth = min(len(self.ids), k * self._max_rows)
        query = np.ascontiguousarray(query, dtype=np.float32).reshape(1, -1)
        scores, rows = self.index.search(query, depth)
        found: dict[str, float] = {}
        for score, row in zip(scores[0], rows[0], strict=True):
            if row < 0:
                continue
            tid = self.ids[int(row)]
            if tid not in found:
                found[tid] = float(score)
                if len(found) == k:
                    break
        return list(found.items())

    def save(self, folder: Path) -> None:
        """Write index.faiss and ids.json into `folder` (which must exist)."""
        faiss.write_index(self.index, str(folder / INDEX_FILE))
        (folder / IDS_FILE).write_text(json.dumps({"format": FORMAT_VERSION, "ids": self.ids}), encoding="utf-8")

    @classmethod
    def load(cls, folder: Path) -> VectorIndex:
        """Read a saved index; raises if files are missing, unreadable or inconsistent."""
        meta = json.loads((folder / IDS_FILE).read_text(encoding="utf-8"))
        ids = meta["ids"]
        index = faiss.read_index(str(folder / INDEX_FILE))
        if index.ntotal != len(ids):
            raise ValueError(f"index has {index.ntotal} rows but {len(ids)} ids")
        return cls(index=index, ids=list(ids))


@dataclass(frozen=True)
class IndexLoad:
    """Result of `load_or_build`: the index, where it lives, and whether it was rebuilt."""

    index: VectorIndex
    folder: Path
    built: bool


def load_or_build(
    cache_dir: Path,
    key: str,
    ids: Sequence[str],
    embed: Callable[[], np.ndarray],
) -> IndexLoad:
    """Reuse `<cache_dir>/<key>/` when it holds an index for exactly `ids`; otherwise embed and save one.

    A damaged or mismatching cache entry is replaced rather than trusted.
    """
    folder = cache_dir / key
    if (folder / INDEX_FILE).is_file() and (folder / IDS_FILE).is_file():
        try:
            cached = VectorIndex.load(folder)
            if cached.ids == list(ids):
                return IndexLoad(index=cached, folder=folder, built=False)
        except (OSError, ValueError, KeyError, RuntimeError):
            pass  # fall through and rebuild over the damaged entry
    index = VectorIndex.from_vectors(embed(), ids)
    cache_dir.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{key[:12]}.", dir=cache_dir))
    try:
        index.save(staging)
        if folder.exists():
            shutil.rmtree(folder, ignore_errors=True)
        try:
            os.replace(staging, folder)
        except OSError:
            # another process won the race and put a complete folder there first; ours is identical
            shutil.rmtree(staging, ignore_errors=True)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    return IndexLoad(index=index, folder=folder, built=True)
