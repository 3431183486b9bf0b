"""Retriever: the technique library, its embeddings and FAISS index behind one `retrieve` call.

The Planner asks "which techniques fit this problem?" and gets ranked hits with
cosine scores; every hit can be stored with the trial (`Hit.to_row`), so
whether retrieval helped is something one can look at afterwards. Adding or
editing a technique writes the library file and swaps in a rebuilt index
without a restart.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from execugraph.retrieval.embedder import Embedder, get_embedder
from execugraph.retrieval.index import IndexLoad, VectorIndex, cache_key, limit_faiss_threads, load_or_build
from execugraph.retrieval.library import (
    DEFAULT_LIBRARY_PATH,
    LibraryFormatError,
    Technique,
    load_library,
    parse_library,
)
from execugraph.retrieval.library import (
    add_technique as _add_to_file,
)
from execugraph.retrieval.library import (
    update_technique as _update_in_file,
)
from execugraph.steps import HitRow

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


@dataclass(frozen=True)
class _State:
    """An immutable snapshot (library + index) swapped atomically on edits."""

    techniques: tuple[Technique, ...]
    by_id: dict[str, Technique]
    index: VectorIndex
    load: IndexLoad
    key: str


def default_cache_dir() -> Path:
    """`<settings.cache_dir>/retrieval`."""
    from execugraph.settings import load_settings

    return load_settings().cache_dir / "retrieval"


class Retriever:
    """Semantic search over a technique library file.

    Thread-safe: searches read an immutable snapshot; edits are serialised and
    publish a new snapshot only once the file is written and the index is ready.
    Query vectors are kept in a small LRU, because a batch asks about the same
    problem statement once per condition, seed and trial.
    """

    def __init__(
        self,
        library_path: Path,
        cache_dir: Path,
        embedder: Embedder,
        query_cache_size: int = DEFAULT_QUERY_CACHE,
    ) -> None:
        self.library_path = Path(library_path)
        self.cache_dir = Path(cache_dir)
        self.embedder = embedder
        self.index_builds = 0  # how many times this retriever had to embed the library
        self.query_cache_size = query_cache_size
        self._query_vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._query_lock = threading.Lock()
        self._edit_lock = threading.Lock()
        limit_faiss_threads(1)  # an exact scan of a few hundred rows is over before a second thread starts
        self._state = self._load_state()

    @classmethod
    def load(
        cls,
        library_path: Path | str | None = None,
        cache_dir: Path | str | None = None,
        embedder: Embedder | None = None,
        query_cache_size: int = DEFAULT_QUERY_CACHE,
    ) -> Retriever:
        """Open a library (default data/techniques.jsonl) with its cached or freshly built index.

        The library is validated before the model is loaded, so a malformed file fails fast.
        """
        library_path = Path(library_path) if library_path is not None else DEFAULT_LIBRARY_PATH
        load_library(library_path)
        return cls(
            library_path=library_path,
            cache_dir=Path(cache_dir) if cache_dir is not None else default_cache_dir(),
            embedder=embedder if embedder is not None else get_embedder(),
            query_cache_size=query_cache_size,
        )

    def _load_state(self) -> _State:
        """Read + validate the library file and get its index (cached if the bytes are unchanged)."""
        try:
            raw = self.library_path.read_bytes()
            text = raw.decode("utf-8")
        except FileNotFoundError:
            raise LibraryFormatError(self.library_path, None, None, "library file not found") from None
        except UnicodeDecodeError as exc:
            raise LibraryFormatError(self.library_path, None, None, f"not valid UTF-8 ({exc.reason})") from None
        techniques = parse_library(text, self.library_path)
        key = cache_key(raw, self.embedder.model_id)

        row_ids = [t.id for t in techniques for _ in t.embedding_texts()]

        def embed() -> np.ndarray:
            self.index_builds += 1
            return self.embedder.encode([view for t in techniques for view in t.embedding_texts()])

        loaded = load_or_build(self.cache_dir, key, row_ids, embed)
        return _State(
            techniques=tuple(techniques),
            by_id={t.id: t for t in techniques},
            index=loaded.index,
            load=loaded,
            key=key,
        )

    @property
    def library(self) -> list[Technique]:
        """The techniques currently indexed, in file order."""
        return list(self._state.techniques)

    @property
    def index_folder(self) -> Path:
        """Cache folder holding the current index files."""
        return self._state.load.folder

    @property
    def last_load_built(self) -> bool:
        """Whether the current index had to be embedded (False: reused from the cache)."""
        return self._state.load.built

    def get(self, technique_id: str) -> Technique | None:
        """Look a technique up by id."""
        return self._state.by_id.get(technique_id)

    def retrieve(self, text: str, k: int = DEFAULT_K) -> list[Hit]:
        """The k techniques closest to `text` by cosine similarity, best first."""
        if not isinstance(text, str) or not text.strip():
            raise ValueError("retrieval query text is empty")
        if k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        state = self._state
        query = self._query_vector(text.strip())
        pairs = state.index.search(query, k)
        return [Hit(technique=state.by_id[tid], score=score, rank=i) for i, (tid, score) in enumerate(pairs, start=1)]

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

    def reload(self) -> None:
        """Re-read the library file (e.g. edited by hand) and swap in its index."""
        with self._edit_lock:
            self._state = self._load_state()

    def reload_if_changed(self) -> bool:
        """Pick up edits made by another process (e.g. the UI while a worker runs); True if reloaded.

        Compares the file's current cache key with the indexed one, so an
        unchanged library costs one file read and a hash, never an embedding.
        """
        with self._edit_lock:
            try:
                current = cache_key(self.library_path.read_bytes(), self.embedder.model_id)
            except FileNotFoundError:
                raise LibraryFormatError(self.library_path, None, None, "library file not found") from None
            if current == self._state.key:
                return False
            self._state = self._load_state()
            return True

    def add_technique(self, technique: Technique) -> None:
        """Append a technique to the library file, then rebuild and publish the index."""
        with self._edit_lock:
            _add_to_file(self.library_path, technique)
            self._state = self._load_state()

    def update_technique(self, technique: Technique) -> None:
        """Replace the technique with the same id in the file, then rebuild and publish the index."""
        with self._edit_lock:
            _update_in_file(self.library_path, technique)
            self._state = self._load_state()


_retrievers: dict[tuple[Path, Path], Retriever] = {}
_retrievers_lock = threading.Lock()


def get_retriever(library_path: Path | str | None = None, cache_dir: Path | str | None = None) -> Retriever:
    """Process-wide Retriever per (library, cache dir); the model is loaded once per process."""
    lib = Path(library_path).resolve() if library_path is not None else DEFAULT_LIBRARY_PATH.resolve()
    cache = Path(cache_dir).resolve() if cache_dir is not None else default_cache_dir().resolve()
    with _retrievers_lock:
        retriever = _retrievers.get((lib, cache))
        if retriever is None:
            retriever = Retriever.load(lib, cache)
            _retrievers[(lib, cache)] = retriever
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
