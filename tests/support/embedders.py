"""A deterministic stand-in for the MiniLM embedder, so retrieval logic is tested in milliseconds.

A real embedder all the same (same protocol as `execugraph.retrieval.embedder`,
unit vectors, cosine meaningful on word overlap), just a much simpler one.
"""

from __future__ import annotations

import hashlib
import re

import numpy as np


class HashingEmbedder:
    """Words hashed (sha1, so stable across processes) into 256 buckets, then L2-normalised."""

    def __init__(self, model_id: str = "hashing-bow-v1", dim: int = 256) -> None:
        self.model_id = model_id
        self.dim = dim
        self.calls = 0

    def encode(self, texts: list[str]) -> np.ndarray:
        self.calls += 1
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"[a-z0-9]+", text.lower()):
                out[row, int(hashlib.sha1(word.encode()).hexdigest(), 16) % self.dim] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1
        return out / norms
