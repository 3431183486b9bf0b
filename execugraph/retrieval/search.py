"""Retriever: a technique library, its embeddings and FAISS index behind one `retrieve` call.

The Planner asks "which techniques fit this problem?" and gets ranked hits with
cosine scores; every hit can be stored with the trial (`Hit.to_row`), so
whether retrieval helped is something one can look at afterwards. A Retriever
holds one fixed library (the techniques are passed in, from a file or from the
store): an edited library is a new Retriever with a new digest and index,
which `get_retriever` keeps per process, so a running batch never sees its
library change under it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from execugraph.domain.steps import HitRow
from execugraph.retrieval.embedder import Embedder, get_embedder
from execugraph.retrieval.index import IndexLoad, cache_key, limit_faiss_threads, load_or_build
from execugraph.retrieval.library import (
    DEFAULT_LIBRARY_PATH,
    LibraryFormatError,
    Technique,
    library_digest,
    load_library,
    serialise_library,
)

DEFAULT_K = 3
DEFAULT_QUERY_CACHE = 512


@dataclass(frozen=True)
class Hit:
    """One retrieved technique: its cosine similarity to the query and 1-based rank."""

    technique: Technique
    score: float
    rank: int

    def to_row(self) -> HitRow:
        """The fields the store's RetrievalHit keeps (the caller adds the query)."""
        return HitRow(
            technique_id=self.technique.id,
            technique_name=self.technique.name,
            score=float(self.score),
            rank=int(self.rank),
        )


def default_cache_dir() -> Path:
    """`<settings.cache_dir>/retrieval`."""
    from execugraph.configuration.settings import load_settings

    return load_settings().cache_dir / "retrieval"


class Retriever:
    """Semantic search over one fixed technique library.

    Thread-safe: the library and index never change after construction. Query
    vectors are kept in a small LRU, because a batch asks about the same
    problem statement once per condition, seed and trial.
    """

    def __init__(
        self,
        techniques: Sequence[Technique],
        cache_dir: Path,
        embedder: Embedder,
        query_cache_size: int = DEFAULT_QUERY_CACHE,
        source: str = "",
    ) -> None:
        self.techniques: tuple[Technique, ...] = tuple(techniques)
        if not self.techniques:
            raise LibraryFormatError(source or None, None, None, "the library contains no techniques")
        self.by_id = {t.id: t for t in self.techniques}
        if len(self.by_id) != len(self.techniques):
            raise LibraryFormatError(source or None, None, "id", "the library has duplicate ids")
        self.source = source  # where the techniques came from, for reports
        self.cache_dir = Path(cache_dir)
        self.embedder = embedder
        self.index_builds = 0  # how many times this retriever had to embed the library
        self.query_cache_size = query_cache_size
        self._query_vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._query_lock = threading.Lock()
        self.library_digest = library_digest(self.techniques)
        limit_faiss_threads(1)  # an exact scan of a few hundred rows is over before a second thread starts
        self._load = self._index()

    @classmethod
    def load(
        cls,
        library_path: Path | str | None = None,
        cache_dir: Path | str | None = None,
        embedder: Embedder | None = None,
        query_cache_size: int = DEFAULT_QUERY_CACHE,
    ) -> Retriever:
        """Open a library file (default: the shipped seed) with its cached or freshly built index.

        The file is validated before the model is loaded, so a malformed one fails fast.
        """
        library_path = Path(library_path) if library_path is not None else DEFAULT_LIBRARY_PATH
        return cls.of(load_library(library_path), cache_dir, embedder, query_cache_size, source=str(library_path))

    @classmethod
    def of(
        cls,
        techniques: Sequence[Technique],
        cache_dir: Path | str | None = None,
        embedder: Embedder | None = None,
        query_cache_size: int = DEFAULT_QUERY_CACHE,
        source: str = "",
    ) -> Retriever:
        """A retriever over `techniques`, with the default cache folder and embedder unless given."""
        return cls(
            techniques,
            cache_dir=Path(cache_dir) if cache_dir is not None else default_cache_dir(),
            embedder=embedder if embedder is not None else get_embedder(),
            query_cache_size=query_cache_size,
            source=source,
        )

    def _index(self) -> IndexLoad:
        """The library's index: cached under the digest of its content and the model, else embedded now."""
        techniques = self.techniques
        key = cache_key(serialise_library(techniques).encode("utf-8"), self.embedder.model_id)
        row_ids = [t.id for t in techniques for _ in t.embedding_texts()]

        def embed() -> np.ndarray:
            self.index_builds += 1
            return self.embedder.encode([view for t in techniques for view in t.embedding_texts()])

        return load_or_build(self.cache_dir, key, row_ids, embed)

    @property
    def library(self) -> list[Technique]:
        """The techniques indexed, in library order."""
        return list(self.techniques)

    @property
    def index_folder(self) -> Path:
        """Cache folder holding the index files."""
        return self._load.folder

    @property
    def last_load_built(self) -> bool:
        """Whether the index had to be embedded (False: reused from the cache)."""
        return self._load.built

    def get(self, technique_id: str) -> Technique | None:
        """Look a technique up by id."""
        return self.by_id.get(technique_id)

    def retrieve(self, text: str, k: int = DEFAULT_K) -> list[Hit]:
        """The k techniques closest to `text` by cosine similarity, best first."""
        if not isinstance(text, str) or not text.strip():
            raise ValueError("retrieval query text is empty")
        if k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        query = self._query_vector(text.strip())
        pairs = self._load.index.search(query, k)
        return [Hit(technique=self.by_id[tid], score=score, rank=i) for i, (tid, score) in enumerate(pairs, start=1)]

    def _query_vector(self, text: str) -> np.ndarray:
        """Embed a query, reusing the vector of a recently seen identical text."""
        with self._query_lock:
            cached = self._query_vectors.get(text)
            if cached is not None:
                self._query_vectors.move_to_end(text)
                return cached
        vector = self.embedder.encode([text])[0]
        vector.setflags(write=False)
        if self.query_cache_size > 0:
            with self._query_lock:
                self._query_vectors[text] = vector
                while len(self._query_vectors) > self.query_cache_size:
                    self._query_vectors.popitem(last=False)
        return vector


