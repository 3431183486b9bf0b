"""Retrieval layer: recalls algorithmic techniques for the Planner and measures how well it does.

Public API: `Retriever.load(path)` / `Retriever.of(techniques)`, `.retrieve(text, k)` -> ranked
`Hit`s, the process-wide `get_retriever(techniques)` (one per library digest),
`format_for_prompt(hits)`, and the technique model with its validating loader,
`apply_edits` and `library_digest`. Which library a database uses is
`execugraph.store.technique_library`'s business (this package never opens the store).

What lives where: `library` (the technique JSONL), `embedder` and `onnx_backend` (MiniLM
embeddings), `index` (the cached FAISS index), `search` (Retriever), `evaluation` (recall@k).
"""

from execugraph.retrieval.evaluation import EvalCase, EvalReport, evaluate, load_eval_set
from execugraph.retrieval.library import (
    DEFAULT_LIBRARY_PATH,
    KNOWN_CATEGORIES,
    LibraryFormatError,
    Technique,
    apply_edits,
    library_digest,
    load_library,
    parse_technique,
    save_library,
    with_added,
    with_updated,
)
from execugraph.retrieval.search import DEFAULT_K, Hit, Retriever, format_for_prompt, get_retriever

__all__ = [
    "DEFAULT_K",
    "DEFAULT_LIBRARY_PATH",
    "KNOWN_CATEGORIES",
    "EvalCase",
    "EvalReport",
    "Hit",
    "LibraryFormatError",
    "Retriever",
    "Technique",
    "apply_edits",
    "evaluate",
    "format_for_prompt",
    "get_retriever",
    "library_digest",
    "load_eval_set",
    "load_library",
    "parse_technique",
    "save_library",
    "with_added",
    "with_updated",
]

# The submodules other packages import (tests/layout/test_package_interfaces.py).
__all__ += [
    "library",
    "search",
]
