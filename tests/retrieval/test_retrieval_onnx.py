"""The ONNX Runtime query path gives the torch vectors (so cached indexes stay valid) and the same hits."""

from __future__ import annotations

import json

import numpy as np
import pytest

from execugraph.configuration.settings import DATA_DIR
from execugraph.retrieval.embedder import MiniLMEmbedder

pytestmark = pytest.mark.integration


def statements(n: int) -> list[str]:
    lines = (DATA_DIR / "retrieval_eval.jsonl").read_text().splitlines()
    return [json.loads(line)["statement"] for line in lines[:n]]


def test_onnx_and_torch_backends_agree(monkeypatch, tmp_path):
    monkeypatch.setenv("EXECUGRAPH_CACHE_DIR", str(tmp_path))
    onnx = MiniLMEmbedder()
    assert onnx.backend == "onnxruntime", getattr(onnx, "backend_error", "")
    assert list((tmp_path / "onnx").glob("*.onnx"))  # exported once into the cache
    monkeypatch.setenv("EXECUGRAPH_EMBED_BACKEND", "torch")
    torch_only = MiniLMEmbedder()
    assert torch_only.backend == "torch"
    texts = statements(20) + ["x", "a " * 400]  # a one-token query and one past the 256-token limit
    a, b = onnx.encode(texts), torch_only.encode(texts)
    assert a.shape == b.shape == (len(texts), 384)
    assert np.allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-5)
    assert float((a * b).sum(axis=1).min()) > 0.9999  # same vectors, up to float rounding
    batch = onnx.encode(texts[:5])
    single = np.vstack([onnx.encode([t]) for t in texts[:5]])
    assert float((batch * single).sum(axis=1).min()) > 0.9999  # padding does not change a vector
