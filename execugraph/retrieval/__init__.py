"""Retrieval layer: recalls algorithmic techniques for the Planner and measures how well it does.

Public API: `Retriever.load(...).retrieve(text, k)` -> ranked `Hit`s, the
process-wide `get_retriever()`, `format_for_prompt(hits)`, and the technique
library model with its validating loader.

What lives where: `library` (the technique JSONL), `embedder` and `onnx_backend` (MiniLM
embeddings), `index` (the cached FAISS index), `search` (Retriever), `evaluation` (recall@k).
"""

from execugraph.retrieval.evaluation import EvalCase, EvalReport, evaluate, load_eval_set
from execugraph.retrieval.library import (
    DEFAULT_LIBRARY_PATH,
    KNOWN_CATEGORIES,
    LibraryFormatError,
    Technique,
    load_library,
    parse_technique,
    save_library,
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
    "evaluate",
    "format_for_prompt",
    "get_retriever",
    "load_eval_set",
    "load_library",
    "parse_technique",
    "save_library",
]