KEPT_RETRIEVERS = 4  # libraries kept per process: the current one, and a few a batch or a test still uses
_retrievers: OrderedDict[tuple[str, Path], Retriever] = OrderedDict()
_retrievers_lock = threading.Lock()


def cached_retriever(digest: str, cache_dir: Path | str | None = None) -> Retriever | None:
    """The process's Retriever for the library with this digest, if one was built (None otherwise)."""
    cache = Path(cache_dir).resolve() if cache_dir is not None else default_cache_dir().resolve()
    with _retrievers_lock:
        return _retrievers.get((digest, cache))


def get_retriever(
    techniques: Sequence[Technique] | None = None, cache_dir: Path | str | None = None, source: str = ""
) -> Retriever:
    """The process-wide Retriever for this library content (default: the shipped seed) and cache folder.

    Keyed by the library's digest, so an edited library gets its own index and
    every earlier one stays as it was; the embedding model is loaded once per process.
    """
    if techniques is None:
        techniques, source = load_library(DEFAULT_LIBRARY_PATH), source or str(DEFAULT_LIBRARY_PATH)
    cache = Path(cache_dir).resolve() if cache_dir is not None else default_cache_dir().resolve()
    key = (library_digest(techniques), cache)
    with _retrievers_lock:
        retriever = _retrievers.get(key)
        if retriever is None:
            retriever = Retriever.of(techniques, cache, source=source)
            _retrievers[key] = retriever
            while len(_retrievers) > KEPT_RETRIEVERS:
                _retrievers.popitem(last=False)
        _retrievers.move_to_end(key)
        return retriever


def format_for_prompt(hits: list[Hit]) -> str:
    """A compact, numbered reminder of the retrieved techniques for the Planner prompt."""
    if not hits:
        return "No relevant techniques were retrieved."
    lines = ["Techniques that may apply (retrieved by similarity; use only if they fit):"]
    for hit in hits:
        t = hit.technique
        lines.append(f"{hit.rank}. {t.name} [{t.category}, similarity {hit.score:.2f}]")
        lines.append(f"   When: {t.when_to_use}")
        lines.append(f"   Idea: {t.key_idea}")
        lines.append(f"   Cost: {t.complexity}")
        lines.append(f"   Watch out: {t.pitfalls}")
    return "\n".join(lines)
